"""Real-world page layout through the real parser (PyMuPDF): two columns read in order, running headers and page
numbers dropped, ligatures and hyphenation joined, the reference list and acknowledgements kept out of the
evidence, and the paper's own year rather than a cited one's."""

import os

import pytest
from pdfs import PAPER_HEADER, make_pdf, make_two_column_pdf, write_boxes
from sourcecheck.library import Library
from sourcecheck.library.embeddings import HashEmbedding
from sourcecheck.pdf import parse_pdf

pytestmark = pytest.mark.skipif(
    not os.path.exists("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    reason="the test paper is set in DejaVu Sans (for its ligature)",
)


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
    from sourcecheck.check import CheckOptions, check_text, collect
    from sourcecheck.judging.judge import Judge
    from sourcecheck.llm.fake import FakeModel

    library = Library(None, HashEmbedding(), chunk_words=40)
    doc, _ = library.add_pdf(paper.read_bytes(), "otters.pdf")
    library.ingest(doc["id"])
    text = (
        "The second survey found 468 otters, an increase of 14 percent. "
        "Jones et al. (2020) showed that sea otters of Scotland declined to 90 animals. "
        "Fisher et al. (2023) counted 412 otters in the first survey."
    )
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
    from sourcecheck.check import CheckOptions, check_text, collect
    from sourcecheck.judging.judge import Judge
    from sourcecheck.llm.fake import FakeModel
    from sourcecheck.pdf.layout import tessdata

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
    result = collect(
        check_text(
            "The Golden Gate Bridge opened to traffic on May 27, 1937.",
            library,
            Judge(FakeModel()),
            options=CheckOptions(),
        )
    )
    verdict = result["verdicts"][0]
    assert verdict["label"] == "supported" and verdict["evidence"][0]["page"] == 1
    assert "May 27, 1937" in verdict["evidence"][0]["quote"]


BODY = "The otters were counted in spring from two boats along the northern shore of the bay."


def test_a_references_entry_in_the_contents_does_not_hide_the_body_and_an_appendix_is_kept(tmp_path):
    data = write_boxes(
        tmp_path / "report.pdf",
        [
            [
                ((50, 50, 545, 70), "Contents", 14),
                ((50, 80, 545, 95), "1 Introduction", 10),
                ((50, 110, 545, 125), "References", 10),
                ((50, 140, 545, 155), "Appendix A: Tables", 10),
            ],
            [((50, 50, 545, 300), BODY, 11)],
            [
                ((50, 50, 545, 70), "References", 12),
                ((50, 80, 545, 110), "Lee, K. (2018). Counting sea otters from the air. Marine Surveys 4, 1-9.", 10),
                ((50, 120, 545, 150), "Smith, J. et al. Otters of Scotland. Coastal Notes 2, pp. 3-9.", 10),
                (
                    (50, 170, 545, 300),
                    "A Proofs. The survey transects cover every kilometre of the shore exactly once.",
                    10,
                ),
            ],
        ],
    )
    contents, body, back = (flat(p) for p in parse_pdf(data).pages)
    assert BODY in body and "1 Introduction" in contents
    assert "Counting sea otters" not in back and "Otters of Scotland" not in back
    assert "The survey transects cover every kilometre" in back  # the appendix after the list is body again


def test_an_acknowledgements_heading_alone_drops_its_paragraph_only(tmp_path):
    data = write_boxes(
        tmp_path / "a.pdf",
        [
            [
                ((50, 50, 545, 100), BODY, 11),
                ((50, 120, 545, 135), "Acknowledgements", 12),
                ((50, 140, 545, 180), "We thank the harbour master for the boat.", 10),
                ((50, 200, 545, 260), "Conclusion. Counting by boat works on this coast.", 10),
            ]
        ],
    )
    text = flat(parse_pdf(data).pages[0])
    assert BODY in text and "Counting by boat works" in text and "harbour master" not in text


def test_a_stray_block_beside_one_column_stays_in_its_place(tmp_path):
    data = write_boxes(
        tmp_path / "eq.pdf",
        [
            [
                ((50, 50, 545, 100), BODY, 11),
                ((120, 110, 300, 125), "E = m c squared", 11),
                ((500, 110, 545, 125), "(1)", 11),
                ((50, 140, 545, 200), "Equation one gives the energy of each otter.", 11),
            ]
        ],
    )
    text = flat(parse_pdf(data).pages[0])
    assert text.index("(1)") < text.index("Equation one gives")


def test_a_rotated_page_is_read(tmp_path):
    data = write_boxes(tmp_path / "rot.pdf", [[((50, 50, 545, 100), BODY, 11)]], rotate=90)
    assert BODY in flat(parse_pdf(data).pages[0])


def test_a_scan_with_a_stamp_of_text_is_still_read_by_ocr(tmp_path):
    import pymupdf
    from pdfs import BRIDGE_PAGES, make_scan
    from sourcecheck.pdf.layout import tessdata

    if tessdata() is None:
        pytest.skip("Tesseract is not installed (scripts/setup installs it where it can)")
    doc = pymupdf.open(make_scan(tmp_path / "scan.pdf", BRIDGE_PAGES))
    for page in doc:  # what JSTOR and libraries stamp on every page of a scan
        page.insert_text((50, 830), "This content downloaded from 10.0.0.1 on Mon, 23 Nov 2026", fontsize=6)
    parsed = parse_pdf(doc.tobytes())
    assert parsed.ocr_pages == [1, 2] and "opened to traffic on May 27, 1937" in flat(parsed.pages[0])


def test_mathematics_debris_is_left_out_of_the_text(tmp_path):
    """LaTeXML's alternative text of a formula and a contents page's dot leaders (from a real PDF, through
    PyMuPDF), and TeX's private-use glyphs: none of it reaches the judge or a quote."""
    from sourcecheck.pdf.layout import _clean

    page = (
        "The edit distance start_POSTSUBSCRIPT italic_e italic_d end_POSTSUBSCRIPT is small.\n"
        "Introduction . . . . . . . . . . . 3\nResults .............. 7"
    )
    parsed = parse_pdf(make_pdf(tmp_path / "math.pdf", [page]).read_bytes())
    assert parsed.pages[0].split("\n") == ["The edit distance is small.", "Introduction 3", "Results 7"]
    assert _clean("g1(X1i)\uf8ee h(Yi)\uf8f0 holds") == "g1(X1i) h(Yi) holds"
    # a T1-encoded TeX font without a Unicode map: its dashes arrive as control codes
    assert _clean("the years 1991\x152001 \x16 and\x07 more") == "the years 1991–2001 — and more"


def test_an_entry_whose_authors_and_title_are_a_block_apart_from_its_journal_is_left_out(tmp_path):
    # strucchange's vignette: "D. W. K. Andrews. Tests for … unknown change" one block, "point. Econometrica, 61:
    # 821–856, 1993." the next; the first named no year, ended the list, and the rest of it was indexed as body
    data = write_boxes(
        tmp_path / "paper.pdf",
        [
            [
                ((50, 50, 545, 300), BODY, 11),
                ((50, 320, 545, 335), "References", 12),
                ((50, 340, 545, 355), "D. W. K. Andrews. Tests for parameter instability and structural change", 10),
                ((50, 356, 545, 371), "unknown change point. Econometrica, 61:821-856, 1993.", 10),
                ((50, 380, 545, 395), "A. Zeileis, F. Leisch, K. Hornik, and C. Kleiber. strucchange: An R", 10),
                ((50, 396, 545, 411), "for structural change. Journal of Statistical Software, 7(2):1-38, 2002.", 10),
                ((290, 700, 310, 712), "14", 10),  # the page's number, above the bottom band
            ],
            [
                ((50, 60, 545, 75), "R. L. Brown, J. Durbin, and J. M. Evans. Techniques for testing", 10),
                ((50, 76, 545, 91), "of regression relationships over time. JRSS B, 37:149-163, 1975.", 10),
                ((50, 100, 545, 115), "C.-S. J. Chu, K. Hornik, and C.-M. Kuan. The moving-estimates test.", 10),
                ((50, 116, 545, 131), "Econometric Theory, 11:669-720, 1995b.", 10),
                ((50, 430, 545, 445), "A Implementation details for p values", 12),
                ((50, 450, 545, 520), "The p values follow Zeileis (2000), computed from the boundaries.", 10),
            ],
        ],
    )
    page, after = (flat(p) for p in parse_pdf(data).pages)
    assert BODY in page
    assert "Andrews" not in page and "strucchange: An R package" not in page and "Econometrica" not in page
    assert "Brown" not in after and "JRSS" not in after  # the list goes on over the page's number
    assert "moving-estimates" not in after  # a title that ends its line: the entry opens on its authors
    assert "A Implementation details for p values" in after and "The p values follow Zeileis" in after


def test_an_appendix_right_after_the_references_is_kept(tmp_path):
    # a long heading that runs on, then a paragraph naming a year: no entry's head and tail
    data = write_boxes(
        tmp_path / "paper.pdf",
        [
            [
                ((50, 50, 545, 300), BODY, 11),
                ((50, 320, 545, 335), "References", 12),
                (
                    (50, 340, 545, 355),
                    "Andrews, D. W. K. (1993). Tests for parameter instability. Econometrica 61.",
                    10,
                ),
                ((50, 380, 545, 395), "Appendix A: Simulation results for the structural change tests", 12),
                ((50, 400, 545, 470), "We follow Andrews (1993) and simulate the tests on 1,000 series.", 10),
                ((50, 480, 545, 495), "A. Zeileis is a professor of statistics at the University of Innsbruck", 10),
                ((50, 500, 545, 530), "He has maintained the package since 2002 with his co-authors.", 10),
            ]
        ],
    )
    (page,) = (flat(p) for p in parse_pdf(data).pages)
    assert "Tests for parameter instability" not in page
    assert "Appendix A: Simulation results" in page and "We follow Andrews (1993)" in page
    assert "A. Zeileis is a professor" in page and "maintained the package since 2002" in page


def test_an_entry_whose_last_line_is_a_block_of_its_own_is_left_out(tmp_path):
    # the Journal of Statistical Software's style: the year in the first block, "Processes. Springer-Verlag, New
    # York." alone in the next, which named no year and ended the list
    data = write_boxes(
        tmp_path / "paper.pdf",
        [
            [
                ((50, 50, 545, 300), BODY, 11),
                ((50, 320, 545, 335), "References", 12),
                (
                    (50, 340, 545, 355),
                    "Andersen PK, Borgan O, Gill RD (1991). Statistical Models Based on Counting",
                    10,
                ),
                ((50, 356, 545, 371), "Processes. Springer-Verlag, New York.", 10),
                ((50, 380, 545, 395), "Barrodale I, Roberts F (1974). Solution of an Overdetermined System", 10),
                ((50, 396, 545, 411), "of Equations. Communications of the ACM.", 10),
                ((50, 430, 545, 445), "Appendix B.", 12),
                ((50, 450, 545, 520), "The survey transects cover every kilometre of the shore exactly once.", 10),
            ]
        ],
    )
    (page,) = (flat(p) for p in parse_pdf(data).pages)
    assert "Springer-Verlag" not in page and "Barrodale" not in page and "Communications of the ACM" not in page
    assert "Appendix B." in page and "The survey transects cover every kilometre" in page


def test_a_running_header_set_below_the_top_band_does_not_end_the_reference_list(tmp_path):
    """crq.pdf (quantreg): "Roger Koenker / University of Illinois / 25" sits lower than the band of running headers,
    and read as body text it ended the list on every page: the rest of the entries were indexed as evidence."""

    def header(n):
        return ((50, 70, 545, 110), f"Roger Koenker\nUniversity of Illinois\n{n}", 9)

    def entries(*names):
        return [
            (
                (50, 150 + 30 * i, 545, 165 + 30 * i),
                f"{name}, R. (19{70 + i}). A paper on quantile regression. Econometrica {40 + i}.",
                10,
            )
            for i, name in enumerate(names)
        ]

    data = write_boxes(
        tmp_path / "crq.pdf",
        [
            [header(23), ((50, 150, 545, 400), BODY, 11)],
            [header(24), ((50, 150, 545, 300), BODY, 11), ((50, 320, 545, 335), "References", 12)],
            [header(25), *entries("Bassett", "Hendricks", "Portnoy")],
            [header(26), *entries("Powell", "Ruppert", "Zhou")],
        ],
    )
    pages = [flat(p) for p in parse_pdf(data).pages]
    assert "northern shore of the bay" in pages[0] and "northern shore of the bay" in pages[1]
    for page in pages[2:]:
        assert "quantile regression" not in page and "Econometrica" not in page, page
