"""What a page says, in reading order, without the furniture: two-column pages read column by column, running
headers, footers and page numbers dropped, the reference list and acknowledgements kept out of the evidence, text a
reader cannot see left out, and scanned pages read by OCR (Tesseract through PyMuPDF) when Tesseract is installed."""

import functools
import logging
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pymupdf

from sourcecheck.errors import out_of_memory
from sourcecheck.text.sentences import WORD_ENDS_SENTENCE

log = logging.getLogger("sourcecheck")

# Ligatures expanded ("ﬁ" -> "fi"), text outside the page or clipped away dropped.
FLAGS = pymupdf.TEXTFLAGS_TEXT & ~pymupdf.TEXT_PRESERVE_LIGATURES
BAND = 0.07  # the top and bottom 7 % of a page hold running headers, footers and page numbers
GUTTER = 0.05  # a block that crosses the middle by more than this share of the width spans the columns
_REFERENCES = re.compile(
    r"^\s*(?:\d+\.?\s*|[IVX]+\.\s*)?(references|bibliography|works cited|literature cited)\s*$", re.IGNORECASE
)
# A reference entry names a year, "et al.", a DOI, an arXiv id, pages or a volume; the first block after the heading
# that names none of these (a body paragraph, an appendix, a page of contents' next line) ends the list, unless it is
# an entry's first lines set apart from the rest (_entry_head).
_REFERENCE_ENTRY = re.compile(r"\b(?:19|20)\d\d[a-z]?\b|\bet al\.|\bdoi\b|arxiv|\bpp?\.\s*\d|\bvol\.", re.IGNORECASE)
ENTRY_TAIL_WORDS = 12  # an entry's last block ("Processes. Springer-Verlag, New York.") is shorter than a paragraph
ENTRY_HEAD_WORDS = 6  # an appendix's heading ("A Implementation details for p values") is shorter than a wrapped entry
# an entry opens on its first author: "C.-S. J. Chu,", "Andrews, D. W. K.", "Juliet P. Shaffer."
_AUTHORS_FIRST = re.compile(
    r"\s*(?:(?:[A-Z]\.\s?-?)+\s*[A-Z][^\s,.]+(?:[,.]|\s+and\b)"  # "C.-S. J. Chu,", "D. W. K. Andrews."
    r"|[A-Z][^\s,.]+,\s+(?:[A-Z]\.\s?)+(?:[,(&]|and\b|$)"  # "Andrews, D. W. K. (1993)"
    r"|[A-Z][a-z]+\s+(?:[A-Z]\.\s)+[A-Z][^\s,.]+[,.])"  # "Juliet P. Shaffer."
)
# an entry's last block ends on its year, its pages or its DOI or address: "Econometrica, 61:821–856, 1993."
_ENTRY_TAIL = re.compile(r"(?:\b(?:19|20)\d\d[a-z]?|\d+\s*[-–]\s*\d+|\S+/\S+)\W*$")
_NOT_AN_ENTRY = re.compile(r"\s*(?:appendix|section|table|figure|chapter|supplement)", re.IGNORECASE)
_ACKNOWLEDGEMENTS = re.compile(r"^\s*(?:\d+\.?\s*)?acknowledge?ments?\b", re.IGNORECASE)
COLUMN_TEXT = 80  # characters: less than this on one side of the middle is no column
TEXT_ON_A_SCAN = 200  # characters: a page that is mostly a picture and has less text than this (a stamp) is OCR'd
_HYPHEN = re.compile(r"(?<=[a-z])-\n(?=[a-z])")  # "photo-\ngraphs": one word broken over two lines
# Extraction debris of mathematics, which the judge cannot read and the viewer cannot find on the page: glyphs of
# TeX's fonts in Unicode's private use areas (bracket pieces, symbols without a code point), LaTeXML's alternative
# text of formulas ("start_POSTSUBSCRIPT italic_e italic_d end_POSTSUBSCRIPT"), and a contents page's dot leaders.
_DEBRIS = re.compile(
    r"[\ue000-\uf8ff\U000f0000-\U0010ffff]+|\b\w*(?:start|end)_[A-Z][A-Z_]+\b|"
    r"\b(?:italic|bold|caligraphic|blackboard|fraktur|typewriter|sans-serif)_\w\b|"
    r"(?:\s?\.){4,}"
)
# TeX's T1 font encoding puts its dashes at control codes: a font without a Unicode map yields "1991\x152001";
# other control characters are nothing a reader sees
_CONTROL = str.maketrans({"\x15": "–", "\x16": "—", **{chr(c): " " for c in range(32) if chr(c) not in "\n\x15\x16"}})
OCR_DPI, OCR_LANGUAGE = 300, "eng"
# Hidden text (a prompt injection or an SEO trick a reader never sees) is no evidence: text the page does not show
# (hidden_spans), and text too small or too squeezed to read.
FAINT = 13  # alpha (0-255): below this (5 % opacity) text draws nothing: invisible, an OCR layer at most
WHITE = 240  # a pixel whose red, green and blue are all at least this (0-255) is blank paper
TINY = 1.0  # pt: text whose size and glyph box are both under this is microscopic
SQUEEZED = 0.1  # text narrower than this share of its height to a character is squeezed to a sliver
CHANGED = 10  # a pixel shows text when the text changes one of its channels by more than this (0-255): a small
# glyph drawn at 72 dpi changes its pixels by 12-40 only; text under a box at 99 % opacity, by 3
SHOWN = 0.02  # a span is seen when its text changes at least this share of the pixels of its box
INKED = 0.1  # a picture shows something under an OCR layer where at least this share of its pixels is not blank
DRAWN_PIXELS = 16_000_000  # the most pixels drawn to decide what shows (an A0 poster at 72 dpi: 8 M)
_PAGE_NUMBER = re.compile(r"^\s*(?:page\s*)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?\s*$", re.IGNORECASE)


