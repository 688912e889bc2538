from sourcecheck.lexical import BM25


def meta(doc):
    return {"document_id": doc, "page": 1, "start": 0, "end": 1}


def test_ranks_by_rare_words_and_filters_documents():
    bm25 = BM25()
    bm25.add(["a", "b", "c"], ["the river flows north through the valley", "a river of ice", "bridges over roads"],
             [meta("d1"), meta("d1"), meta("d2")])
    top = bm25.top("river valley", 5)
    assert [cid for cid, _ in top] == ["a", "b"]  # "valley" is only in a; "c" shares no word
    assert top[0][1] > top[1][1] > 0
    assert bm25.top("river valley", 1) == top[:1]
    assert bm25.top("river bridges", 5, document_ids=["d2"])[0][0] == "c"
    assert bm25.top("river", 5, document_ids=["d2"]) == []
    assert bm25.top("unknownword", 5) == []


def test_updates_in_place_score_like_a_fresh_index():
    texts = {f"c{i}": f"chunk {i} about {'rivers' if i % 3 else 'mountains'} and topic{i % 7}" for i in range(40)}
    docs = {cid: f"d{int(cid[1:]) % 4}" for cid in texts}
    live = BM25()
    live.add(list(texts), list(texts.values()), [meta(docs[c]) for c in texts])
    live.remove_document("d1")
    live.add(["c5"], ["a replaced chunk about glaciers"], [meta("d3")])  # same id again: replaced
    kept = {c: t for c, t in texts.items() if docs[c] != "d1" and c != "c5"} | {"c5": "a replaced chunk about glaciers"}
    fresh = BM25()
    fresh.add(list(kept), list(kept.values()), [meta("d3" if c == "c5" else docs[c]) for c in kept])
    for query in ("rivers topic3", "mountains", "glaciers chunk"):
        got, want = live.top(query, 8), fresh.top(query, 8)
        assert [c for c, _ in got] == [c for c, _ in want]
        assert all(abs(a - b) < 1e-4 for (_, a), (_, b) in zip(got, want))
    assert len(live) == len(kept) and not any(c for c, _ in live.top("rivers mountains", 50) if docs[c] == "d1" and c != "c5")


def test_mostly_removed_index_compacts():
    bm25 = BM25()
    bm25.add([f"c{i}" for i in range(3000)], [f"word{i % 10} common" for i in range(3000)],
             [meta(f"d{i % 3}") for i in range(3000)])
    bm25.remove_document("d0")
    bm25.remove_document("d1")
    assert bm25.dead == 0 and len(bm25.ids) == 1000  # rebuilt from the live rows
    assert {bm25.metas[bm25.row[c]]["document_id"] for c, _ in bm25.top("common", 2000)} == {"d2"}
