"""The `sourcecheck` command (cli.py): each command run in-process on a temporary index with the fake judge, and
the table `check` prints."""

import io
import json
import logging
import re
import shutil
import signal
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from pdfs import make_pdf
from sourcecheck.cli import SERVER_THREADS, main, pdf_files, print_table
from sourcecheck.config import load_settings
from sourcecheck.llm import catalog
from sourcecheck.serve import server
from sourcecheck.serve.security import Guard
from sourcecheck.serve.services import Services
from support import TOKEN

CODE = re.compile(r"Pairing code: (\d{3}-\d{3})")


@pytest.fixture
def env(settings, tmp_path, monkeypatch):
    """The test's settings as the SOURCECHECK_* variables the command reads, with a models folder of its own."""
    for name, value in {**settings, "MODELS_DIR": str(tmp_path / "models")}.items():
        monkeypatch.setenv(f"SOURCECHECK_{name}", str(value))
    return load_settings()


def test_the_cli_json_form_fails_in_the_one_shape(settings, monkeypatch, capsys):
    for name, value in settings.items():
        monkeypatch.setenv(f"SOURCECHECK_{name}", str(value))
    assert main(["check", "--json", "The bridge is orange."]) == 1
    body = json.loads(capsys.readouterr().out)
    assert body == {"ok": False, "status": 409, "error": {"code": "empty_library", "message": body["error"]["message"]}}


