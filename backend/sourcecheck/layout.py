"""What a page says, in reading order, without the furniture: two-column pages read column by column, running
headers, footers and page numbers dropped, the reference list and acknowledgements kept out of the evidence, text a
reader cannot see left out, and scanned pages read by OCR (Tesseract through PyMuPDF) when Tesseract is installed."""

import bisect
import functools
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

import pymupdf

from sourcecheck.errors import out_of_memory

# Ligatures expanded ("ﬁ" -> "fi"), text outside the page or clipped away dropped.
FLAGS = pymupdf.TEXTFLAGS_TEXT & ~pymupdf.TEXT_PRESERVE_LIGATURES
BAND = 0.07  # the top and bottom 7 % of a page hold running headers, footers and page numbers
GUTTER = 0.05  # a block that crosses the middle by more than this share of the width spans the columns
_REFERENCES = re.compile(
    r"^\s*(?:\d+\.?\s*|[IVX]+\.\s*)?(references|bibliography|works cited|literature cited)\s*$", re.IGNORECASE
)
# A reference entry names a year, "et al.", a DOI, an arXiv id, pages or a volume; the first block after the heading
# that names none of these (a body paragraph, an appendix, a page of contents' next line) ends the list.
_REFERENCE_ENTRY = re.compile(r"\b(?:19|20)\d\d[a-z]?\b|\bet al\.|\bdoi\b|arxiv|\bpp?\.\s*\d|\bvol\.", re.IGNORECASE)
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
# Hidden text (a prompt injection or an SEO trick a reader never sees) is no evidence: text drawn invisible (render
# mode 3) or all but transparent, white text on white paper, and text too small to read.
FAINT = 13  # alpha (0-255): below this (5 % opacity) text draws nothing
WHITE = 240  # a colour whose red, green and blue are all at least this (0-255) is white on paper
TINY = 1.0  # pt: text whose size and glyph box are both under this is microscopic
INKED = 0.1  # white text shows where at least this share of the page under it is coloured
DRAWN_PIXELS = 16_000_000  # the most pixels drawn to see what is under white text (an A0 poster at 72 dpi: 8 M)
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
    """The ids of the spans of a page's text dict (its "blocks") that a reader cannot see: microscopic text,
    invisible text that lies on no picture, text that a box or a picture painted after it covers (_covered), and
    white text on white paper. Invisible text on a picture is a scan's OCR layer (ocrmypdf, scanners) and is kept;
    white text is kept where the page, drawn, shows something under it (a picture, a dark box, a gradient, its own
    dark outline)."""
    spans = [s for b in blocks for line in b.get("lines", ()) for s in line["spans"] if s["text"].strip()]
    if not spans:
        return set()
    if "alpha" not in spans[0]:  # an older PyMuPDF (pyproject allows 1.24) gives none: ask the text trace
        _trace_alpha(page, spans)
    log = page.get_bboxlog()  # what the page paints, in order: text, fills, pictures, each with its box
    hidden, invisible, white = set(), [], []
    for s in spans:
        x0, y0, x1, y1 = s["bbox"]
        if s["size"] < TINY and min(x1 - x0, y1 - y0) < 2 * TINY:  # its glyphs too: a font's own scale is right
            hidden.add(id(s))
        elif s["alpha"] < FAINT:
            invisible.append(s)
        elif min(s["color"] >> 16 & 255, s["color"] >> 8 & 255, s["color"] & 255) >= WHITE:
            white.append(s)
    if invisible:
        pictures = [pymupdf.Rect(r) for kind, r in log if kind in ("fill-image", "fill-imgmask")]
        hidden |= {id(s) for s in invisible if not any(_centre(s) in r for r in pictures)}
    hidden |= _covered(page, [s for s in spans if id(s) not in hidden], log)
    white = [s for s in white if id(s) not in hidden]
    if white:  # only the part of the page with white text is drawn, at 72 dpi (a pixel a point) or less if huge
        rects = [pymupdf.Rect(s["bbox"]) * page.rotation_matrix for s in white]
        clip = functools.reduce(lambda a, b: a | b, rects) & page.rect
        zoom = min(1.0, (DRAWN_PIXELS / max(clip.width * clip.height, 1.0)) ** 0.5)
        drawn = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), colorspace=pymupdf.csRGB, alpha=False, clip=clip)
        samples = drawn.samples
        hidden |= {id(s) for s, rect in zip(white, rects) if not _inked(drawn, samples, rect * zoom)}
    return hidden


