"""The Markdown report of a check: what it says, the same from the CLI (Python) and the side panel (JS)."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from sourcecheck.report import markdown

ROOT = Path(__file__).resolve().parents[2]
RESULT = {
    "sentences": [
        {"index": 0, "text": "Great question!", "checkable": False},
        {"index": 1, "text": "FAVA was trained on 350k\ninstances.", "checkable": True},
        {"index": 2, "text": "The retriever is Contriever.", "checkable": True},
    ],
    "verdicts": [
        {
            "index": 1,
            "label": "contradicted",
            "p_supported": 0.125,
            "error_type": "entity",
            "critique": "The sentence says 350k; fava.pdf, page 2 says 35k.",
            "revised": "FAVA was trained on 35k instances.",
            "evidence": [
                {
                    "filename": "fava.pdf",
                    "document_id": "d1",
                    "page": 2,
                    "stance": "refutes",
                    "quote": "we generate 35k\ntraining instances",
                }
            ],
        },
        {
            "index": 2,
            "label": "supported",
            "p_supported": 0.995,
            "error_type": None,
            "critique": "Supported by fava.pdf.",
            "cited": [
                {"text": "Izacard et al. (2022)", "document_id": None},
                {"text": "Mishra (2024)", "document_id": "d1"},
                {
                    "text": "Mishra and Kleiber (2024)",
                    "document_id": "d1",
                    "authors": ["Abhika Mishra", "Akari Asai"],
                    "not_authors": ["Kleiber"],
                },
            ],
            "revised": None,
            "evidence": [
                {
                    "filename": "fava.pdf",
                    "document_id": "d1",
                    "page": 3,
                    "stance": "related",
                    "quote": "Contriever retrieves passages",
                }
            ],
        },
    ],
    "summary": {"p_all_supported": 0.004, "revised_text": "FAVA was trained on 35k instances."},
}
META = {"title": "Chat — answer", "url": "https://chat.example/c/1", "checked_at": "2026-11-23 21:50"}


def test_the_report_lists_each_sentence_with_label_probability_critique_revision_and_quotes():
    md = markdown(RESULT, **META)
    assert md.startswith("# sourcecheck report\n")
    assert "- Page: [Chat — answer](https://chat.example/c/1)" in md
    assert "- Result: 1 contradicted, 1 supported, 1 skipped\n" in md and "P(all supported)" not in md
    assert "## 1. Not a factual claim\n\n> Great question!" in md
    assert "## 2. Contradicted by your sources · P(supported) 13%\n\n> FAVA was trained on 350k instances." in md
    assert "- Error type: a wrong number or name" in md
    assert "- Suggested revision: FAVA was trained on 35k instances." in md
    assert "- Evidence, fava.pdf, p. 2 (refutes): “we generate 35k training instances”" in md
    assert "## 3. Supported by your sources · P(supported) >99%" in md
    assert "- Evidence, fava.pdf, p. 3: “Contriever retrieves passages”" in md
    assert "- Cites Izacard et al. (2022), which is not in your library." in md and "Mishra (2024)" not in md
    assert "- Cites Mishra and Kleiber (2024), but that paper is by Abhika Mishra and Akari Asai: Kleiber" in md
    assert md.rstrip().endswith("## Revised text\n\nFAVA was trained on 35k instances.")


@pytest.mark.skipif(not shutil.which("node"), reason="node is not installed")
def test_the_side_panel_writes_the_same_report():
    script = (
        "const r = require(process.argv[1]); const [res, meta] = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(r.markdown(res, meta));"
    )
    meta = {"title": META["title"], "url": META["url"], "checkedAt": META["checked_at"]}
    cancelled = {**RESULT, "verdicts": RESULT["verdicts"][:1], "summary": None}  # stopped before sentence 3
    odd = [  # citations of odd shapes: both reports say the same of them, neither fails
        {"text": "A and B (2020)", "document_id": "d1", "authors": ["Ann A", None], "not_authors": ["B", None]},
        {"text": "C and D (2021)", "document_id": "d1", "authors": "Cy C", "not_authors": "D"},
        {"document_id": None},
        "not an entry",
    ]
    strange = {**RESULT, "verdicts": [{**v, "cited": odd} for v in RESULT["verdicts"]]}
    for result in (RESULT, {**RESULT, "summary": None}, {**RESULT, "verdicts": []}, cancelled, strange):
        js = subprocess.run(
            ["node", "-e", script, str(ROOT / "extension/lib/report.js")],
            input=json.dumps([result, meta]),
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert js == markdown(result, **META)


def test_the_cli_prints_the_report(settings, monkeypatch, capsys, bridge_pdf):
    from sourcecheck.cli import main

    for name, value in settings.items():
        monkeypatch.setenv(f"SOURCECHECK_{name}", str(value))
    assert main(["ingest", str(bridge_pdf)]) == 0
    capsys.readouterr()
    assert (
        main(["check", "--format", "markdown", "The Golden Gate Bridge opened in 1937. It was painted by robots."]) == 0
    )
    md = capsys.readouterr().out
    assert md.startswith("# sourcecheck report") and md.count("\n## ") == 2
    assert "> The Golden Gate Bridge opened in 1937." in md and "bridge.pdf, p. " in md


def test_a_cancelled_check_says_which_sentences_were_not_checked():
    md = markdown({**RESULT, "verdicts": RESULT["verdicts"][:1], "summary": None})
    assert "- Result: 1 contradicted, 1 skipped, 1 not checked" in md
    assert "## 3. Not checked (the check was stopped first)" in md and "## 1. Not a factual claim" in md


def test_a_quote_in_quotation_marks_is_quoted_once_and_a_critique_ends_with_one_stop():
    from sourcecheck.judging.cards import closed, in_quotes

    assert (
        in_quotes("“Diagnostic Checking in Regression Relationships”")
        == "“Diagnostic Checking in Regression Relationships”"
    )
    assert in_quotes(' "Tests for 76 series." ') == "“Tests for 76 series.”"
    assert in_quotes("the authors' data") == "“the authors' data”"  # an apostrophe is no quotation mark
    assert closed("page 3 says 158: “… is 158.”") == "page 3 says 158: “… is 158.”"
    assert closed("page 3 says 158: “158 in all”") == "page 3 says 158: “158 in all”."