@functools.cache
def tessdata() -> str | None:
    """Tesseract's language folder, or None when Tesseract is not installed (scans are then refused)."""
    try:
        return pymupdf.get_tessdata() or None
    except Exception:  # noqa: BLE001 - PyMuPDF raises when it finds no Tesseract
        return None


def page_texts(doc: Any, on_page: Callable[[int, int], object] | None = None) -> tuple[list[str], list[int]]:
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
    furniture, recurring = _repeated_bands(pages), _recurring(pages)
    out, skipping = [], None  # None, "references" or "acknowledgements": the section being left out
    for blocks in pages:
        kept = []
        for n, b in enumerate(blocks):
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
            if skipping == "references" and (
                _REFERENCE_ENTRY.search(b["text"])
                or _entry_head(blocks[n : n + 2])
                or _PAGE_NUMBER.match(b["text"])  # a page's number above the bottom band: the list goes on over it
                or _shape(b["text"]) in recurring  # a running header below the top band ("Roger Koenker / … / 25")
                or (n and _entry_tail(blocks[n - 1], b))
            ):
                continue
            if skipping == "acknowledgements":
                skipping = None
                continue
            skipping = None
            kept.append(b["text"])
        out.append("\n\n".join(kept))
    return out, scanned


def _entry_tail(before: dict[str, Any], block: dict[str, Any]) -> bool:
    """Whether a block is the last lines of the entry before it, set apart in a block of its own: a short one that
    ends like a sentence after a block that names a year ("Andersen PK, … (1991). Statistical Models Based on
    Counting" then "Processes. Springer-Verlag, New York.")."""
    text = block["text"]
    return (
        len(text.split()) <= ENTRY_TAIL_WORDS
        and bool(WORD_ENDS_SENTENCE.search(text.strip()))
        and not _NOT_AN_ENTRY.match(text)
        and bool(_REFERENCE_ENTRY.search(before["text"]))
    )


