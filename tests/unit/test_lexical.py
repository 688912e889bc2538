import sqlite3

import pytest
from sourcecheck.library.lexical import LexicalIndex


def test_ranks_by_rare_words_and_filters_documents():
    index = LexicalIndex()
    index.add(
        ["a", "b", "c"],
        ["the river flows north through the valley", "a river of ice", "bridges over roads"],
        ["d1", "d1", "d2"],
    )
    top = index.top("river valley", 5)
    assert [cid for cid, _ in top] == ["a", "b"]  # "valley" is only in a; "c" shares no word
    assert top[0][1] > top[1][1] > 0
    assert index.top("river valley", 1) == top[:1]
    assert index.top("river bridges", 5, document_ids=["d2"])[0][0] == "c"
    assert index.top("river", 5, document_ids=["d2"]) == []
    assert index.top("unknownword", 5) == [] and index.top("the of", 5) == []  # no content word: nothing


def test_numbers_stay_one_token_and_words_are_not_operators():
    index = LexicalIndex()
    index.add(["a", "b"], ["it grew by 3.5 percent to 35,000 users", "3 of 5 users near and not or"], ["d", "d"])
    assert [c for c, _ in index.top("3.5", 5)] == ["a"]  # not "3" and "5"
    assert [c for c, _ in index.top("35,000", 5)] == ["a"]
    assert [c for c, _ in index.top('NEAR "users" OR NOT) *', 5)] != []  # FTS5 syntax in a query is just text


def test_updates_in_place_score_like_a_fresh_index():
    texts = {f"c{i}": f"chunk {i} about {'rivers' if i % 3 else 'mountains'} and topic{i % 7}" for i in range(40)}
    docs = {cid: f"d{int(cid[1:]) % 4}" for cid in texts}
    live = LexicalIndex()
    live.add(list(texts), list(texts.values()), [docs[c] for c in texts])
    live.remove_document("d1")
    live.add(["c5"], ["a replaced chunk about glaciers"], ["d3"])  # same id again: replaced
    kept = {c: t for c, t in texts.items() if docs[c] != "d1" and c != "c5"} | {"c5": "a replaced chunk about glaciers"}
    fresh = LexicalIndex()
    fresh.add(list(kept), list(kept.values()), ["d3" if c == "c5" else docs[c] for c in kept])
    for query in ("rivers topic3", "mountains", "glaciers chunk"):
        got, want = live.top(query, 8), fresh.top(query, 8)
        assert [c for c, _ in got] == [c for c, _ in want]
        assert all(abs(a - b) < 1e-6 for (_, a), (_, b) in zip(got, want))
    assert len(live) == len(kept) and live.counts() == fresh.counts()
    assert "d1" not in live.counts()


def test_persists_and_a_failed_change_leaves_it_as_it_was(tmp_path):
    path = tmp_path / "lexical.sqlite"
    index = LexicalIndex(path)
    index.add(["a", "b"], ["alpine glaciers retreat", "coastal erosion"], ["d1", "d2"])
    with pytest.raises(sqlite3.IntegrityError):  # a chunk id twice in one write: the whole write is refused
        index.add(["c", "c"], ["glaciers again", "glaciers twice"], ["d3", "d3"])
    index.close()
    reopened = LexicalIndex(path)
    assert reopened.counts() == {"d1": 1, "d2": 1}
    assert [c for c, _ in reopened.top("glaciers", 5)] == ["a"]
