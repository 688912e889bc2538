"""The PDF viewer finds the evidence quote as the backend read it and highlights all of it: across a word broken
over two lines, past TeX left in the page's text ("editsubscript", "\\mathcal{M}_{edit}"), and says in words when the
PDF has been removed from the library."""

import re
import urllib.parse

import pymupdf
import pytest
from browser_helpers import wait_until
from sourcecheck.pdf.layout import page_texts

pytestmark = pytest.mark.browser

FIRST_PAGE = "Editing factual errors\n\nAbstract. We study how an editor model corrects the factual errors of a model."
# Page 2: the sentence's 80th character is in "model|s", and "prediction" is broken over two lines (the shape that
# broke: the whole quote was not found, so its first 80 characters were highlighted).
FITTING = (
    "2 Method\n\nOn the entire held-out test set, the editor improves factuality by fitting models to the data "
    "and by predic-\ntion of the edits that each passage needs. The rest of this section describes the training data."
)


def write_fitting(path):
    doc = pymupdf.open()
    for text in (FIRST_PAGE, FITTING):
        doc.new_page(width=595, height=842).insert_textbox(
            pymupdf.Rect(56, 56, 539, 786), text, fontsize=11, fontname="helv"
        )
    doc.save(str(path))
    return path


def write_residue(path):
    """Page 2 has a formula as a PDF made from a web page keeps it: M with "edit" set small and low, the word
    "subscript" glued to it, and the formula's TeX, between the words of the sentence."""
    doc = pymupdf.open()
    doc.new_page(width=595, height=842).insert_textbox(
        pymupdf.Rect(56, 56, 539, 786), FIRST_PAGE, fontsize=11, fontname="helv"
    )
    page = doc.new_page(width=595, height=842)
    x, y = 56.0, 80.0
    for text, size, rise in [
        ("3 The editor M", 11, 0),
        ("edit", 7, 2),
        ("subscript", 7, 2),
        (" \\mathcal{M}_{edit} rewrites each passage that the", 11, 0),
    ]:
        page.insert_text((x, y + rise), text, fontsize=size, fontname="helv")
        x += pymupdf.get_text_length(text, fontname="helv", fontsize=size)
    page.insert_text(
        (56, y + 16), "retriever flags as holding an unverifiable statement.", fontsize=11, fontname="helv"
    )
    doc.save(str(path))
    return path


def backend_sentence(path, page, starts):
    """The sentence of a page that starts with `starts`, as the backend reads the PDF (its quotes are such text)."""
    text = " ".join(page_texts(pymupdf.open(str(path)))[0][page - 1].split())
    return re.search(re.escape(starts) + r".*?\.(?=\s|$)", text).group(0)


def open_viewer(ext, doc_id, page, quote):
    viewer = ext.ctx.new_page()
    viewer.goto(ext.url("viewer/index.html?" + urllib.parse.urlencode({"doc": doc_id, "page": page, "q": quote})))
    viewer.wait_for_selector("#status[data-found]", timeout=20000)
    return viewer


def highlighted(viewer):
    return viewer.evaluate(
        "() => { const h = CSS.highlights.get('sourcecheck-quote');"
        " return h ? [...h].map(r => r.toString()).join('') : null; }"
    )


def letters(text):
    return re.sub(r"[^a-z0-9]", "", text.lower())


@pytest.mark.parametrize(
    "write, starts",
    [(write_fitting, "On the entire held-out"), (write_residue, "The editor")],
    ids=["word-broken-over-lines", "tex-residue"],
)
def test_the_viewer_highlights_the_whole_quote(ext, backend, pdf_dir, write, starts):
    path = write(pdf_dir / f"{write.__name__}.pdf")
    doc = backend.wait_ready(backend.upload(path)["id"])
    quote = backend_sentence(path, 2, starts)
    viewer = open_viewer(ext, doc["id"], 2, quote)
    try:
        status = viewer.locator("#status")
        assert status.get_attribute("data-found") == "true", status.inner_text()
        assert status.get_attribute("data-page") == "2"
        shown = highlighted(viewer)
        # All of it, from its first letter to its last (the text layer's TeX may differ in the middle).
        assert shown.startswith(quote[:12]) and shown.endswith(quote[-24:]), (shown, quote)
        if "\\" not in quote:
            assert letters(shown) == letters(quote), (shown, quote)
    finally:
        backend.request("DELETE", f"/documents/{doc['id']}")


def test_a_quote_of_a_removed_pdf_says_so(ext, backend, pdf_dir):
    path = write_fitting(pdf_dir / "removed.pdf")
    doc = backend.wait_ready(backend.upload(path)["id"])
    backend.request("DELETE", f"/documents/{doc['id']}")
    quote = backend_sentence(path, 2, "On the entire held-out")
    viewer = ext.ctx.new_page()
    viewer.goto(ext.url("viewer/index.html?" + urllib.parse.urlencode({"doc": doc["id"], "page": 2, "q": quote})))
    error = viewer.wait_for_selector("#error:not([hidden])", timeout=20000)
    text = error.inner_text()
    assert "This PDF was removed from your library" in text, text
    assert "No document with id" not in text and "Try again" not in text, text
    wait_until(lambda: quote in viewer.inner_text("#status"), what="the quote shown")