def _entry_head(blocks: list[dict[str, Any]]) -> bool:
    """Whether the first block is an entry's first lines that the PDF set apart from its last (the authors and title
    one block, "Econometrica, 61:821–856, 1993." the next): it runs on, or opens on its authors, and the next block
    (not a footer) names a year when the first opens on its authors, else ends as an entry ends. An appendix's
    heading or first paragraph after the list is neither."""
    if len(blocks) < 2 or blocks[1]["band"]:
        return False
    text, tail = blocks[0]["text"], blocks[1]["text"].strip()
    if len(text.split()) <= ENTRY_HEAD_WORDS or _NOT_AN_ENTRY.match(text):
        return False
    if _AUTHORS_FIRST.match(text):  # its authors first: a tail that names a year is enough ("… 2000a. In German.")
        return bool(_REFERENCE_ENTRY.search(tail))
    return not WORD_ENDS_SENTENCE.search(text) and bool(_ENTRY_TAIL.search(tail))


def _blocks(page: pymupdf.Page) -> tuple[list[dict[str, Any]], bool]:
    """The page's text blocks in reading order, each {text, band}: band when it sits in the top or bottom band;
    and whether they were read by OCR (a page with pictures and no text layer: a scan)."""
    width, height = page.rect.width, page.rect.height
    raw = [b for b in visible_blocks(page) if b[6] == 0 and b[4].strip()]
    ocr = _is_scan(page, raw)
    if ocr:
        try:
            textpage = page.get_textpage_ocr(
                flags=FLAGS, language=OCR_LANGUAGE, dpi=OCR_DPI, full=True, tessdata=tessdata()
            )
            raw = [b for b in page.get_text("blocks", textpage=textpage) if b[6] == 0 and b[4].strip()]
        except RuntimeError as e:  # Tesseract without its English data, or broken: the page keeps what it had
            if out_of_memory(e):
                raise  # the reader's memory limit (parser.py): not an OCR problem
            ocr = False
    # (MuPDF joins hyphenated words in its "text" output but not in "blocks": done here, as it does it)
    blocks = [
        {
            "x0": b[0],
            "y0": b[1],
            "x1": b[2],
            "y1": b[3],
            "text": _clean(b[4]),
            "band": not page.rotation and (b[3] <= height * BAND or b[1] >= height * (1 - BAND)),
        }
        for b in raw
    ]
    if page.rotation:  # the blocks come in unrotated coordinates: keep the reader's own order, no bands
        return blocks, ocr
    return _reading_order(blocks, width), ocr


def visible_blocks(page: pymupdf.Page, flags: int = FLAGS) -> list[tuple[Any, ...]]:
    """page.get_text("blocks") without the text a reader cannot see (hidden_spans). A page without any is read
    exactly as before; one with some has its blocks rebuilt from the spans that are left, as MuPDF builds them."""
    textpage = page.get_textpage(flags=flags)
    blocks = textpage.extractDICT()["blocks"]
    hidden = hidden_spans(page, blocks)
    return _without(blocks, hidden) if hidden else textpage.extractBLOCKS()


def _without(blocks: list[dict[str, Any]], hidden: set[int]) -> list[tuple[Any, ...]]:
    """A text dict's blocks as get_text("blocks") gives them (its lines, each ended by a newline), without the
    spans whose ids are in hidden."""
    out = []
    for n, block in enumerate(blocks):
        text, boxes = "", []
        for line in block.get("lines", ()):
            spans = [s for s in line["spans"] if id(s) not in hidden]
            if spans:
                text += "".join(s["text"] for s in spans)
                text += "" if text.endswith("\n") else "\n"
                boxes += [s["bbox"] for s in spans]
        if text:
            x0s, y0s, x1s, y1s = zip(*boxes)
            out.append((min(x0s), min(y0s), max(x1s), max(y1s), text, n, 0))
    return out


