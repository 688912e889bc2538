import threading

import numpy as np
import pytest
from sourcecheck.library import store
from sourcecheck.library.chunks import ChunkIndex, collection_name
from sourcecheck.library.embeddings import HashEmbedding
from sourcecheck.library.search import RRF_K, hybrid_search

# Chunks with chosen vectors, so that the dense ranks are known: (id, document, page, text, vector)
CHUNKS = [
    ("a", "d1", 1, "otters eat urchins", [1, 0, 0, 0]),
    ("b", "d1", 2, "kelp forests shelter fish", [0, 1, 0, 0]),
    ("c", "d2", 1, "the harbour is quiet", [0, 0, 1, 0]),
]
QUERIES = {"kelp forests": [0.8, 0.6, 0, 0], "harbour quiet": [0, 0, 1, 0]}


class Queries:
    """The query vectors above; counts its calls."""

    calls = 0

    def __call__(self, texts):
        self.calls += 1
        return [np.array(QUERIES[t], dtype=np.float32) for t in texts]


@pytest.fixture
def index():
    embed = HashEmbedding(dim=4)
    index = ChunkIndex(store.client(None), collection_name(None, embed), embed, threading.RLock())
    index.write(
        [c[0] for c in CHUNKS],
        [c[3] for c in CHUNKS],
        [c[4] for c in CHUNKS],
        [
            {"document_id": doc, "page": page, "start": 5 * page, "end": 5 * page + len(text)}
            for _, doc, page, text, _ in CHUNKS
        ],
    )
    yield index
    index.close()


def search(index, queries, k=5, allowed=None, candidates=20, filter_in_chroma=True):
    return hybrid_search(index, Queries(), queries, k, allowed, candidates, filter_in_chroma)


def test_dense_and_lexical_ranks_are_fused(index):
    (hits,) = search(index, ["kelp forests"])
    assert [h.chunk_id for h in hits] == ["b", "a", "c"]
    assert [h.similarity for h in hits] == pytest.approx([0.6, 0.8, 0.0], abs=1e-6)
    assert hits[0].lexical > 0 and hits[1].lexical == hits[2].lexical == 0.0
    # b: second by its vector, first by its words; a: first by its vector only
    assert [h.fused for h in hits] == pytest.approx([1 / (RRF_K + 1) + 1 / RRF_K, 1 / RRF_K, 1 / (RRF_K + 2)])
    b = hits[0]
    assert (b.document_id, b.page, b.start, b.end, b.text) == ("d1", 2, 10, 35, "kelp forests shelter fish")


def test_a_hit_found_by_its_words_alone_gets_its_text_place_and_similarity(index):
    (hits,) = search(index, ["kelp forests"], candidates=1)  # Chroma's one candidate is a; BM25's is b
    found = {h.chunk_id: h for h in hits}
    assert set(found) == {"a", "b"}
    b = found["b"]
    assert (b.document_id, b.page, b.text) == ("d1", 2, "kelp forests shelter fish")
    assert b.similarity == pytest.approx(0.6) and b.fused == pytest.approx(1 / RRF_K)


def test_a_chunk_gone_from_chroma_is_left_out_not_an_error(index):
    index.collection.delete(ids=["b"])  # still in the lexical index: a delete under the search
    (hits,) = search(index, ["kelp forests"], candidates=1)
    assert [h.chunk_id for h in hits] == ["a"]


@pytest.mark.parametrize("filter_in_chroma", [True, False])
def test_only_the_allowed_documents_are_returned(index, filter_in_chroma):
    (hits,) = search(index, ["kelp forests"], allowed={"d2"}, filter_in_chroma=filter_in_chroma)
    assert [(h.chunk_id, h.document_id) for h in hits] == [("c", "d2")]


def test_each_query_has_its_own_top_k(index):
    first, second = search(index, ["kelp forests", "harbour quiet"], k=1)
    assert [h.chunk_id for h in first] == ["b"] and [h.chunk_id for h in second] == ["c"]


def test_nothing_to_search_returns_an_empty_list_per_query_without_embedding(index):
    embed = Queries()
    assert hybrid_search(index, embed, [], 5, None, 20, True) == []
    assert hybrid_search(index, embed, ["kelp forests", "nothing"], 5, set(), 20, True) == [[], []]
    index.remove_document("d1")
    index.remove_document("d2")
    assert hybrid_search(index, embed, ["kelp forests"], 5, None, 20, True) == [[]]
    assert embed.calls == 0