def test_models_lists_every_entry_with_where_it_runs_its_state_and_a_star(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SOURCECHECK_MODELS_DIR", str(tmp_path))
    monkeypatch.setenv("SOURCECHECK_MODEL", "bespoke-minicheck")
    (tmp_path / "qwen2.5-3b-instruct-q4_k_m.gguf").write_bytes(b"short")
    assert main(["models"]) == 0
    lines = {
        line.split()[1] if line.startswith("*") else line.split()[0]: line
        for line in capsys.readouterr().out.splitlines()
    }
    assert set(lines) == {e["name"] for e in catalog.catalog()}
    assert lines["bespoke-minicheck"].startswith("* ") and "served by Ollama" in lines["bespoke-minicheck"]
    assert "Ollama / OpenAI API" in lines["bespoke-minicheck"] and "minicheck" in lines["bespoke-minicheck"].split()
    assert "corrupt (sourcecheck models pull qwen2.5-3b-instruct-q4_k_m)" in lines["qwen2.5-3b-instruct-q4_k_m"]
    assert "missing (sourcecheck models install)" in lines["qwen2.5-coder-1.5b-instruct-q4_k_m"]
    assert "local GGUF" in lines["qwen2.5-7b-instruct-q4_k_m"] and "4.68 GB" in lines["qwen2.5-7b-instruct-q4_k_m"]
    assert sum(line.startswith("*") for line in lines.values()) == 1


def test_pdf_files_are_the_files_named_and_every_pdf_under_a_folder_sorted(tmp_path):
    folder = tmp_path / "papers"
    (folder / "b" / "deep").mkdir(parents=True)
    for name in ("b/deep/z.PDF", "b/a.pdf", "a.pdf", "notes.txt", "b/deep/pdf"):
        (folder / name).write_bytes(b"%PDF-1.7")
    (folder / "folder.pdf").mkdir()  # a folder named like a PDF
    missing = tmp_path / "missing.pdf"  # kept, to be reported
    assert pdf_files([str(missing), str(folder)]) == [
        missing,
        folder / "a.pdf",
        folder / "b" / "a.pdf",
        folder / "b" / "deep" / "z.PDF",
    ]


def test_ingest_adds_each_pdf_once_says_why_others_failed_and_skips_them_next_time(
    env, tmp_path, fava_pdf, bridge_pdf, capsys
):
    folder = tmp_path / "papers"
    folder.mkdir()
    shutil.copy(fava_pdf, folder / "fava.pdf")
    shutil.copy(fava_pdf, folder / "fava copy.pdf")  # the same bytes twice: read once
    (folder / "notes.pdf").write_text("just text")  # refused at once
    make_pdf(folder / "scan.pdf", [""])  # refused while it is read: no text
    assert main(["ingest", str(folder), str(bridge_pdf), str(tmp_path / "missing.pdf")]) == 1
    out, err = capsys.readouterr()
    fava = re.search(r"^(d_\w+)  fava copy\.pdf  3 pages, \d+ chunks$", out, re.M).group(1)
    assert f"{fava}  fava.pdf  already in the library" in out.splitlines()
    assert re.search(r"^d_\w+  bridge\.pdf  2 pages, \d+ chunks$", out, re.M)
    assert f"{folder / 'notes.pdf'}: The file is not a PDF." in err.splitlines()
    assert "scan.pdf: The PDF has no text that could be read, not even by OCR." in err.splitlines()
    assert f"{tmp_path / 'missing.pdf'}: " in err
    assert main(["documents"]) == 0
    listed = [re.search(r" chunks  (.+?\.pdf)  ", line).group(1) for line in capsys.readouterr().out.splitlines()]
    assert listed == ["fava copy.pdf", "bridge.pdf"]  # what failed is not kept
    assert main(["ingest", str(folder / "fava.pdf"), str(bridge_pdf)]) == 0
    assert capsys.readouterr().out.count("already in the library") == 2


def test_ingest_with_nothing_named_says_what_to_name(env, capsys):
    assert main(["ingest"]) == 1
    assert (
        capsys.readouterr().err
        == "error (bad_request): Name PDFs or folders to add, or --zotero for a Zotero library.\n"
    )


def test_documents_lists_and_removes(env, bridge_pdf, capsys):
    assert main(["ingest", str(bridge_pdf)]) == 0
    doc_id = capsys.readouterr().out.split()[0]
    assert main(["documents", "list"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert re.match(rf"{doc_id}  ready\s+2 p\s+\d+ chunks  bridge\.pdf  The Golden Gate Bridge", line)
    assert main(["documents", "remove", doc_id]) == 0
    assert capsys.readouterr().out == f"removed {doc_id}\n"
    assert main(["documents"]) == 0 and capsys.readouterr().out == ""
    assert main(["documents", "remove", doc_id]) == 1
    assert capsys.readouterr().err.startswith("error (document_not_found): ")


def test_pair_prints_a_code_the_server_takes(env, capsys):
    assert main(["pair"]) == 0
    code = CODE.search(capsys.readouterr().out).group(1)
    assert Guard(env).pair(code) == TOKEN


def test_check_reads_standard_input_and_prints_a_line_a_sentence(env, bridge_pdf, monkeypatch, capsys):
    assert main(["ingest", str(bridge_pdf)]) == 0
    text = b"The bridge is painted International Orange. Its main span is 2,000 meters long. Caf\xe9 is nice."
    monkeypatch.setattr(sys, "stdin", SimpleNamespace(buffer=io.BytesIO(text)))  # not UTF-8: U+FFFD
    capsys.readouterr()
    assert main(["check", "-"]) == 0
    lines = capsys.readouterr().out.splitlines()
    marked = [(line.split()[0], line.split("   ")[-1]) for line in lines if re.match(r"  \w+ +\d\.\d\d   ", line)]
    assert marked == [
        ("supported", "The bridge is painted International Orange."),
        ("contradicted", "Its main span is 2,000 meters long."),
        ("unsupported", "Caf\ufffd is nice."),
    ]
    assert "revised: Its main span is 1,280 meters long." in [line.strip() for line in lines]
    assert lines[-2].startswith("1 supported, 1 unsupported, 1 contradicted; ")
    assert lines[-1].startswith("This judge is not calibrated")


def test_check_of_a_collection_that_is_not_there_fails_and_frees_the_index(env, capsys):
    assert main(["check", "--collection", "Chapter 9", "The bridge is orange."]) == 1
    assert capsys.readouterr().err.startswith("error (collection_not_found): No Zotero collection is named 'Chapter 9'")
    assert main(["documents"]) == 0  # the index folder is free for the next command


def test_the_table_shows_evidence_critique_and_revision_for_each_kind_of_mark(capsys):
    evidence = [{"filename": "bridge.pdf", "page": 1, "quote": "Its main span is 1,280 meters long."}]
    verdict = {"evidence": evidence, "critique": None, "error_type": None, "revised": None}
    result = {
        "sentences": [
            {"index": 0, "text": "Here is a summary:"},
            {"index": 1, "text": "The span is long."},
            {"index": 2, "text": "It is 2 km long."},
            {"index": 3, "text": "Its main span is 2,000 meters long."},
        ],
        "verdicts": [
            {**verdict, "index": 1, "label": "supported", "p_supported": 0.91},
            {**verdict, "index": 2, "label": "uncertain", "p_supported": 0.4, "critique": "Close, not the same."},
            {
                **verdict,
                "index": 3,
                "label": "contradicted",
                "p_supported": 0.05,
                "error_type": "entity",
                "critique": "Page 1 says 1,280.",
                "revised": "Its main span is 1,280 meters long.",
            },
        ],
        "summary": {
            "counts": {"supported": 1, "uncertain": 1, "unsupported": 0, "contradicted": 1},
            "elapsed_ms": 2540,
            "revised_text": "The span is long. Its main span is 1,280 meters long.",
        },
    }
    print_table(result)
    quote = " " * 22 + 'bridge.pdf p.1: "Its main span is 1,280 meters long."'
    assert capsys.readouterr().out.splitlines() == [
        "  skipped              Here is a summary:",
        "  supported     0.91   The span is long.",
        quote,
        "  uncertain     0.40   It is 2 km long.",
        quote,
        " " * 22 + "Close, not the same.",
        "  contradicted  0.05   Its main span is 2,000 meters long.",
        quote,
        " " * 22 + "entity: Page 1 says 1,280.",
        " " * 22 + "revised: Its main span is 1,280 meters long.",
        "1 supported, 1 uncertain, 1 contradicted; 2.5 s",
        "",
        "Revised text:",
        "The span is long. Its main span is 1,280 meters long.",
    ]
    print_table(
        {
            "sentences": [],
            "verdicts": [],
            "summary": {**result["summary"], "counts": {"supported": 0}, "calibrated": False, "revised_text": ""},
        }
    )
    assert capsys.readouterr().out.splitlines() == [
        "nothing checked; 2.5 s",
        "This judge is not calibrated: its grades use the default model's scale (`sourcecheck calibrate`).",
    ]


@pytest.mark.parametrize("action", ["install", "pull"])
def test_a_model_not_in_the_catalog_is_named_in_the_error(env, capsys, action):
    assert main(["models", action, "no-such-model"]) == 1
    assert capsys.readouterr().err == "error (model_missing): No model named 'no-such-model' in the catalog.\n"


def test_calibrate_fits_the_judge_s_scale_and_keeps_a_finer_one_unless_told(env, capsys):
    assert main(["calibrate", "--limit", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    (kept,) = (Path(env["MODELS_DIR"]) / "calibrations").glob("*.json")
    assert out[0].startswith("Calibrated fake:fake in ") and out[0].endswith(f": {kept}")
    assert [line.split()[0] for line in out[1:]] == ["relaxed", "balanced", "strict"]
    assert main(["models"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith(" is calibrated.")
    kept.write_text(json.dumps({**json.loads(kept.read_text()), "n": 10_000}))  # a finer one on record
    assert main(["calibrate", "--limit", "1"]) == 1
    assert capsys.readouterr().err.startswith("error (calibration_coarser): ")
    assert json.loads(kept.read_text())["n"] == 10_000
    assert main(["calibrate", "--limit", "1", "--replace"]) == 0
    assert json.loads(kept.read_text())["n"] < 10_000


def test_serve_prints_a_pairing_code_serves_and_closes_the_index_when_stopped(env, monkeypatch, capsys):
    built, handlers = [], {}

    class Server:
        def run(self):
            raise KeyboardInterrupt  # Ctrl-C

        def close(self):
            built.append("closed")

    def build_server(app, host, port, threads):
        built.append((host, port, threads))
        return Server()

    monkeypatch.setattr(server, "build_server", build_server)
    monkeypatch.setattr(signal, "signal", lambda signum, handler: handlers.setdefault(signum, handler))
    logger = logging.getLogger("sourcecheck")
    monkeypatch.setattr(logger, "handlers", [])  # the handler serve adds goes with the test
    level = logger.level
    try:
        assert main(["serve", "--port", "9123"]) == 0
    finally:
        logger.setLevel(level)
    out = capsys.readouterr().out
    assert built == [("127.0.0.1", 9123, SERVER_THREADS), "closed"]
    assert "Serving on http://127.0.0.1:9123\n" in out and out.endswith("Stopped.\n")
    assert Guard(env).pair(CODE.search(out).group(1)) == TOKEN
    with pytest.raises(KeyboardInterrupt):
        handlers[signal.SIGTERM](signal.SIGTERM, None)  # SIGTERM stops it as Ctrl-C does
    svc = Services(env)
    try:
        assert svc.library().list() == []  # the index folder was released
    finally:
        svc.close()
