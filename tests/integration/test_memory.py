"""Memory stays bounded while a large PDF is deleted and uploaded again and again through the served app.

Chroma's HNSW index only marks a deleted vector, and a vector added again takes a new slot: every delete + re-ingest
kept the whole document's vectors (~2.2 KB a chunk: +14 MB a cycle for a 7,500-chunk PDF) for as long as the
collection lived. The library rebuilds its collection once enough chunks were deleted (chunks.COMPACT_MIN), and has
glibc give the memory a rebuild frees back (store._tune_malloc).

The cycles run through `sourcecheck serve` with scripts/serve's settings (an index folder, CHROMA_URL left empty): a
test that built its Library another way once passed while the served app, given CHROMA_URL="", took its own folder
for a shared server and never rebuilt (issue 37: +14.3 MB a cycle, the Chroma folder 191 → 441 MB). The chunks are
20 words (not 120), so that a short PDF makes many chunks; hash embeddings, since the embedding model's own memory is
not what is measured. The suite runs 2,500 chunks a cycle (each delete still rebuilds: more than COMPACT_MIN);
MEMORY_PAGES=300 runs the report's 7,500 (about 3x as long)."""

import os
import random
import time
from pathlib import Path

import httpx
import pytest
from pdfs import make_pdf

from integration.conftest import paired, start_server, stop

pytestmark = pytest.mark.integration

CYCLES = 20
PAGES, CHUNK_WORDS = int(os.environ.get("MEMORY_PAGES", 100)), 20  # 25 chunks a page
GROWTH_MB_A_CYCLE = 1.0  # RSS growth allowed from cycle 5 to cycle 20, a cycle


def _rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmRSS:"))
    except OSError:
        pytest.skip("reads the resident set size from /proc (Linux)")


def _folder_mb(path):
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file()) / 2**20


def _pages(n, words=500, seed=25):
    """Varied text (distinct words, so the chunks' vectors differ), about `words` words a page."""
    rnd = random.Random(seed)
    vocabulary = [
        "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(3, 8))) for _ in range(5000)
    ]
    pages = []
    for _ in range(n):
        sentences, count = [], 0
        while count < words:
            k = rnd.randint(8, 18)
            sentences.append(" ".join(rnd.choice(vocabulary) for _ in range(k)).capitalize() + ".")
            count += k
        pages.append(" ".join(sentences))
    return pages


def _wait_ready(api, doc_id, auth):
    for _ in range(3000):  # up to 5 minutes
        doc = httpx.get(f"{api}/documents/{doc_id}", headers=auth, timeout=60).json()["document"]
        if doc["status"] in ("ready", "failed"):
            return doc
        time.sleep(0.1)
    raise AssertionError(f"{doc_id} not ingested within 5 minutes: {doc}")


def test_delete_and_reupload_through_the_server_keeps_memory_bounded(tmp_path):
    pages = _pages(PAGES)
    pdf = make_pdf(tmp_path / "big.pdf", pages).read_bytes()
    index = tmp_path / "index"
    # scripts/serve's configuration: INDEX_DIR given, every other setting (CHROMA_URL among them) its default
    proc, port, code = start_server(index, CHUNK_WORDS=CHUNK_WORDS)
    try:
        api = f"http://127.0.0.1:{port}/api/v1"
        auth = paired(api, code)
        rss, chroma_mb, doc = [], [], None
        for _ in range(CYCLES):
            resp = httpx.post(f"{api}/documents", files=[("file", ("big.pdf", pdf))], headers=auth, timeout=120)
            doc = _wait_ready(api, resp.json()["documents"][0]["id"], auth)
            assert doc["status"] == "ready", doc
            assert httpx.delete(f"{api}/documents/{doc['id']}", headers=auth, timeout=120).json()["ok"]
            rss.append(_rss_mb(proc.pid))
            chroma_mb.append(_folder_mb(index / "chroma"))
        health = httpx.get(f"{api}/health", headers=auth, timeout=60).json()
        # after the rebuilds, what is added again is found
        resp = httpx.post(f"{api}/documents", files=[("file", ("big.pdf", pdf))], headers=auth, timeout=120)
        again = _wait_ready(api, resp.json()["documents"][0]["id"], auth)
        sentence = pages[7].split(".")[1].strip() + "."
        with httpx.stream("POST", f"{api}/check", json={"text": sentence}, headers=auth, timeout=120) as r:
            lines = [line for line in r.iter_lines() if line]
    finally:
        stop(proc)

    print(f"{doc['chunks']:,} chunks a cycle; RSS MB {[round(r, 1) for r in rss]}; Chroma MB {chroma_mb}")
    assert doc["chunks"] >= 20 * PAGES, doc  # the PDF's text all went in
    assert health["library"] == {"documents": 0, "chunks": 0}
    growth = (rss[-1] - rss[4]) / (CYCLES - 5)
    assert growth <= GROWTH_MB_A_CYCLE, (
        f"RSS grew {growth:.2f} MB a cycle from cycle 5 to {CYCLES} ({doc['chunks']:,} chunks a cycle); "
        f"RSS after each cycle: {[round(r) for r in rss]}"
    )
    # each delete of 7,500 chunks rebuilds the collection: the folder stays at its size after the first rebuild
    assert chroma_mb[-1] <= chroma_mb[0] * 1.1 + 1, f"Chroma folder after each cycle, MB: {chroma_mb}"
    assert again["status"] == "ready" and again["chunks"] == doc["chunks"]
    assert any(f'"{again["id"]}"' in line and '"page": 8' in line for line in lines), lines[-1][:500]
