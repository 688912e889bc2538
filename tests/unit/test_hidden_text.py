"""Hidden text is no evidence (issue #25): text a reader of the page never sees, such as a prompt injection drawn
invisible or white on white, is not indexed; a scan's invisible OCR layer and white text on a dark ground are."""

import pytest
from pdfs import (
    BRIDGE_PAGES,
    FAVA_PAGES,
    HIDDEN_CLEAR,
    HIDDEN_INVISIBLE,
    HIDDEN_OFF_PAGE,
    HIDDEN_TINY,
    HIDDEN_VISIBLE,
    HIDDEN_WHITE,
    SHOWN_WHITE_ON_BLACK,
    SHOWN_WHITE_ON_PICTURE,
    make_hidden_text_pdf,
    make_ocr_layer_scan,
)
from sourcecheck.embeddings import HashEmbedding
from sourcecheck.library import Library
from sourcecheck.pdf import parse_pdf

HIDDEN = [HIDDEN_INVISIBLE, HIDDEN_WHITE, HIDDEN_CLEAR, HIDDEN_TINY, HIDDEN_OFF_PAGE]


def flat(text):
    return " ".join(text.split())


@pytest.mark.parametrize("rotate", [0, 90])
def test_invisible_white_transparent_and_microscopic_text_is_not_read(tmp_path, rotate):
    parsed = parse_pdf(make_hidden_text_pdf(tmp_path / "hidden.pdf", rotate=rotate).read_bytes())
    text = flat(parsed.pages[0])
    assert HIDDEN_VISIBLE in text
    for sentence in HIDDEN:
        assert sentence not in text
    assert "Ignore all previous instructions" not in parsed.title  # nor does hidden text name the paper


@pytest.mark.parametrize("rotate", [0, 90])
def test_white_text_on_a_black_box_or_a_dark_picture_is_read(tmp_path, rotate):
    text = flat(parse_pdf(make_hidden_text_pdf(tmp_path / "hidden.pdf", rotate=rotate).read_bytes()).pages[0])
    assert SHOWN_WHITE_ON_BLACK in text and SHOWN_WHITE_ON_PICTURE in text


def test_the_invisible_ocr_layer_of_a_scan_is_read_without_tesseract(tmp_path, monkeypatch):
    import sourcecheck.layout

    monkeypatch.setattr(sourcecheck.layout, "tessdata", lambda: None)  # no OCR here: the file's own layer is read
    parsed = parse_pdf(make_ocr_layer_scan(tmp_path / "ocrd.pdf", BRIDGE_PAGES).read_bytes())
    assert parsed.ocr_pages == []
    assert "opened to traffic on May 27, 1937" in flat(parsed.pages[0])
    assert "painted International Orange" in flat(parsed.pages[1])


def test_a_long_ocr_layer_is_read_as_it_is_not_ocrd_again(tmp_path):
    pages = [FAVA_PAGES[0], BRIDGE_PAGES[0] + "\n\n" + BRIDGE_PAGES[1]]  # over TEXT_ON_A_SCAN characters each
    parsed = parse_pdf(make_ocr_layer_scan(tmp_path / "ocrd.pdf", pages).read_bytes())
    assert parsed.ocr_pages == []
    assert "taxonomy of six hallucination types" in flat(parsed.pages[0])
    assert "visible in fog" in flat(parsed.pages[1])


def test_older_pymupdf_without_span_alpha_finds_invisible_text_from_the_text_trace(tmp_path):
    import pymupdf
    from sourcecheck.layout import FLAGS, hidden_spans

    def hidden_text(path):
        page = pymupdf.open(path)[0]
        blocks = page.get_text("dict", flags=FLAGS)["blocks"]
        for b in blocks:
            for line in b["lines"]:
                for span in line["spans"]:
                    del span["alpha"]  # as an older PyMuPDF gives them
        hidden = hidden_spans(page, blocks)
        return " ".join(s["text"] for b in blocks for line in b["lines"] for s in line["spans"] if id(s) in hidden)

    hidden = hidden_text(make_hidden_text_pdf(tmp_path / "hidden.pdf"))
    assert HIDDEN_INVISIBLE in hidden and HIDDEN_CLEAR in hidden and HIDDEN_VISIBLE not in hidden
    assert hidden_text(make_ocr_layer_scan(tmp_path / "ocrd.pdf", BRIDGE_PAGES)) == ""


def test_a_hidden_sentence_is_not_found_by_search(tmp_path):
    library = Library(None, HashEmbedding(), chunk_words=40)
    doc, _ = library.add_pdf(make_hidden_text_pdf(tmp_path / "hidden.pdf").read_bytes(), "hidden.pdf")
    assert library.ingest(doc["id"])["status"] == "ready"
    assert HIDDEN_VISIBLE in flat(library.search(HIDDEN_VISIBLE, k=1)[0].text)
    for sentence in (HIDDEN_INVISIBLE, HIDDEN_WHITE):
        for hit in library.search(sentence, k=5):
            assert sentence not in flat(hit.text)
