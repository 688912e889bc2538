"""PDF bytes → pages of text (PyMuPDF), plus title, authors and year."""

import re
from dataclasses import dataclass, field

import pymupdf

from sourcecheck.errors import PDFError

_YEAR = re.compile(r"\b(19[5-9]\d|20[0-4]\d)\b")
_TEXT_FLAGS = pymupdf.TEXTFLAGS_TEXT | pymupdf.TEXT_DEHYPHENATE


@dataclass
class ParsedPDF:
    pages: list  # text of each page, in page order
    title: str = ""
    authors: list = field(default_factory=list)
    year: int | None = None


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
        pages = []
        for page in doc:
            try:
                pages.append(page.get_text("text", flags=_TEXT_FLAGS))
            except Exception as e:
                if isinstance(e, MemoryError) or "memory" in str(e).lower() or "alloc" in str(e).lower():
                    raise  # the reader's memory limit, not a damaged page: parser.py says pdf_too_complex
                raise PDFError(
                    f"Page {page.number + 1} of the PDF is damaged and cannot be read.", code="pdf_corrupt"
                ) from None
        if not any(p.strip() for p in pages):
            raise PDFError(
                "The PDF has no extractable text (probably a scan); run OCR on it first, "
                "for example with `ocrmypdf in.pdf out.pdf`, and upload the result.",
                code="pdf_no_text",
            )
        title, authors, year = _metadata(doc, pages[0])
        return ParsedPDF(pages=pages, title=title, authors=authors, year=year)
    finally:
        doc.close()


def _metadata(doc, first_page_text):
    meta = doc.metadata or {}
    title = (meta.get("title") or "").strip() or _largest_line(doc[0]) or ""
    author = (meta.get("author") or "").strip()
    authors = [a.strip() for a in re.split(r";|,| and ", author) if a.strip()]
    found = _YEAR.search(first_page_text) or _YEAR.search(meta.get("creationDate") or "")
    return title[:300], authors, int(found.group(1)) if found else None


def _largest_line(page):
    """The first-page line set in the largest font: usually a paper's title."""
    best, best_size = "", 0.0
    for block in page.get_text("dict").get("blocks", []):
        for line in block.get("lines", []):
            spans = line.get("spans", [])
            text = "".join(s["text"] for s in spans).strip()
            size = max((s["size"] for s in spans), default=0)
            if len(text) > 3 and size > best_size + 0.5:
                best, best_size = text, size
    return best
