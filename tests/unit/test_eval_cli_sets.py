"""`sourcecheck eval NAME` (sourcecheck_eval/cli.py): a public set's name (not a file) is its fetched dev.jsonl, fetched
first when absent (from a local git repository here: the default URL is pointed at it)."""

import json
import subprocess

import pytest
from sourcecheck_eval.cli import benchmark_files
from sourcecheck_eval.public import git, wice
from test_public_sets_A import claim, commit, jsonl


def test_a_set_name_is_fetched_once_then_read_from_the_benchmarks_folder(tmp_path, monkeypatch):
    record = {
        "label": "supported",
        "supporting_sentences": [],
        "claim": "C.",
        "evidence": ["E."],
        "meta": claim("dev01"),
    }
    folder, sha = commit(tmp_path / "wice", {wice.DEV: jsonl([record])})
    monkeypatch.setattr(wice, "REPOS", [{**wice.REPOS[0], "commit": sha}])
    urls = []
    monkeypatch.setattr(git, "default_url", lambda repo: urls.append(repo) or str(folder))
    out, own = tmp_path / "benchmarks", tmp_path / "mine.jsonl"
    own.write_text("")
    files = benchmark_files(["wice", str(own)], str(out))
    assert files == [str(out / "wice" / "dev.jsonl"), str(own)]
    assert [json.loads(line)["id"] for line in (out / "wice" / "dev.jsonl").read_text().splitlines()] == ["wice-dev01"]
    assert urls == [wice.REPO]
    assert benchmark_files(["wice"], str(out)) == [str(out / "wice" / "dev.jsonl")]  # there now: not fetched again
    assert urls == [wice.REPO]

    # a new pinned commit: the set converted from the old one is fetched again
    record["claim"] = "D."
    (folder / wice.DEV).write_text(jsonl([record]))
    run = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@e"]
    subprocess.run([*run, "commit", "-qam", "2"], check=True)
    newer = subprocess.run([*run, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    monkeypatch.setattr(wice, "REPOS", [{**wice.REPOS[0], "commit": newer}])
    benchmark_files(["wice"], str(out))
    assert urls == [wice.REPO, wice.REPO]
    assert json.loads((out / "wice" / "dev.jsonl").read_text())["text"] == "D."


def test_without_git_the_fetch_says_what_is_needed(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no git on the PATH
    with pytest.raises(SystemExit, match="needs git"):
        git.checkout("o/r", "0" * 40, tmp_path / "checkout", url=str(tmp_path))
