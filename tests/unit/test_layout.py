"""Real-world page layout through the real parser (PyMuPDF): two columns read in order, running headers and page
numbers dropped, ligatures and hyphenation joined, the reference list and acknowledgements kept out of the
evidence, and the paper's own year rather than a cited one's."""

import os

import pytest

from pdfs import PAPER_HEADER, make_two_column_pdf
from sourcecheck.embeddings import HashEmbedding
from sourcecheck.library import Library
from sourcecheck.pdf import parse_pdf

pytestmark = pytest.mark.skipif(not os.path.exists("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
                                reason="the test paper is set in DejaVu Sans (for its ligature)")


@pytest.fixture
def paper(tmp_path):
    return make_two_column_pdf(tmp_path / "otters.pdf")


def flat(text):
    return " ".join(text.split())


def test_two_columns_read_in_order_without_headers_page_numbers_or_references(paper):
    parsed = parse_pdf(paper.read_bytes())
    one, two, three = (flat(p) for p in parsed.pages)
    # the left column, then the right one
    assert one.index("412 otters along 60 kilometres") < one.index("Earlier counts by Smith et al.")
    assert two.index("recorded with its mother") < two.index("The second survey found 468 otters")
    assert "The first survey" in one and "ﬁ" not in one  # the ligature is two letters
    assert "aerial photographs taken at low tide" in two  # the hyphenated word is whole
    for page in (one, two, three):
        assert PAPER_HEADER not in page and not page.rstrip().endswith((" 1", " 2", " 3"))
    assert "harbour master" not in three and "Counting sea otters from the air" not in three
    assert "declined to 90 animals" not in three
    assert parsed.year == 2023  # page 1 cites 2019 and 2018; the header says 2023
    assert parsed.title == "Otters of the Northern Coast" and parsed.authors == ["Ann Fisher", "Bo Lind", "Cy Moss"]


def test_the_reference_list_is_not_evidence_and_passages_keep_their_page(paper):
    library = Library(None, HashEmbedding(), chunk_words=40)
    doc, _ = library.add_pdf(paper.read_bytes(), "otters.pdf")
    assert library.ingest(doc["id"])["status"] == "ready"
    hits = library.search("The second survey found 468 otters, an increase of 14 percent.", k=3)
    assert hits[0].page == 2 and "468 otters" in hits[0].text
    # a sentence only a reference entry matches finds no reference entry
    for hit in library.search("Sea otters of Scotland declined to 90 animals", k=5):
        assert "declined to 90 animals" not in hit.text and "Coastal Notes" not in hit.text


def test_a_check_against_the_paper_cites_a_body_passage_on_the_right_page_and_names_a_missing_citation(paper):
    from sourcecheck.check import CheckOptions, collect, check_text
    from sourcecheck.judge import Judge
    from sourcecheck.llm.fake import FakeModel

    library = Library(None, HashEmbedding(), chunk_words=40)
    doc, _ = library.add_pdf(paper.read_bytes(), "otters.pdf")
    library.ingest(doc["id"])
    text = ("The second survey found 468 otters, an increase of 14 percent. "
            "Jones et al. (2020) showed that sea otters of Scotland declined to 90 animals. "
            "Fisher et al. (2023) counted 412 otters in the first survey.")
    result = collect(check_text(text, library, Judge(FakeModel()), options=CheckOptions()))
    found, cited, own = result["verdicts"]
    # the paper is matched by the author and year read from its first page (the file names neither)
    assert own["cited"] == [{"text": "Fisher et al. (2023)", "document_id": doc["id"]}] and own["label"] == "supported"
    assert found["label"] == "supported" and found["evidence"][0]["page"] == 2
    assert "468 otters" in found["evidence"][0]["quote"]
    # only the reference list says it: not supported, and the cited paper is named as missing from the library
    assert cited["label"] != "supported"
    assert all("declined to 90" not in e["quote"] for e in cited["evidence"])
    assert cited["cited"] == [{"text": "Jones et al. (2020)", "document_id": None}]



def test_a_scan_is_read_by_ocr_and_a_check_is_supported_by_its_quote(tmp_path):
    from pdfs import BRIDGE_PAGES, make_scan
    from sourcecheck.check import CheckOptions, collect, check_text
    from sourcecheck.judge import Judge
    from sourcecheck.layout import tessdata
    from sourcecheck.llm.fake import FakeModel

    if tessdata() is None:
        pytest.skip("Tesseract is not installed (scripts/setup installs it where it can)")
    data = make_scan(tmp_path / "scan.pdf", BRIDGE_PAGES).read_bytes()
    parsed = parse_pdf(data)
    assert parsed.ocr_pages == [1, 2]
    assert "opened to traffic on May 27, 1937" in flat(parsed.pages[0])
    assert "International Orange" in flat(parsed.pages[1])
    library = Library(None, HashEmbedding(), chunk_words=40)
    doc, _ = library.add_pdf(data, "scan.pdf")
    assert library.ingest(doc["id"])["status"] == "ready"
    result = collect(check_text("The Golden Gate Bridge opened to traffic on May 27, 1937.", library,
                                Judge(FakeModel()), options=CheckOptions()))
    verdict = result["verdicts"][0]
    assert verdict["label"] == "supported" and verdict["evidence"][0]["page"] == 1
    assert "May 27, 1937" in verdict["evidence"][0]["quote"]