def _covered(page: pymupdf.Page, spans: list[dict[str, Any]], log: list[tuple[Any, ...]]) -> set[int]:
    """The ids of the spans that something opaque painted after them covers (_opaque): a white box drawn over a
    sentence, a sentence tucked under a picture. What is painted before the text is its ground (table shading, a
    highlighted box, a picture behind a caption) and hides nothing. log: page.get_bboxlog(); an entry's place in it
    is its paint order ("seqno" in get_drawings)."""
    first = next((n for n, (kind, _) in enumerate(log) if kind.endswith("-text")), len(log))
    page_area = abs(page.rect)
    late = [
        (n, r)
        for n, (kind, r) in enumerate(log[first + 1 :], first + 1)
        if kind in ("fill-path", "fill-image")
        and min(r[2] - r[0], r[3] - r[1]) >= TINY  # a rule or an underline: too thin to hide text
        # a picture over most of the page is a scan, its OCR text under it (ABBYY's "text under the page image")
        and not (kind == "fill-image" and abs(pymupdf.Rect(r) & page.rect) > 0.5 * page_area)
    ]
    if not late:
        return set()
    boxes = sorted(((_inset(s), s) for s in spans), key=lambda b: b[0][1])  # tuples: this runs for every span
    tops = [box[1] for box, _ in boxes]
    candidates = [  # (cover, span, its box) where the cover's rectangle holds the span
        (n, s, box)
        for n, (x0, y0, x1, y1) in late
        for box, s in boxes[bisect.bisect_left(tops, y0) : bisect.bisect_right(tops, y1)]
        if x0 <= box[0] and box[2] <= x1 and box[3] <= y1
    ]
    if not candidates:
        return set()
    texts = [(n, pymupdf.Rect(r)) for n, (kind, r) in enumerate(log) if kind.endswith("-text")]
    order: dict[int, int] = {}

    def painted(s: dict[str, Any]) -> int:
        """A span's place in the paint order: the last text drawn where it lies (none: taken as painted last)."""
        if id(s) not in order:
            order[id(s)] = max((n for n, r in texts if _centre(s) in r), default=len(log))
        return order[id(s)]

    candidates = [(n, s, box) for n, s, box in candidates if n > painted(s)]  # a chart's label on its bar: none
    opaque = _opaque(page, log) if candidates else {}
    return {id(s) for n, s, box in candidates if n in opaque and opaque[n].contains(box)}


_Within = list[tuple[int, pymupdf.Rect | None, bool]]  # clips and groups drawn in: level, scissor, see-through


