"""`sourcecheck ingest DIR` as a user runs it: a real CLI process, the PDF reader's process, a persistent Chroma;
skipped files, Ctrl-C and a killed run resumed."""

import json
import signal
import subprocess

import pytest
from pdfs import BRIDGE_PAGES, FAVA_PAGES, make_pdf

from integration.conftest import PYTHON, sourcecheck_env

pytestmark = pytest.mark.integration


def run(args, env):
    return subprocess.run([PYTHON, "-m", "sourcecheck", *args], env=env, capture_output=True, text=True, timeout=300)


def library(env):
    out = run(["documents"], env)
    return [line.split()[:2] for line in out.stdout.splitlines()]  # [id, status]


def papers(folder, n, pages=30):
    """n distinct PDFs of many pages each, in nested folders, so that a run takes long enough to interrupt."""
    for i in range(n):
        sub = folder / f"year{i % 3}"
        sub.mkdir(parents=True, exist_ok=True)
        text = [
            f"Paper {i}, page {p}: " + " ".join(f"finding{i}x{p}x{w} about rivers." for w in range(60))
            for p in range(pages)
        ]
        make_pdf(sub / f"paper{i}.pdf", text)


def test_a_folder_is_ingested_recursively_and_a_second_run_skips_it(index_dir, tmp_path):
    env = sourcecheck_env(index_dir, BACKEND="fake", EMBEDDINGS="hash")
    folder = tmp_path / "papers"
    make_pdf((folder / "a" / "b").mkdir(parents=True) or folder / "a" / "b" / "fava.pdf", FAVA_PAGES)
    make_pdf(folder / "bridge.PDF", BRIDGE_PAGES)
    (folder / "notes.txt").write_text("not a PDF: not even looked at")
    (folder / "a" / "broken.pdf").write_text("not a PDF either, but named like one")
    (folder / "fava copy.pdf").write_bytes((folder / "a" / "b" / "fava.pdf").read_bytes())  # twice: indexed once

    out = run(["ingest", str(folder)], env)
    assert out.returncode == 1  # the broken one
    assert "fava.pdf  3 pages" in out.stdout and "bridge.PDF  2 pages" in out.stdout
    assert "broken.pdf" in out.stderr and "notes.txt" not in out.stderr + out.stdout
    assert out.stdout.count(" 3 pages") == 1 and "fava copy.pdf  already in the library" in out.stdout
    assert sorted(status for _, status in library(env)) == ["ready", "ready"]

    again = run(["ingest", str(folder / "a"), str(folder / "bridge.PDF")], env)
    assert again.stdout.count("already in the library") == 2 and "pages," not in again.stdout


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "killed"])
def test_an_interrupted_folder_ingest_resumes_where_it_stopped(index_dir, tmp_path, how):
    env = sourcecheck_env(index_dir, BACKEND="fake", EMBEDDINGS="hash", CHUNK_WORDS=20)
    folder = tmp_path / "papers"
    papers(folder, 6)
    # Ctrl-C as in a terminal: a suite run in the background (nohup, &) hands its children SIGINT ignored
    proc = subprocess.Popen(
        [PYTHON, "-m", "sourcecheck", "ingest", str(folder)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    first = proc.stdout.readline()  # the first paper is indexed: interrupt the run in the middle
    assert "pages," in first
    proc.send_signal(how)
    code = proc.wait(timeout=60)
    assert code == (130 if how == signal.SIGINT else -signal.SIGKILL)
    if how == signal.SIGINT:
        assert "run the same command again" in proc.stderr.read()
    before = dict(library(env))
    assert 1 <= list(before.values()).count("ready") < 6

    out = run(["ingest", str(folder)], env)
    assert out.returncode == 0, out.stderr
    ready_before = [i for i, status in before.items() if status == "ready"]
    assert out.stdout.count("already in the library") == len(ready_before)
    assert out.stdout.count("pages,") == 6 - len(ready_before)
    after = dict(library(env))
    assert len(after) == 6 and set(after.values()) == {"ready"}
    # a resumed paper's chunks were written again, not added twice, in Chroma and in the lexical index
    from sourcecheck.library import Library
    from sourcecheck.library.embeddings import HashEmbedding

    lib = Library(index_dir, HashEmbedding())
    chunks = {d["id"]: d["chunks"] for d in lib.list()}
    assert lib.counts()["chunks"] == sum(chunks.values()) and lib.chunks.lexical.counts() == chunks
    lib.close()
    result = json.loads(run(["check", "--json", "Paper 5, page 29 has finding5x29x3 about rivers."], env).stdout)
    assert result["verdicts"][0]["evidence"][0]["quote"].startswith("Paper 5, page 29")
