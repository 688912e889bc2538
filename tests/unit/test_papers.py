"""sourcecheck_eval/papers.py: the full-paper set's PDFs, checked against their sha256 (nothing fetched when they
match)."""

import hashlib
import json

import pytest
from sourcecheck_eval import papers


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
