import pymupdf
import pytest
from pdfs import BRIDGE_PAGES, FAVA_PAGES, make_pdf, write_boxes
from sourcecheck import pdf
from sourcecheck.errors import PDFError
from sourcecheck.pdf import _names, _year, open_pdf, parse_pdf

BODY = "The otters were counted in spring from two boats along the northern shore of the bay."
TITLE = "Counting Sea Otters by Boat and by Air: a Comparison\nof Two Survey Methods"


def paper(path):
    """Page 1 of a paper: its title over two lines in a large font, its authors under it, a paragraph."""
    authors = "Ann Fisher and Bo Lind"
    return write_boxes(
        path, [[((50, 50, 545, 100), TITLE, 16), ((50, 110, 545, 125), authors, 10), ((50, 140, 545, 260), BODY, 10)]]
    )


def test_a_title_over_two_lines_is_one_title_and_the_authors_come_from_under_it(tmp_path):
    parsed = parse_pdf(paper(tmp_path / "t.pdf"))
    assert parsed.title == "Counting Sea Otters by Boat and by Air: a Comparison of Two Survey Methods"
    assert parsed.authors == ["Ann Fisher", "Bo Lind"]


@pytest.mark.parametrize(
    "first_page, year",
    [
        ("As published by Smith et al. (2019), otters swim.\nOur counts", None),
        ("We build on arXiv:1706.03762 and (Lee, 2018).\nProceedings of the Coast Conference 2023", 2023),
        ("arXiv:2310.10627v1 [cs.CL] 16 Oct 2023\nAs Smith (2019) showed", 2023),
        ("© 2022 Elsevier Ltd.\nSmith et al. (2019) found", 2022),
    ],
)
def test_the_year_is_the_papers_own(first_page, year):
    assert _year(first_page, "") == year


VIGNETTE = (
    "Counting Sea Otters\nAnn Fisher, Bo Lind\nThis vignette is a (slightly modified) version of Fisher and\n"
    "Lind (2005), published in the Journal of Coastal Statistics.\nKeywords: otters. R package version 1.8-0, 2017."
)


def test_a_vignette_that_is_a_version_of_its_own_article_has_the_articles_year():
    """Issue 36: a vignette's year was its package's (2017), not its article's (2005), which page 1 names only as a
    citation of the vignette's own authors; another's work a paper is a version of keeps its own year out."""
    assert _year(VIGNETTE, "", ["Ann Fisher", "Bo Lind"]) == 2005
    assert _year(VIGNETTE, "", ["Cy Moss"]) == 2017  # not its own authors: another paper, whose year is not this one's
    assert _year(VIGNETTE.replace("(2005)", "(2005a)"), "", ["Ann Fisher"]) == 2005  # one of two that year
    assert _year("We use a version of Adam (Kingma and Ba, 2015).\n© 2021 Elsevier", "", ["Ann Fisher"]) == 2021
    extended = "Published 2021. This article is an extended version of Fisher and Lind (2019), at ICML."
    assert _year(extended, "", ["Ann Fisher", "Bo Lind"]) == 2021  # the conference paper it extends is older


def test_a_year_older_than_a_work_the_paper_cites_is_not_its_own(tmp_path):
    """Issue 50 item 6: an R News article with no dated line was listed under a year its first page names in passing
    (an edition, a data set), older than works it cites; a paper is not older than what it cites."""
    first = "Checking Otter Counts\nAnn Fisher and Bo Lind\nThe counts follow the survey manual of 1994 closely."
    later = "As Moss (1999) and Lind and Fisher (2001) showed, boats count fewer otters than planes do."
    data = write_boxes(tmp_path / "news.pdf", [[((50, 50, 545, 200), first, 10)], [((50, 50, 545, 200), later, 10)]])
    doc = pymupdf.open(stream=data, filetype="pdf")
    doc.set_metadata({"creationDate": "D:20020315120000"})
    assert parse_pdf(doc.tobytes()).year == 2002  # not 1994; the file's date is the next witness
    cited_later = [[((50, 50, 545, 200), first.replace("1994", "2003"), 10)], [((50, 50, 545, 200), later, 10)]]
    assert parse_pdf(write_boxes(tmp_path / "ok.pdf", cited_later)).year == 2003
    # a forthcoming work a year newer is no bound; a plan's year past the file's date ("Vision 2030") is none either
    plans = "As Roe (2020) and the Agenda (2030) suggest, boats count fewer otters."
    pages = [[((50, 50, 545, 200), first.replace("1994", "2019"), 10)], [((50, 50, 545, 200), plans, 10)]]
    doc = pymupdf.open(stream=write_boxes(tmp_path / "plans.pdf", pages), filetype="pdf")
    doc.set_metadata({"creationDate": "D:20191201120000"})
    assert parse_pdf(doc.tobytes()).year == 2019
    doc.set_metadata({"creationDate": "D:19800101000000"})  # a reproducible build's stamp: older than what it cites
    assert parse_pdf(doc.tobytes()).year == 2019


@pytest.mark.parametrize(
    "data, code, status",
    [
        (b"", "pdf_empty", 422),
        (b"hello, not a pdf", "not_a_pdf", 415),
        (b" " * 1024 + b"%PDF-1.7\n", "not_a_pdf", 415),  # the header must be in the first KB
        (b"%PDF-1.7\n" + b"\x00garbage" * 50, "pdf_corrupt", 422),
        (
            b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
            b"trailer<</Root 1 0 R>>\n%%EOF",
            "pdf_empty",
            422,
        ),
    ],
    ids=["empty", "text", "late header", "garbage", "no pages"],
)
def test_bytes_that_are_no_usable_pdf_are_refused_in_the_error_shape(data, code, status):
    with pytest.raises(PDFError) as err:
        open_pdf(data)
    assert (err.value.code, err.value.status) == (code, status) and err.value.message.endswith(".")