def hidden_spans(page: pymupdf.Page, blocks: list[dict[str, Any]]) -> set[int]:
    """The ids of the spans of a page's text dict (its "blocks") that a reader cannot see, decided from what the page
    shows rather than from a list of ways to hide text: the page is drawn twice, as it is and without its text
    (_drawn), and a span is seen where the two differ under it. So a box, a stroke, a shading or a picture painted
    over it, a ground of its own colour, white on white, and text at 99 % transparency all hide it, however drawn.
    Invisible text (render mode 3) is a scan's OCR layer where it lies on a picture that shows something under it
    (ocrmypdf, scanners; drawn before or after the picture), else hidden. Microscopic or squeezed text is hidden
    before anything is drawn."""
    spans = [s for b in blocks for line in b.get("lines", ()) for s in line["spans"] if s["text"].strip()]
    if not spans:
        return set()
    if "alpha" not in spans[0]:  # a PyMuPDF that gives none (older builds): ask the text trace
        _trace_alpha(page, spans)
    hidden = {id(s) for s in spans if _tiny(s)}
    for line in (line for b in blocks for line in b.get("lines", ())):
        if _squeezed(line):
            hidden |= {id(s) for s in line["spans"]}
    turn = page.rotation_matrix if page.rotation else None  # boxes are unrotated, drawings are as the page shows
    area = page.rect
    rest = []  # (span, its box as drawn: x0, y0, x1, y1)
    for s in spans:
        if id(s) in hidden:
            continue
        x0, y0, x1, y1 = s["bbox"] if turn is None else tuple(pymupdf.Rect(s["bbox"]) * turn)
        if x0 <= area.x1 and x1 >= area.x0 and y0 <= area.y1 and y1 >= area.y0:
            rest.append((s, (x0, y0, x1, y1)))
        else:
            hidden.add(id(s))  # off the page
    if not rest:
        return hidden
    boxes = np.array([box for _, box in rest])
    clip = pymupdf.Rect(*boxes[:, :2].min(axis=0), *boxes[:, 2:].max(axis=0)) & area
    zoom = min(1.0, (DRAWN_PIXELS / max(clip.width * clip.height, 1.0)) ** 0.5)  # 72 dpi, less for a poster
    drawn = _drawn(page, clip, zoom)
    if drawn is None:
        return hidden
    shown, bare, origin = drawn
    changed = _counts(_any_channel(np.abs(shown.astype(np.int16) - bare) > CHANGED))  # int16: a difference's sign
    inked = _counts(_any_channel(bare < WHITE))
    pictures = [pymupdf.Rect(r) for kind, r in page.get_bboxlog() if kind in ("fill-image", "fill-imgmask")]
    for s, (x0, y0, x1, y1) in rest:
        if min(x1 - x0, y1 - y0) < 0.5 and all(unicodedata.combining(c) for c in s["text"].strip()):
            continue  # a combining mark (the stroke of "≠"): no box of its own to look at
        box = _inset_box(x0 * zoom - origin.x, y0 * zoom - origin.y, x1 * zoom - origin.x, y1 * zoom - origin.y)
        if s["alpha"] < FAINT:  # an OCR layer counts only on a picture that shows something there
            seen = any(_centre(s) in r for r in pictures) and _share(inked, box) >= INKED
        else:
            seen = _share(changed, box) >= SHOWN
        if not seen:
            hidden.add(id(s))
    return hidden


def _tiny(span: dict[str, Any]) -> bool:
    """Microscopic text: its size and its glyph box both under TINY (a font's own scale is right)."""
    x0, y0, x1, y1 = span["bbox"]
    return bool(span["size"] < TINY and min(x1 - x0, y1 - y0) < 2 * TINY)


def _squeezed(line: dict[str, Any]) -> bool:
    """A line squeezed to a sliver (horizontal scaling `1 Tz`): less than SQUEEZED of its font's size to a
    character along its direction, over 4 characters or more (judged by the line, so that splitting it into short
    spans does not escape; a column of three dots, LaTeX's \\vdots, is no squeezed line)."""
    text = "".join(s["text"] for s in line["spans"]).strip()
    chars = sum(not unicodedata.combining(c) for c in text)  # a combining mark has no width
    size = max((s["size"] for s in line["spans"]), default=0.0)
    if chars < 4 or not size:
        return False
    # the length along the line's direction from the box's side for it (a tilted line's box is wider than the line
    # is long, never shorter), against the font's size: a box's height grows with the tilt, the size does not
    x0, y0, x1, y1 = line["bbox"]
    dx, dy = (abs(v) for v in line.get("dir", (1.0, 0.0)))
    length = (x1 - x0) / dx if dx >= dy else (y1 - y0) / dy
    return bool(length < SQUEEZED * size * chars)


