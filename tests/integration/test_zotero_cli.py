"""`sourcecheck ingest --zotero DIR` and `sourcecheck check --collection NAME` as a user runs them: real CLI processes,
the PDF reader's process, a persistent Chroma, a Zotero data directory built from Zotero's own schema."""

import json
import subprocess

import pytest
from zotero_library import FAVA_TITLE, standard_library

from integration.conftest import PYTHON, sourcecheck_env

pytestmark = pytest.mark.integration


def run(args, env, home):
    env = {**env, "HOME": str(home)}  # ~/Zotero, the default data directory, is the test's
    return subprocess.run([PYTHON, "-m", "sourcecheck", *args], env=env, capture_output=True, text=True, timeout=300)


def test_ingest_zotero_then_again_then_check_a_collection(index_dir, tmp_path):
    env = sourcecheck_env(index_dir, BACKEND="fake", EMBEDDINGS="hash")
    home = tmp_path / "home"
    missing = run(["ingest", "--zotero"], env, home)
    assert missing.returncode == 1 and "error (zotero_not_found)" in missing.stderr

    z, ids = standard_library(home / "Zotero", tmp_path / "made")
    out = run(["ingest", "--zotero"], env, home)  # found on its own in ~/Zotero
    assert out.returncode == 0, out.stderr
    assert f"Zotero library {z.root}: 4 items, 5 attachments (3 PDFs)" in out.stdout
    assert FAVA_TITLE[:60] in out.stdout and "3 pages" in out.stdout
    assert "added 2, re-read 0 changed, removed 0, unchanged 0; 3 skipped (" in out.stdout
    assert (
        "not a PDF: 1" in out.stdout and "missing on disk: 1" in out.stdout and "a link to a web page: 1" in out.stdout
    )
    assert "moss.pdf" in out.stderr and "relink" in out.stderr  # which one, and what to do

    z.trash(ids["bridge"])
    again = run(["ingest", "--zotero", str(z.root)], env, home)
    assert again.returncode == 0, again.stderr
    assert "added 0, re-read 0 changed, removed 1, unchanged 1" in again.stdout and "chunks" not in again.stdout

    checked = run(
        ["check", "FAVA was trained on 35,074 training instances.", "--collection", "Thesis", "--json"], env, home
    )
    assert checked.returncode == 0, checked.stderr
    (verdict,) = json.loads(checked.stdout)["verdicts"]
    assert verdict["evidence"][0]["zotero"]["url"].startswith(
        f"zotero://open-pdf/library/items/{ids['fava_pdf']}?page="
    )
    unknown = run(["check", "Anything.", "--collection", "Chapter 9"], env, home)
    assert unknown.returncode == 1 and "error (collection_not_found)" in unknown.stderr