def test_an_encrypted_pdf_is_refused_and_one_too_long_names_the_limit(tmp_path):
    with pytest.raises(PDFError) as err:
        open_pdf(make_pdf(tmp_path / "locked.pdf", BRIDGE_PAGES, encrypt=True).read_bytes())
    assert err.value.code == "pdf_encrypted" and "password" in err.value.message
    data = make_pdf(tmp_path / "fava.pdf", FAVA_PAGES).read_bytes()
    with pytest.raises(PDFError) as err:
        open_pdf(data, max_pages=2)
    assert (err.value.code, err.value.status) == ("pdf_too_long", 413)
    assert "has 3 pages; the limit is 2 (the MAX_PAGES setting)" in err.value.message
    doc = open_pdf(data, max_pages=3)
    assert doc.page_count == 3
    doc.close()


def test_parse_reports_each_page_and_returns_its_text_in_order(tmp_path):
    done = []
    parsed = parse_pdf(make_pdf(tmp_path / "f.pdf", FAVA_PAGES).read_bytes(), on_page=lambda *a: done.append(a))
    assert done == [(1, 3), (2, 3), (3, 3)]
    assert [" ".join(p.split()) for p in parsed.pages] == [" ".join(p.split()) for p in FAVA_PAGES]
    assert parsed.ocr_pages == []


@pytest.mark.parametrize(
    "tesseract, says",
    [(None, "Tesseract, which reads scans, is not installed"), ("/tessdata", "not even by OCR")],
)
def test_a_pdf_without_text_says_whether_ocr_could_have_read_it(monkeypatch, tesseract, says):
    monkeypatch.setattr(pdf, "tessdata", lambda: tesseract)
    blank = pymupdf.open()
    blank.new_page()
    with pytest.raises(PDFError) as err:
        parse_pdf(blank.tobytes())
    assert (err.value.code, err.value.status) == ("pdf_no_text", 422) and says in err.value.message


def test_a_damaged_page_is_pdf_corrupt_but_running_out_of_memory_is_not(tmp_path, monkeypatch):
    data = make_pdf(tmp_path / "b.pdf", BRIDGE_PAGES).read_bytes()

    def fail(error):
        def page_texts(doc, on_page):
            raise error

        return page_texts

    monkeypatch.setattr(pdf, "page_texts", fail(RuntimeError("syntax error in content stream")))
    with pytest.raises(PDFError) as err:
        parse_pdf(data)
    assert err.value.code == "pdf_corrupt"
    monkeypatch.setattr(pdf, "page_texts", fail(RuntimeError("malloc (1024 bytes) failed")))
    with pytest.raises(RuntimeError, match="malloc"):  # the reader's memory limit: parser.py says pdf_too_complex
        parse_pdf(data)


def test_the_file_s_own_title_and_authors_win_over_page_one_and_a_title_is_cut_at_300(tmp_path):
    doc = pymupdf.open(stream=paper(tmp_path / "p.pdf"), filetype="pdf")
    doc.set_metadata({"title": " Otters by Boat ", "author": "Cy Moss¹; Dee van der Berg*"})
    parsed = parse_pdf(doc.tobytes())
    assert parsed.title == "Otters by Boat" and parsed.authors == ["Cy Moss", "Dee van der Berg"]
    doc.set_metadata({"title": "T" * 400, "author": "jfisher@example.org"})  # not names: page 1's are read
    parsed = parse_pdf(doc.tobytes())
    assert parsed.title == "T" * 300 and parsed.authors == ["Ann Fisher", "Bo Lind"]


@pytest.mark.parametrize(
    "text, names",
    [
        ("Ann Fisher¹, Bo Lind* and Cy Moss²", ["Ann Fisher", "Bo Lind", "Cy Moss"]),
        ("Ann Fisher; Bo Lind & J. R. Moss", ["Ann Fisher", "Bo Lind", "J. R. Moss"]),
        ("Draft 3, final", []),
        ("Fisher", []),  # a surname alone is not read as a name
        ("", []),
    ],
)
def test_an_author_line_is_read_as_names_only_when_every_part_is_one(text, names):
    assert _names(text) == names


def test_without_a_year_on_page_one_the_file_s_creation_date_is_used_unless_older_than_a_citation():
    assert _year("Counting otters", "D:20190315120000") == 2019
    assert _year("Counting otters", "D:20190315120000", cited=2021) is None
    assert _year("Counting otters", "2019") is None and _year("Counting otters", "D:18900101") is None
    assert _year("Counting otters in 2003", "D:20190315120000") == 2003  # the page before the file


def test_a_cited_year_past_2049_is_a_typo_and_does_not_hide_the_papers_year(tmp_path):
    first = "Checking Otter Counts\nAnn Fisher and Bo Lind\nThe counts follow the survey manual of 2003."
    data = write_boxes(
        tmp_path / "typo.pdf", [[((50, 50, 545, 200), first, 10)], [((50, 50, 545, 200), "As Moss (2091) showed.", 10)]]
    )
    assert parse_pdf(data).year == 2003
