"""What a page says, in reading order, without the furniture: two-column pages read column by column, running
headers, footers and page numbers dropped, the reference list and acknowledgements kept out of the evidence, and
scanned pages read by OCR (Tesseract through PyMuPDF) when Tesseract is installed."""

import functools
import re
from collections import Counter

import pymupdf

from sourcecheck.errors import out_of_memory

# Ligatures expanded ("ﬁ" -> "fi"), text outside the page dropped.
FLAGS = pymupdf.TEXTFLAGS_TEXT & ~pymupdf.TEXT_PRESERVE_LIGATURES
BAND = 0.07          # the top and bottom 7 % of a page hold running headers, footers and page numbers
GUTTER = 0.05        # a block that crosses the middle by more than this share of the width spans the columns
_REFERENCES = re.compile(r"^\s*(?:\d+\.?\s*|[IVX]+\.\s*)?(references|bibliography|works cited|literature cited)\s*$",
                         re.IGNORECASE)
# A reference entry names a year, "et al.", a DOI, an arXiv id, pages or a volume; the first block after the heading
# that names none of these (a body paragraph, an appendix, a page of contents' next line) ends the list.
_REFERENCE_ENTRY = re.compile(r"\b(?:19|20)\d\d[a-z]?\b|\bet al\.|\bdoi\b|arxiv|\bpp?\.\s*\d|\bvol\.", re.IGNORECASE)
_ACKNOWLEDGEMENTS = re.compile(r"^\s*(?:\d+\.?\s*)?acknowledge?ments?\b", re.IGNORECASE)
COLUMN_TEXT = 80  # characters: less than this on one side of the middle is no column
TEXT_ON_A_SCAN = 200  # characters: a page that is mostly a picture and has less text than this (a stamp) is OCR'd
_HYPHEN = re.compile(r"(?<=[a-z])-\n(?=[a-z])")  # "photo-\ngraphs": one word broken over two lines
OCR_DPI, OCR_LANGUAGE = 300, "eng"
_PAGE_NUMBER = re.compile(r"^\s*(?:page\s*)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?\s*$", re.IGNORECASE)


@functools.cache
def tessdata():
    """Tesseract's language folder, or None when Tesseract is not installed (scans are then refused)."""
    try:
        return pymupdf.get_tessdata() or None
    except Exception:  # noqa: BLE001 - PyMuPDF raises when it finds no Tesseract
        return None


def page_texts(doc, on_page=None):
    """The text of each page of an open document, in reading order, without the furniture; and the numbers
    (from 1) of the pages read by OCR. on_page(done, total) is called after each page."""
    pages, scanned = [], []
    for page in doc:
        blocks, ocr = _blocks(page)
        pages.append(blocks)
        if ocr:
            scanned.append(page.number + 1)
        if on_page:
            on_page(page.number + 1, doc.page_count)
    furniture = _repeated_bands(pages)
    out, skipping = [], None  # None, "references" or "acknowledgements": the section being left out
    for blocks in pages:
        kept = []
        for b in blocks:
            if b["band"] and (_PAGE_NUMBER.match(b["text"]) or _shape(b["text"]) in furniture):
                continue
            first_line = b["text"].split("\n", 1)[0]
            if _REFERENCES.match(first_line):
                skipping = "references"
                continue
            if _ACKNOWLEDGEMENTS.match(first_line):
                # a heading alone in its block: its paragraph is the next block
                skipping = "acknowledgements" if len(b["text"].split()) <= 3 else None
                continue
            if skipping == "references" and _REFERENCE_ENTRY.search(b["text"]):
                continue
            if skipping == "acknowledgements":
                skipping = None
                continue
            skipping = None
            kept.append(b["text"])
        out.append("\n\n".join(kept))
    return out, scanned


def _blocks(page):
    """The page's text blocks in reading order, each {text, band}: band when it sits in the top or bottom band;
    and whether they were read by OCR (a page with pictures and no text layer: a scan)."""
    width, height = page.rect.width, page.rect.height
    raw = [b for b in page.get_text("blocks", flags=FLAGS) if b[6] == 0 and b[4].strip()]
    ocr = _is_scan(page, raw)
    if ocr:
        try:
            textpage = page.get_textpage_ocr(flags=FLAGS, language=OCR_LANGUAGE, dpi=OCR_DPI, full=True,
                                             tessdata=tessdata())
            raw = [b for b in page.get_text("blocks", textpage=textpage) if b[6] == 0 and b[4].strip()]
        except RuntimeError as e:  # Tesseract without its English data, or broken: the page keeps what it had
            if out_of_memory(e):
                raise  # the reader's memory limit (parser.py): not an OCR problem
            ocr = False
    # (MuPDF joins hyphenated words in its "text" output but not in "blocks": done here, as it does it)
    blocks = [{"x0": b[0], "y0": b[1], "x1": b[2], "y1": b[3], "text": _HYPHEN.sub("", b[4].strip()),
               "band": not page.rotation and (b[3] <= height * BAND or b[1] >= height * (1 - BAND))} for b in raw]
    if page.rotation:  # the blocks come in unrotated coordinates: keep the reader's own order, no bands
        return blocks, ocr
    return _reading_order(blocks, width), ocr


def _is_scan(page, raw):
    """A page to OCR: a picture covering most of it and next to no text (none, or a stamp such as "This content
    downloaded from…"), when Tesseract is installed."""
    if sum(len(b[4].strip()) for b in raw) >= TEXT_ON_A_SCAN or tessdata() is None:
        return False
    area = abs(page.rect)
    return any(abs(pymupdf.Rect(info["bbox"]) & page.rect) > 0.5 * area for info in page.get_image_info())


def _reading_order(blocks, width):
    """Full-width blocks split the page into bands; within a band that has two columns, the left column, then
    the right one."""
    def side(b):  # a centred title or a wide paragraph crosses the middle; a column's blocks stay on one side
        if b["x1"] <= width * (0.5 + GUTTER):
            return "left"
        return "right" if b["x0"] >= width * (0.5 - GUTTER) else "full"

    ordered, band = [], []
    for b in sorted(blocks, key=lambda b: (b["y0"], b["x0"])):
        if side(b) == "full":
            ordered += _columns(band, side) + [b]
            band = []
        else:
            band.append(b)
    return ordered + _columns(band, side)


def _columns(band, side):
    left = [b for b in band if side(b) == "left"]
    right = [b for b in band if side(b) == "right"]
    if min(sum(len(b["text"]) for b in side_) for side_ in (left, right)) < COLUMN_TEXT:
        return band  # one column with a stray block beside it (an equation number, a date): top to bottom
    return left + right


def _shape(text):
    """A header's text with its numbers masked: "Page 3 · Journal of X 12(4)" repeats as one shape."""
    return re.sub(r"\d+", "#", " ".join(text.split())).lower()


def _repeated_bands(pages):
    """Shapes of top/bottom band blocks that recur on at least half the pages (3 pages or more)."""
    if len(pages) < 3:
        return set()
    counts = Counter(shape for blocks in pages for shape in {_shape(b["text"]) for b in blocks if b["band"]})
    return {shape for shape, n in counts.items() if n >= max(2, len(pages) / 2)}
