"""sourcecheck_eval/papers.py: the full-paper set's PDFs and the distractors', checked against their sha256 (nothing
fetched when they match)."""

import hashlib
import json

import pytest
from sourcecheck_eval import papers

DISTRACTORS = papers.ROOT / "tests" / "data" / "distractors" / "papers.json"


def test_pdfs_that_match_their_sha256_are_used_without_a_download(tmp_path, monkeypatch):
    dest = tmp_path / "papers"
    dest.mkdir()
    (dest / "a.pdf").write_bytes(b"%PDF-1.4 a")
    manifest = tmp_path / "papers.json"
    manifest.write_text(
        json.dumps(
            {
                "packages": [
                    {
                        "package": "r-cran-x",
                        "version": "1",
                        "half": "dev",
                        "pdfs": [{"file": "a.pdf", "sha256": hashlib.sha256(b"%PDF-1.4 a").hexdigest()}],
                    }
                ]
            }
        )
    )
    monkeypatch.setattr(papers.subprocess, "run", lambda *a, **k: pytest.fail("nothing to download"))
    assert papers.fetch(dest, manifest, log=lambda m: None) == [dest / "a.pdf"]


def test_the_committed_list_names_each_pdf_once_and_keeps_the_held_out_packages_out():
    listed = papers.manifest()["packages"]
    files = [p["file"] for pkg in listed for p in pkg["pdfs"]]
    assert len(files) == len(set(files)) and {pkg["half"] for pkg in listed} == {"dev", "test"}
    assert not {"r-cran-lme4", "r-cran-zoo", "r-cran-survival"} & {pkg["package"] for pkg in listed}


def test_the_distractor_list_has_fifty_pdfs_from_packages_of_neither_the_set_nor_the_kept_aside():
    from sourcecheck_eval.kept_aside import PACKAGES

    listed = papers.manifest(DISTRACTORS)["packages"]
    names = {pkg["package"] for pkg in listed}
    assert not names & PACKAGES and not names & {pkg["package"] for pkg in papers.manifest()["packages"]}
    files = [p["file"].lower() for pkg in listed for p in pkg["pdfs"]]
    theirs = {p["file"].lower() for pkg in papers.manifest()["packages"] for p in pkg["pdfs"]}
    assert len(files) >= 50 and len(files) == len(set(files)) and not set(files) & theirs  # one name, one PDF
    assert {pkg["half"] for pkg in listed} == {"distractor"} and all(pkg["version"] for pkg in listed)
    assert all(len(p["sha256"]) == 64 and int(p["sha256"], 16) >= 0 for pkg in listed for p in pkg["pdfs"])


def test_fetch_takes_the_list_it_is_given(tmp_path, monkeypatch):
    dest = tmp_path / "pdfs"
    dest.mkdir()
    (dest / "b.pdf").write_bytes(b"%PDF-1.4 b")
    listed = {"file": "b.pdf", "sha256": hashlib.sha256(b"%PDF-1.4 b").hexdigest()}
    manifest = tmp_path / "list.json"
    manifest.write_text(json.dumps({"packages": [{"package": "r-cran-y", "version": "1", "pdfs": [listed]}]}))
    monkeypatch.setattr(papers.subprocess, "run", lambda *a, **k: pytest.fail("the default list was fetched"))
    assert papers.main(["fetch", "--manifest", str(manifest), "--dest", str(dest)]) == 0
