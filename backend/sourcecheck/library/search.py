"""Hybrid search over a ChunkIndex: Chroma's dense candidates and the lexical index's BM25 candidates, fused by
their reciprocal ranks, restricted to a set of documents."""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sourcecheck.library.chunks import ChunkIndex, Embed

RRF_K = 60  # reciprocal-rank fusion's constant (Cormack et al. 2009): a rank r (from 0) counts 1 / (RRF_K + r)


@dataclass
class Hit:
    """One chunk found for a query."""

    chunk_id: str
    document_id: str
    page: int
    start: int
    end: int
    text: str
    similarity: float  # cosine similarity of the query and the chunk
    lexical: float = 0.0  # BM25 score of the query in the chunk
    fused: float = 0.0  # reciprocal-rank fusion of the dense and lexical ranks: higher is more relevant


def hybrid_search(
    index: ChunkIndex,
    embedding_function: Embed,
    queries: Sequence[str],
    k: int,
    allowed: set[str] | None,
    candidates: int,
    filter_in_chroma: bool,
) -> list[list[Hit]]:
    """The top-k hits of each query. allowed: the only documents whose chunks may be returned (None: all), checked
    after the fusion; filter_in_chroma: whether Chroma's search is restricted to them too (false when they are every
    document of the library: a filter costs ~1.2x a search at 40 documents). A chunk deleted meanwhile is left out;
    never an error."""
    with index.lock:
        total = index.count()
    if total == 0 or not queries:
        return [[] for _ in queries]
    if allowed is not None and not allowed:
        return [[] for _ in queries]
    only = sorted(allowed) if allowed is not None and filter_in_chroma else None  # Chroma's filter, and BM25's
    where = None if only is None else {"document_id": {"$in": only}}
    # One after the other: on 2 cores the lexical search in a thread beside the embedding made both slower
    # (57 vs 52 ms at 100k chunks).
    vectors = embedding_function(list(queries))
    with index.lock:  # one SQLite connection, shared with ingestion; the collection, which a rebuild replaces
        dense = index.collection.query(
            query_embeddings=vectors,
            n_results=min(candidates, total),
            where=where,
            include=["documents", "metadatas", "distances"],
        )
        lexical = [index.lexical.top(q, candidates, only) for q in queries]
    results = [_fuse(dense, qi, lexical[qi]) for qi in range(len(queries))]
    _fill_lexical_only(index, vectors, results)  # before the cut: a hit whose chunk is gone leaves its place
    if allowed is not None:
        results = [[h for h in hits if h.document_id in allowed] for hits in results]
    return [sorted(hits, key=lambda h: -h.fused)[:k] for hits in results]


def _fuse(dense: Any, qi: int, lexical: list[tuple[str, float]]) -> list[Hit]:
    """Query qi's dense hits (Chroma's query result) and lexical ones (chunk id, BM25 score), each scored by the
    reciprocal ranks it has; a hit found by its words alone has no text or place yet (similarity NaN)."""
    hits: dict[str, Hit] = {}
    for rank, (cid, text, meta, dist) in enumerate(
        zip(dense["ids"][qi], dense["documents"][qi], dense["metadatas"][qi], dense["distances"][qi])
    ):
        if meta is None or text is None:  # deleted between Chroma's vector search and its read
            continue
        hits[cid] = Hit(
            cid,
            meta["document_id"],
            meta["page"],
            meta["start"],
            meta["end"],
            text,
            similarity=1.0 - dist,
            fused=1.0 / (RRF_K + rank),
        )
    for rank, (cid, lex) in enumerate(lexical):
        hit = hits.get(cid)
        if hit is None:  # found by its words alone: its text and place are read below
            hit = hits[cid] = Hit(cid, "", 0, 0, 0, "", similarity=float("nan"))
        hit.lexical = lex
        hit.fused += 1.0 / (RRF_K + rank)
    return list(hits.values())


def _fill_lexical_only(index: ChunkIndex, vectors: Any, results: list[list[Hit]]) -> None:
    """Text, place and cosine similarity of the hits that dense search did not return, in one read; a chunk gone
    from Chroma meanwhile (a document deleted under the search, or by another backend) is dropped."""
    missing = {h.chunk_id for hits in results for h in hits if math.isnan(h.similarity)}
    if not missing:
        return
    with index.lock:
        got = index.collection.get(ids=sorted(missing), include=["documents", "metadatas", "embeddings"])
    found = {
        cid: (text, meta, vec)
        for cid, text, meta, vec in zip(got["ids"], got["documents"], got["metadatas"], got["embeddings"])
    }
    for qi, hits in enumerate(results):
        for h in hits:
            if h.chunk_id in found and math.isnan(h.similarity) and found[h.chunk_id][1] is not None:
                text, meta, vec = found[h.chunk_id]
                h.document_id, h.page, h.start, h.end, h.text = (
                    meta["document_id"],
                    meta["page"],
                    meta["start"],
                    meta["end"],
                    text,
                )
                h.similarity = float(np.dot(vectors[qi], vec))
        hits[:] = [h for h in hits if not math.isnan(h.similarity)]
