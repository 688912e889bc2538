"""PDF bytes → pages of text (PyMuPDF), plus title, authors and year."""

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date

import pymupdf

from sourcecheck.errors import PDFError, out_of_memory
from sourcecheck.pdf.layout import hidden_spans, page_texts, tessdata, visible_blocks
from sourcecheck.text.citations import find_citations, strip_citations

_YEAR = re.compile(r"\b(19[5-9]\d|20[0-4]\d)\b")
_LATEST = 2049  # the newest year _YEAR reads
_MONTHS = {
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
}
_NAME = re.compile(r"[A-Z][\w'’.-]+(?:\s+(?:[A-Z]\.|[A-Z][\w'’-]+|van|von|de|der|da|del|di|le|la)){1,3}")
# arXiv's own stamp in the margin ("arXiv:2310.10627v1 [cs.CL] 16 Oct 2023"), not an arXiv id cited in the text
_ARXIV = re.compile(r"arXiv:(\d\d)(?:0[1-9]|1[0-2])\.\d{4,5}(?:v\d+)?\s*\[[\w.-]+\]")
_DATED = re.compile(
    r"(?:©\s*|\(c\)\s*(?=\d{4})|\b(?:copyright|published|accepted|received|proceedings|conference|"
    r"journal|volume|vol\.)\b[^\n]{0,80}?)\b(19[5-9]\d|20[0-4]\d)\b",
    re.IGNORECASE,
)


@dataclass
class ParsedPDF:
    pages: list[str]  # text of each page, in page order
    title: str = ""
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    ocr_pages: list[int] = field(default_factory=list)  # pages (from 1) read from their picture by OCR
    authors_listed: bool = False  # the authors are the file's own list (its metadata), not names read off page 1


def open_pdf(data: bytes, max_pages: int | None = None) -> pymupdf.Document:
    """Open PDF bytes, or raise PDFError saying what is wrong with them (max_pages: more pages are refused)."""
    if not data:
        raise PDFError("The file is empty.", code="pdf_empty")
    if b"%PDF-" not in data[:1024]:
        raise PDFError("The file is not a PDF.", code="not_a_pdf", status=415)
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception:
        raise PDFError(
            "The PDF is damaged and cannot be read; re-export or re-download it.", code="pdf_corrupt"
        ) from None
    if doc.needs_pass:
        doc.close()
        raise PDFError("The PDF is password-protected; remove the password and upload it again.", code="pdf_encrypted")
    if doc.page_count == 0:
        doc.close()
        raise PDFError("The PDF has no pages.", code="pdf_empty")
    if max_pages and doc.page_count > max_pages:
        pages = doc.page_count
        doc.close()
        raise PDFError(
            f"The PDF has {pages:,} pages; the limit is {max_pages:,} (the MAX_PAGES setting). Split it, "
            "or raise the limit.",
            code="pdf_too_long",
            status=413,
        )
    return doc


def parse_pdf(data: bytes, on_page: Callable[[int, int], object] | None = None) -> ParsedPDF:
    """Extract every page's text and the bibliographic metadata; on_page(done, total) after each page."""
    doc = open_pdf(data)
    try:
        try:
            pages, scanned = page_texts(doc, on_page)
        except Exception as e:
            if out_of_memory(e):
                raise  # the reader's memory limit, not a damaged page: parser.py says pdf_too_complex
            raise PDFError("A page of the PDF is damaged and cannot be read.", code="pdf_corrupt") from None
        if not any(p.strip() for p in pages):
            if tessdata() is None:
                raise PDFError(
                    "The PDF has no extractable text (probably a scan), and Tesseract, which reads scans, "
                    "is not installed: install it (apt install tesseract-ocr, brew install tesseract) and "
                    "upload the PDF again, or run `ocrmypdf in.pdf out.pdf` and upload the result.",
                    code="pdf_no_text",
                )
            raise PDFError("The PDF has no text that could be read, not even by OCR.", code="pdf_no_text")
        first = "\n".join(b[4] for b in visible_blocks(doc[0], pymupdf.TEXTFLAGS_TEXT) if b[6] == 0)
        title, authors, year, listed = _metadata(doc, first or pages[0], pages)  # header: "Journal of X (2023)"
        return ParsedPDF(pages, title, authors, year, scanned, listed)
    finally:
        doc.close()