def _drawn(page: pymupdf.Page, clip: pymupdf.Rect, zoom: float) -> tuple[np.ndarray, np.ndarray, pymupdf.Point] | None:
    """The part clip of the page drawn (RGB, zoom pixels a point) as it is and without its text, and where the
    drawings' first pixel is on the page (in pixels): the text removed from a copy of the page by a redaction that
    keeps pictures and drawings. None when the copy cannot be made (the text is then all kept: a damaged page loses
    nothing it shows)."""
    matrix = pymupdf.Matrix(zoom, zoom)
    origin = pymupdf.Point()

    def pixels(p: pymupdf.Page) -> np.ndarray:
        pix = p.get_pixmap(matrix=matrix, colorspace=pymupdf.csRGB, alpha=False, clip=clip)
        origin.x, origin.y = pix.x, pix.y
        rows = np.frombuffer(pix.samples, np.uint8).reshape(pix.height, pix.stride)
        return rows[:, : pix.width * 3].reshape(pix.height, pix.width, 3)

    try:
        copy = pymupdf.open()
        copy.insert_pdf(page.parent, from_page=page.number, to_page=page.number)
        bare = copy[0]
        # the redaction is in the page's unrotated space: a rotated page's rect (its shown size) would leave the
        # text of its far part in place
        box = bare.rect * bare.derotation_matrix
        bare.add_redact_annot(box, fill=False)  # type: ignore[arg-type]  # False: no box (PyMuPDF's docs)
        bare.apply_redactions(images=0, graphics=0, text=0)  # keep pictures, keep drawings, remove the text
        return pixels(page), pixels(bare), origin
    except Exception as e:  # noqa: BLE001 - MuPDF's errors on a damaged page: nothing is hidden rather than all
        if out_of_memory(e):
            raise
        log.warning("Page %d could not be drawn without its text (%s): hidden text not looked for", page.number, e)
        return None


def _inset_box(x0: float, y0: float, x1: float, y1: float) -> tuple[int, int, int, int]:
    """The pixels of a box (in a drawing's pixels) without its rim (a fifth of its shorter side, at most a pixel),
    where the next word or line may reach: x0, y0, x1, y1 with x1 > x0 and y1 > y0."""
    d = min(0.2 * min(x1 - x0, y1 - y0), 1.0)
    left, top = max(int(x0 + d), 0), max(int(y0 + d), 0)
    return left, top, max(int(np.ceil(x1 - d)), left + 1), max(int(np.ceil(y1 - d)), top + 1)


def _any_channel(mask: np.ndarray) -> np.ndarray:
    """Per pixel, whether mask holds in any of its red, green and blue (three ors: far quicker than any(axis=-1))."""
    return mask[..., 0] | mask[..., 1] | mask[..., 2]


def _counts(mask: np.ndarray) -> np.ndarray:
    """mask's summed-area table, padded: the count of a box of it in four reads (_share)."""
    table = np.zeros((mask.shape[0] + 1, mask.shape[1] + 1), np.int32)  # 16 M pixels fit; half int64's memory
    table[1:, 1:] = mask.cumsum(axis=0).cumsum(axis=1)
    return table


def _share(counts: np.ndarray, box: tuple[int, int, int, int]) -> float:
    """The share of the pixels of box (x0, y0, x1, y1, cut to the drawing) where the mask of counts holds."""
    height, width = counts.shape[0] - 1, counts.shape[1] - 1
    x0, y0, x1, y1 = min(box[0], width), min(box[1], height), min(box[2], width), min(box[3], height)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    total = counts[y1, x1] - counts[y0, x1] - counts[y1, x0] + counts[y0, x0]
    return float(total) / ((x1 - x0) * (y1 - y0))


