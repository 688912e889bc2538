"""PDF bytes → pages of text (PyMuPDF), plus title, authors and year."""

import re
from dataclasses import dataclass, field

import pymupdf

from sourcecheck.errors import PDFError
from sourcecheck.layout import page_texts, tessdata
from sourcecheck.text import strip_citations

_YEAR = re.compile(r"\b(19[5-9]\d|20[0-4]\d)\b")
_NAME = re.compile(r"[A-Z][\w'’.-]+(?:\s+(?:[A-Z]\.|[A-Z][\w'’-]+|van|von|de|der|da|del|di|le|la)){1,3}")
_ARXIV = re.compile(r"arXiv:\s?(\d\d)(?:0[1-9]|1[0-2])\.\d{4,5}")
_DATED = re.compile(r"(?:©|\(c\)|copyright|published|accepted|received|proceedings|conference|journal|vol\.|volume)"
                    r"[^\n]{0,80}?"
                    r"\b(19[5-9]\d|20[0-4]\d)\b", re.IGNORECASE)


@dataclass
class ParsedPDF:
    pages: list  # text of each page, in page order
    title: str = ""
    authors: list = field(default_factory=list)
    year: int | None = None
    ocr_pages: list = field(default_factory=list)  # pages (from 1) read from their picture by OCR


def open_pdf(data, max_pages=None):
    """Open PDF bytes, or raise PDFError saying what is wrong with them (max_pages: more pages are refused)."""
    if not data:
        raise PDFError("The file is empty.", code="pdf_empty")
    if b"%PDF-" not in data[:1024]:
        raise PDFError("The file is not a PDF.", code="not_a_pdf", status=415)
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception:
        raise PDFError("The PDF is damaged and cannot be read; re-export or re-download it.", code="pdf_corrupt") from None
    if doc.needs_pass:
        doc.close()
        raise PDFError("The PDF is password-protected; remove the password and upload it again.", code="pdf_encrypted")
    if doc.page_count == 0:
        doc.close()
        raise PDFError("The PDF has no pages.", code="pdf_empty")
    if max_pages and doc.page_count > max_pages:
        pages = doc.page_count
        doc.close()
        raise PDFError(f"The PDF has {pages:,} pages; the limit is {max_pages:,} (the MAX_PAGES setting). Split it, "
                       "or raise the limit.", code="pdf_too_long", status=413)
    return doc


def parse_pdf(data):
    """Extract every page's text and the bibliographic metadata."""
    doc = open_pdf(data)
    try:
        try:
            pages, scanned = page_texts(doc)
        except Exception as e:
            if isinstance(e, MemoryError) or "memory" in str(e).lower() or "alloc" in str(e).lower():
                raise  # the reader's memory limit, not a damaged page: parser.py says pdf_too_complex
            raise PDFError("A page of the PDF is damaged and cannot be read.", code="pdf_corrupt") from None
        if not any(p.strip() for p in pages):
            if tessdata() is None:
                raise PDFError("The PDF has no extractable text (probably a scan), and Tesseract, which reads scans, "
                               "is not installed: install it (apt install tesseract-ocr, brew install tesseract) and "
                               "upload the PDF again, or run `ocrmypdf in.pdf out.pdf` and upload the result.",
                               code="pdf_no_text")
            raise PDFError("The PDF has no text that could be read, not even by OCR.", code="pdf_no_text")
        title, authors, year = _metadata(doc, doc[0].get_text() or pages[0])  # with its header: "Journal of X (2023)"
        return ParsedPDF(pages=pages, title=title, authors=authors, year=year, ocr_pages=scanned)
    finally:
        doc.close()


def _metadata(doc, first_page_text):
    meta = doc.metadata or {}
    lines = _first_lines(doc[0])
    largest = max(lines, key=lambda line: line[1], default=("", 0.0))[0]
    title = (meta.get("title") or "").strip() or largest
    author = (meta.get("author") or "").strip()
    authors = _names(author) or _names_under(lines, largest)
    return title[:300], authors, _year(first_page_text, meta.get("creationDate") or "")


def _names(text):
    """Person names in an author list ("Ann Fisher¹, Bo Lind* and Cy Moss"), or [] if it is not one."""
    parts = [re.sub(r"[\d*†‡§¹²³⁰-⁹,]+$", "", p.strip()).strip() for p in re.split(r";|,|\band\b|&", text)]
    names = [p for p in parts if p]
    return names if names and all(_NAME.fullmatch(n) for n in names) else []


def _names_under(lines, title):
    """The author list of a paper: the first line under its title that reads as names."""
    at = next((i for i, (text, _) in enumerate(lines) if text == title), None)
    for text, _ in lines[at + 1:at + 4] if at is not None else []:
        if names := _names(text):
            return names
    return []


def _year(first_page, created):
    """The paper's own year: its arXiv id, a dated line (©, published, proceedings…), the first year on page 1
    that is not in a citation ("Smith et al. (2019)" names another paper), else the file's creation date."""
    arxiv = _ARXIV.search(first_page)
    if arxiv:
        return 2000 + int(arxiv.group(1))
    dated = _DATED.search(first_page)
    found = dated or _YEAR.search(strip_citations(first_page.replace("\n", " ")))
    if found:
        return int(found.group(1))
    made = _YEAR.fullmatch(created[2:6]) if created.startswith("D:") else None  # "D:20230927…"
    return int(made.group(1)) if made else None


def _first_lines(page):
    """The page's lines (text, font size) in order; the one in the largest font is usually the title."""
    out = []
    for block in page.get_text("dict").get("blocks", []):
        for line in block.get("lines", []):
            spans = line.get("spans", [])
            text = "".join(s["text"] for s in spans).strip()
            if len(text) > 3:
                out.append((text, round(max((s["size"] for s in spans), default=0), 1)))
    return out
