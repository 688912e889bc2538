"""The issue's 'done when': ingest two real PDFs with the CLI and check a text with the real default GGUF."""

import json
import subprocess

import pytest

from integration.conftest import PYTHON, sourcecheck_env

pytestmark = [pytest.mark.integration, pytest.mark.model]


def run(args, env, input=None):
    return subprocess.run(
        [PYTHON, "-m", "sourcecheck", *args], env=env, input=input, capture_output=True, text=True, timeout=600
    )


def test_cli_flags_a_wrong_number_and_passes_a_right_one(index_dir, fava_pdf, bridge_pdf, real_model_path):
    env = sourcecheck_env(index_dir)
    out = run(["ingest", str(fava_pdf), str(bridge_pdf)], env)
    assert out.returncode == 0, out.stderr
    assert "fava.pdf  3 pages" in out.stdout and "bridge.pdf  2 pages" in out.stdout

    text = (
        "The Golden Gate Bridge opened to traffic on May 27, 1937. "
        "FAVA was trained on 350,000 synthetic training instances."
    )
    out = run(["check", "--json", "-"], env, input=text)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    right, wrong = result["verdicts"]
    assert right["label"] == "supported" and right["p_supported"] >= 0.5
    assert right["evidence"][0]["filename"] == "bridge.pdf" and right["evidence"][0]["page"] == 1
    assert "May 27, 1937" in right["evidence"][0]["quote"]
    assert wrong["label"] in ("contradicted", "unsupported") and wrong["p_supported"] < 0.5
    assert wrong["evidence"][0]["filename"] == "fava.pdf" and wrong["evidence"][0]["page"] == 2
    assert "35,074" in wrong["evidence"][0]["quote"] and wrong["critique"]
    assert result["summary"]["p_all_supported"] < 0.5

    table = run(["check", text], env)
    assert table.returncode == 0 and "supported" in table.stdout and 'bridge.pdf p.1: "' in table.stdout


def test_bytes_that_are_not_utf8_are_checked_and_printed_on_a_strict_terminal(index_dir, bridge_pdf, real_model_path):
    env = sourcecheck_env(index_dir) | {"PYTHONIOENCODING": "utf-8:strict", "LC_ALL": "C.UTF-8"}
    assert run(["ingest", str(bridge_pdf)], env).returncode == 0
    text = b"The Golden Gate Bridge opened to traffic\xff on May 27, 1937."
    command = [PYTHON, "-m", "sourcecheck", "check"]
    piped = subprocess.run([*command, "--json", "-"], env=env, input=text, capture_output=True, timeout=600)
    assert piped.returncode == 0, piped.stderr.decode(errors="replace")
    result = json.loads(piped.stdout)
    assert result["sentences"][0]["text"] == text.decode(errors="replace") and len(result["verdicts"]) == 1
    argv = subprocess.run([*command, text], env=env, capture_output=True, timeout=600)  # a terminal's bytes
    assert argv.returncode == 0 and "\ufffd on May 27" in argv.stdout.decode(), argv.stderr.decode(errors="replace")


def test_revise_puts_the_sources_figure_in_place_and_keeps_the_texts_shape(index_dir, fava_pdf, real_model_path):
    """Revise all with the real model: one copy of the text, its paragraphs and list kept, the planted wrong
    figure replaced by the PDF's, the true sentences untouched."""
    env = sourcecheck_env(index_dir)
    assert run(["ingest", str(fava_pdf)], env).returncode == 0
    text = (
        "About the training data:\n\n"
        "- FAVA was trained on 350,000 synthetic training instances.\n"
        "- The editor model was fine-tuned from Llama2-Chat 7B on the synthetic data.\n\n"
        "That is all."
    )
    out = run(["check", "--json", "--revise", "-"], env, input=text)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["summary"]["revised_text"] == text.replace("350,000", "35,074")
    assert [s["checkable"] for s in result["sentences"]] == [False, True, True, False]  # "That is all." is no claim
    assert result["summary"]["unrevised"] == []


def test_cli_reports_bad_input(index_dir, tmp_path):
    env = sourcecheck_env(index_dir, BACKEND="fake", EMBEDDINGS="hash")
    not_pdf = tmp_path / "x.pdf"
    not_pdf.write_text("hello")
    out = run(["ingest", str(not_pdf), str(tmp_path / "missing.pdf")], env)
    assert out.returncode == 1 and "not a PDF" in out.stderr and "missing.pdf" in out.stderr
    out = run(["check", "The bridge is orange."], env)
    assert out.returncode == 1 and "error (empty_library)" in out.stderr
    out = run(["check", ""], env)
    assert out.returncode == 1 and "error (empty_text)" in out.stderr
