"""The product-shaped set (tests/data/chatpdfs) stays valid: labels are exact substrings, quotes are in their
sources, values are where they are said to be, all six FAVA types are there, and fave-q3 is not used."""

import subprocess
import sys
from pathlib import Path

from sourcecheck_eval.product import paper_pdf, settles

HERE = Path(__file__).parents[1] / "data" / "chatpdfs"


def test_the_set_validates():
    run = subprocess.run(
        [sys.executable, str(HERE / "validate.py"), str(HERE / "dev.jsonl"), str(HERE / "test.jsonl")],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "sentences: 264" in run.stdout and "OK" in run.stdout


def test_a_paper_renders_to_two_pages_and_settling_is_judged_by_file_and_quote():
    import pymupdf

    source = "A title\n\nFirst finding is here. Second finding is there. Third one. Fourth one."
    doc = pymupdf.open(stream=paper_pdf(source, {"authors": ["A. Author"]}), filetype="pdf")
    assert doc.page_count == 2 and "A. Author" in doc[0].get_text() and "Fourth one" in doc[1].get_text()
    assert paper_pdf(source) == paper_pdf(source)  # the same bytes, so one document id for the same paper
    label = {"source_index": 1, "source_quote": "Second finding is there."}
    assert settles({"filename": "paper2.pdf", "quote": "Second finding is there."}, label) is True
    assert settles({"filename": "paper1.pdf", "quote": "Second finding is there."}, label) is False
    assert settles({"filename": "paper2.pdf", "quote": "Fourth one."}, label) is False
    assert settles({"filename": "paper2.pdf", "quote": "x"}, {"source_index": None}) is None
    same = ["T\n\nOther.", "T\n\nFirst. Second finding is there.", "T copy\n\nFirst. Second finding is there."]
    assert settles({"filename": "paper3.pdf", "quote": "Second finding is there."}, label, same) is True  # a copy


def test_cards_count_where_critiques_come_from_and_whether_revisions_fix_the_value():
    from sourcecheck.judging.cards import NOT_FOUND
    from sourcecheck_eval.product import cards

    def unit(y, critique, revised, conflict=False, values=(None, None)):
        return {
            "y": y,
            "conflict": conflict,
            "card": {
                "label": "unsupported",
                "error_type": "entity",
                "critique": critique,
                "revised": revised,
                "text": "s",
                "claim_value": values[0],
                "source_value": values[1],
            },
        }

    got = cards(
        [
            unit(
                0, "The sentence says 350k; a.pdf, page 2 says 35k", "FAVA used 35k instances.", True, ("350k", "35k")
            ),
            unit(0, "The excerpts say 7B.", "FAVA has 13B parameters.", False, ("13B", "7B")),
            unit(1, NOT_FOUND, "A needless change."),
            {"y": 1, "card": {"label": "supported", "critique": None, "revised": None}},
        ]
    )
    assert got == {
        "flagged": 3,
        "critique_from_conflict": 1,
        "critique_fallback": 1,
        "critique_by_model": 1,
        "revised": 3,
        "revised_true": 1,
        "revised_with_values": 2,
        "revised_fixes_value": 1,
    }