def _trace_alpha(page: pymupdf.Page, spans: list[dict[str, Any]]) -> None:
    """Each span's alpha from the page's text trace (older PyMuPDF): 0 when the trace draws it invisible (render
    mode 3) or transparent, else 255."""
    drawn = [pymupdf.Rect(t["bbox"]) for t in page.get_texttrace() if t["type"] != 3 and t["opacity"] * 255 >= FAINT]
    for s in spans:
        s["alpha"] = 255 if any(_centre(s) in r for r in drawn) else 0


def _centre(span: dict[str, Any]) -> pymupdf.Point:
    x0, y0, x1, y1 = span["bbox"]
    return pymupdf.Point((x0 + x1) / 2, (y0 + y1) / 2)


def _clean(text: str) -> str:
    """A block's text without hyphenation across lines or mathematics debris (_DEBRIS); its lines kept."""
    text = _DEBRIS.sub(" ", _HYPHEN.sub("", text.strip().translate(_CONTROL)))
    return "\n".join(" ".join(line.split()) for line in text.split("\n") if line.strip())


def _is_scan(page: pymupdf.Page, raw: list[tuple[Any, ...]]) -> bool:
    """A page to OCR: a picture covering most of it and next to no text (none, or a stamp such as "This content
    downloaded from…"), when Tesseract is installed."""
    if sum(len(b[4].strip()) for b in raw) >= TEXT_ON_A_SCAN or tessdata() is None:
        return False
    area = abs(page.rect)
    return any(abs(pymupdf.Rect(info["bbox"]) & page.rect) > 0.5 * area for info in page.get_image_info())


def _reading_order(blocks: list[dict[str, Any]], width: float) -> list[dict[str, Any]]:
    """Full-width blocks split the page into bands; within a band that has two columns, the left column, then
    the right one."""

    def side(b: dict[str, Any]) -> str:
        # a centred title or a wide paragraph crosses the middle; a column's blocks stay on one side
        if b["x1"] <= width * (0.5 + GUTTER):
            return "left"
        return "right" if b["x0"] >= width * (0.5 - GUTTER) else "full"

    band: list[dict[str, Any]]
    ordered, band = [], []
    for b in sorted(blocks, key=lambda b: (b["y0"], b["x0"])):
        if side(b) == "full":
            ordered += _columns(band, side) + [b]
            band = []
        else:
            band.append(b)
    return ordered + _columns(band, side)


def _columns(band: list[dict[str, Any]], side: Callable[[dict[str, Any]], str]) -> list[dict[str, Any]]:
    left = [b for b in band if side(b) == "left"]
    right = [b for b in band if side(b) == "right"]
    if min(sum(len(b["text"]) for b in side_) for side_ in (left, right)) < COLUMN_TEXT:
        return band  # one column with a stray block beside it (an equation number, a date): top to bottom
    return left + right


def _shape(text: str) -> str:
    """A header's text with its numbers masked: "Page 3 · Journal of X 12(4)" repeats as one shape."""
    return re.sub(r"\d+", "#", " ".join(text.split())).lower()


def _recurring(pages: list[list[dict[str, Any]]]) -> set[str]:
    """Shapes of blocks anywhere on a page that recur on at least a third of the pages, and 3 or more: a running
    header set lower than the band, perhaps on every other page only (crq.pdf's odd pages). Only a reference list
    reads over them (page_texts); elsewhere they may be a table's repeated heading."""
    counts = Counter(shape for blocks in pages for shape in {_shape(b["text"]) for b in blocks})
    return {shape for shape, n in counts.items() if n >= max(3, len(pages) / 3)}


def _repeated_bands(pages: list[list[dict[str, Any]]]) -> set[str]:
    """Shapes of top/bottom band blocks that recur on at least half the pages (3 pages or more)."""
    if len(pages) < 3:
        return set()
    counts = Counter(shape for blocks in pages for shape in {_shape(b["text"]) for b in blocks if b["band"]})
    return {shape for shape, n in counts.items() if n >= max(2, len(pages) / 2)}
