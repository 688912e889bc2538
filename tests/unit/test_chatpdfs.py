"""The product-shaped set (tests/data/chatpdfs) stays valid: labels are exact substrings, quotes are in their
sources, values are where they are said to be, all six FAVA types are there, and fave-q3 is not used."""

import subprocess
import sys
from pathlib import Path

from sourcecheck.eval.product import paper_pdf, settles

HERE = Path(__file__).parents[1] / "data" / "chatpdfs"


def test_the_set_validates():
    run = subprocess.run([sys.executable, str(HERE / "validate.py"), str(HERE / "dev.jsonl"), str(HERE / "test.jsonl")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "sentences: 264" in run.stdout and "OK" in run.stdout


def test_a_paper_renders_to_two_pages_and_settling_is_judged_by_file_and_quote():
    import pymupdf

    source = "A title\n\nFirst finding is here. Second finding is there. Third one. Fourth one."
    doc = pymupdf.open(stream=paper_pdf(source, {"authors": ["A. Author"]}), filetype="pdf")
    assert doc.page_count == 2 and "A. Author" in doc[0].get_text() and "Fourth one" in doc[1].get_text()
    label = {"source_index": 1, "source_quote": "Second finding is there."}
    assert settles({"filename": "paper2.pdf", "quote": "Second finding is there."}, label) is True
    assert settles({"filename": "paper1.pdf", "quote": "Second finding is there."}, label) is False
    assert settles({"filename": "paper2.pdf", "quote": "Fourth one."}, label) is False
    assert settles({"filename": "paper2.pdf", "quote": "x"}, {"source_index": None}) is None
