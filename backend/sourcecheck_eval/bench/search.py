"""scripts/bench --only search: hybrid search at 100k chunks (a synthetic library, built once and kept), against
Chroma's dense search alone, and the first search of a new process."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sourcecheck_eval.bench.data import ANSWER, SEARCH_CHUNKS, WORK, fave_records, now

if TYPE_CHECKING:  # annotations only: the library is imported where it is used
    from sourcecheck.library import Library
    from sourcecheck.library.chunks import Embed

BATCH, DOCUMENT_CHUNKS = 5000, 40  # chunks written per call; chunks of one synthetic document


def bench_search(emb: Embed, r: dict[str, Any]) -> None:
    from sourcecheck.library import Library

    path, done = WORK / "search100k", WORK / "search100k" / "done-records"  # records came with the lexical file
    if not done.exists():
        shutil.rmtree(path, ignore_errors=True)
    lib = Library(path, emb)
    if not done.exists():
        t = now()
        build(lib, path)
        r["search_build_s"] = now() - t
        done.touch()
    r["search_chunks"] = lib.counts()["chunks"]
    lib.close()
    r["search_cold"] = cold_search(path)
    lib = Library(path, emb)
    queries = [s for s, _ in ANSWER]
    vectors = emb(queries)
    hybrid, dense = [], []
    for _ in range(3):
        for q, v in zip(queries, vectors):
            t = now()
            lib.search(q, 5, None, 20)  # what a check asks for: top 5 of 20 dense + 20 BM25 candidates
            hybrid.append(now() - t)
            t = now()
            dense_search(lib, v, 20)
            dense.append(now() - t)
    r["search_hybrid_ms"] = 1000 * float(np.median(hybrid))
    r["search_hybrid_max_ms"] = 1000 * max(hybrid)
    r["search_dense_ms"] = 1000 * float(np.median(dense))


def build(lib: Library, path: Path) -> None:
    """SEARCH_CHUNKS chunks written straight into the library's index: random unit vectors, texts drawn from the
    abstracts' words, DOCUMENT_CHUNKS to a document; each document recorded as ready text, without a PDF (read
    when the library is opened again)."""
    from sourcecheck.library.records import FolderRecords, new_record

    records = FolderRecords(path, lib.chunks.lock)
    rng = np.random.default_rng(0)
    words = np.array(" ".join(r["sources"][0] for r in fave_records()).split())
    for b in range(0, SEARCH_CHUNKS, BATCH):
        vectors = rng.standard_normal((BATCH, 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        texts = [" ".join(row) for row in rng.choice(words, (BATCH, 120))]
        metadatas: list[dict[str, Any]] = [
            {"document_id": f"d{(b + i) // DOCUMENT_CHUNKS}", "page": 1, "start": 0, "end": 1} for i in range(BATCH)
        ]
        lib.chunks.write([f"c{b + i}" for i in range(BATCH)], texts, vectors, metadatas)
        for doc_id, n in Counter(m["document_id"] for m in metadatas).items():
            record = records.docs.get(doc_id) or new_record(doc_id, f"{doc_id}.txt", None, status="ready")
            record["chunks"] += n
            records.put(record)


def dense_search(lib: Library, vector: np.ndarray, candidates: int = 20) -> Any:
    """Chroma's dense search alone for one query vector (what hybrid search adds to: the baseline)."""
    with lib.chunks.lock:
        return lib.chunks.collection.query(
            query_embeddings=[vector], n_results=candidates, include=["documents", "metadatas", "distances"]
        )


def cold_search(path: Path) -> dict[str, float]:
    """A new process opens the library and searches once, then again: what the first check after a start
    waits for. The embedding model is loaded and run once before the clock starts (its load is the server's
    warm-up, not the library's); the OS file cache is as the build left it."""
    code = f"""if True:
        import json, time
        from sourcecheck.library.embeddings import MiniLMEmbedding
        from sourcecheck.library import Library
        emb = MiniLMEmbedding(); emb(["warm"])
        t = time.perf_counter(); lib = Library({str(path)!r}, emb); opened = time.perf_counter() - t
        t = time.perf_counter(); lib.search({ANSWER[0][0]!r}, 5, None, 20); first = time.perf_counter() - t
        t = time.perf_counter(); lib.search({ANSWER[1][0]!r}, 5, None, 20); second = time.perf_counter() - t
        print(json.dumps({{"open_s": opened, "first_s": first, "second_s": second}}))"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])