def _opaque(page: pymupdf.Page, log: list[tuple[Any, ...]]) -> dict[int, pymupdf.Rect]:
    """Paint order -> the part of the page it hides, for each fill at full opacity in the Normal blend mode and each
    picture without a mask, cut to the clips it was drawn in. A highlighter (the Multiply blend mode, as highlight
    annotations use), a translucent box or a picture with transparent parts lets what is under it show. get_drawings
    lists the clips but no pictures: a picture is taken to be in every clip it may have been drawn in."""
    masked = {tuple(map(round, info["bbox"])) for info in page.get_image_info() if info["has-mask"]}
    pictures = [
        (n, pymupdf.Rect(r))
        for n, (kind, r) in enumerate(log)
        if kind == "fill-image" and tuple(map(round, r)) not in masked
    ]
    out: dict[int, pymupdf.Rect] = {}
    stack: _Within = []  # the clips and groups open
    since: _Within = []  # those closed since the last drawing: a picture drawn meanwhile may have been in them

    def shown(n: int, rect: pymupdf.Rect, within: _Within) -> None:
        if not any(clear for _, _, clear in within):
            for _, scissor, _ in within:
                rect = rect if scissor is None else rect & scissor
            out[n] = rect

    for d in [*page.get_drawings(extended=True), {"seqno": len(log), "level": 0, "type": "end"}]:
        if "seqno" in d:
            while pictures and pictures[0][0] < d["seqno"]:
                shown(*pictures.pop(0), since + stack)
            since = []
        while stack and stack[-1][0] >= d["level"]:
            closed = stack.pop()
            if "seqno" not in d:  # closed at a clip or a group: perhaps after a picture
                since.append(closed)
        if d["type"] == "clip":
            stack.append((d["level"], pymupdf.Rect(d["scissor"]), False))
        elif d["type"] == "group":
            stack.append((d["level"], None, d["blendmode"] != "Normal" or d["opacity"] < 1))
        elif d.get("fill") is not None and d.get("fill_opacity") == 1:
            shown(d["seqno"], pymupdf.Rect(d["rect"]), stack)
    return out


def _inset(span: dict[str, Any]) -> tuple[float, float, float, float]:
    """A span's box without its rim (a fifth of its shorter side), where the next line or a box's edge may reach."""
    x0, y0, x1, y1 = span["bbox"]
    d = 0.2 * min(x1 - x0, y1 - y0)
    return x0 + d, y0 + d, x1 - d, y1 - d


def _trace_alpha(page: pymupdf.Page, spans: list[dict[str, Any]]) -> None:
    """Each span's alpha from the page's text trace (older PyMuPDF): 0 when the trace draws it invisible (render
    mode 3) or transparent, else 255."""
    drawn = [pymupdf.Rect(t["bbox"]) for t in page.get_texttrace() if t["type"] != 3 and t["opacity"] * 255 >= FAINT]
    for s in spans:
        s["alpha"] = 255 if any(_centre(s) in r for r in drawn) else 0


def _centre(span: dict[str, Any]) -> pymupdf.Point:
    x0, y0, x1, y1 = span["bbox"]
    return pymupdf.Point((x0 + x1) / 2, (y0 + y1) / 2)


_LIGHT = bytes(range(WHITE, 256))


def _inked(pixmap: pymupdf.Pixmap, samples: bytes, rect: pymupdf.Rect) -> bool:
    """Whether the drawn page (an RGB pixmap of part of it at 72 dpi, and its samples) shows colour in the middle
    of rect: at least INKED of its red, green and blue values darker than WHITE. Its rim is left out, where the next
    word or line may reach."""
    inset = 0.2 * min(rect.width, rect.height)
    box = pymupdf.Rect(rect.x0 + inset, rect.y0 + inset, rect.x1 - inset, rect.y1 - inset).round() & pixmap.irect
    if box.is_empty:
        return False
    n, stride = pixmap.n, pixmap.stride
    start, end = (box.x0 - pixmap.x) * n, (box.x1 - pixmap.x) * n
    rows = [samples[y * stride + start : y * stride + end] for y in range(box.y0 - pixmap.y, box.y1 - pixmap.y)]
    total = sum(len(r) for r in rows)
    return sum(len(r.translate(None, _LIGHT)) for r in rows) >= INKED * total


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


def _repeated_bands(pages: list[list[dict[str, Any]]]) -> set[str]:
    """Shapes of top/bottom band blocks that recur on at least half the pages (3 pages or more)."""
    if len(pages) < 3:
        return set()
    counts = Counter(shape for blocks in pages for shape in {_shape(b["text"]) for b in blocks if b["band"]})
    return {shape for shape, n in counts.items() if n >= max(2, len(pages) / 2)}