def _metadata(
    doc: pymupdf.Document, first_page_text: str, pages: Sequence[str]
) -> tuple[str, list[str], int | None, bool]:
    meta = doc.metadata or {}
    lines = _first_lines(doc[0])
    size = max((line[1] for line in lines), default=0.0)
    start = next((i for i, line in enumerate(lines) if line[1] == size), 0)
    end = next((i for i in range(start, len(lines)) if lines[i][1] != size), len(lines))
    largest = " ".join(text for text, _ in lines[start:end])  # a title set over two lines is one title
    title = (meta.get("title") or "").strip() or largest
    author = (meta.get("author") or "").strip()
    listed = _names(author)  # the file's own list; the lines under the title may hold only its first row of names
    authors = listed or _names_under(lines[end : end + 3])
    created = meta.get("creationDate") or ""
    # A year past the file's date is a plan ("Vision 2030") or a typo; a file dated before the works it cites has a
    # made-up date (reproducible builds stamp 1980) and is no witness
    cap = date.today().year + 1
    made = _created_year(created)
    cited = _cited_years(pages)  # read once: every page's citations
    if made and made + 1 < _newest_cited(cited, cap):
        made, created = None, ""
    latest = (made or date.today().year) + 1
    year = _year(first_page_text, created, authors, _newest_cited(cited, latest), latest)
    return title[:300], authors, year, bool(listed)


def _created_year(created: str) -> int | None:
    made = _YEAR.fullmatch(created[2:6]) if created.startswith("D:") else None  # "D:20230927…"
    return int(made.group(1)) if made else None


def _cited_years(pages: Sequence[str]) -> list[int]:
    """The years of the works the document cites, by a name that is no month ("(December 2019)" is a date)."""
    return [c.year for page in pages for c in find_citations(page) if c.author.lower() not in _MONTHS]


def _newest_cited(years: Sequence[int], latest: int = _LATEST) -> int:
    """The newest of these cited years up to latest (0 if none): a paper is not older than what it cites, give or
    take a forthcoming one."""
    return max((y for y in years if y <= latest), default=0)


# "This vignette is a (slightly modified) version of Zeileis and Grothendieck (2005), published in …": when the names
# cited are the document's own authors, the article cited is the document itself, and page 1's other years (a
# package version's date) are not its year
# An "extended" or "revised" version is a later paper than the one it cites: its own year stands.
_VERSION_OF = re.compile(
    r"(?<!extended )(?<!expanded )(?<!revised )(?<!longer )(?<!full )\bversion of\s+([^()]{2,80}?)\s*[(,]\s*"
    r"(19[5-9]\d|20[0-4]\d)[a-z]?\b",  # "(2008a)": one of two papers of that year
    re.IGNORECASE,
)


def _names(text: str) -> list[str]:
    """Person names in an author list ("Ann Fisher¹, Bo Lind* and Cy Moss"), or [] if it is not one."""
    parts = [re.sub(r"[\d*†‡§¹²³⁰-⁹,]+$", "", p.strip()).strip() for p in re.split(r";|,|\band\b|&", text)]
    names = [p for p in parts if p]
    return names if names and all(_NAME.fullmatch(n) for n in names) else []


def _names_under(lines: list[tuple[str, float]]) -> list[str]:
    """The author list of a paper: the first of the lines under its title that reads as names."""
    for text, _ in lines:
        if names := _names(text):
            return names
    return []


def _year(
    first_page: str, created: str, authors: Sequence[str] = (), cited: int = 0, latest: int = _LATEST
) -> int | None:
    """The paper's own year: its arXiv id, the year of the published article it is a version of, a dated line (©,
    published, proceedings…), the first year on page 1 that is not in a citation ("Smith et al. (2019)" names
    another paper), not older than the newest work it cites less a year (cited: page 1's edition or data set's year
    is not it; a forthcoming work may be a year newer) and not past latest, else the file's creation date if that is
    not older either."""
    floor = cited - 1
    arxiv = _ARXIV.search(first_page)
    if arxiv:
        return 2000 + int(arxiv.group(1))
    surnames = {name.split()[-1] for name in authors}
    for version in _VERSION_OF.finditer(first_page):  # a vignette that cites its own article: that year is its own
        if surnames & set(re.findall(r"[\w'’-]+", version.group(1))):
            return int(version.group(2))
    own = "\n".join(strip_citations(line) for line in first_page.splitlines())  # "(Smith et al., 2019)" is not it
    dated = _DATED.search(own)
    if dated:
        return int(dated.group(1))
    found = next((int(y) for y in _YEAR.findall(own) if floor <= int(y) <= latest), None)
    if found:
        return found
    made = _created_year(created)
    return made if made and made >= floor else None


def _first_lines(page: pymupdf.Page) -> list[tuple[str, float]]:
    """The page's lines (text, font size) in order, without hidden text; the one in the largest font is usually the
    title."""
    out = []
    blocks = page.get_text("dict").get("blocks", [])
    hidden = hidden_spans(page, blocks)
    for block in blocks:
        for line in block.get("lines", []):
            spans = [s for s in line.get("spans", []) if id(s) not in hidden]
            text = "".join(s["text"] for s in spans).strip()
            if len(text) > 3:
                out.append((text, round(max((s["size"] for s in spans), default=0), 1)))
    return out
