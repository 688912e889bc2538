"""What checks, the API and the side panel read of the Zotero source (zotero/view.py): the collections as a tree, a
check limited to one, the zotero:// links on evidence, and the status with its counts."""

import pytest
from pdfs import make_pdf
from sourcecheck import zotero
from sourcecheck.check import check_text, collect
from sourcecheck.errors import BadRequest, EmptyLibrary, NotFound, SourcecheckError
from sourcecheck.judging.judge import Judge
from sourcecheck.llm.fake import FakeModel
from sourcecheck.serve.services import get_services
from sourcecheck.zotero import sync as zotero_sync
from sourcecheck.zotero.sync import sync
from sourcecheck.zotero.view import collection_documents, limit_to_collection, status, tree, with_links
from zotero_library import FAVA_TITLE, by_title, synced


def test_a_check_is_limited_to_a_collection_and_its_subcollections(zot, library, tmp_path):
    z, _ = zot
    synced(library, tmp_path, z.root)
    docs, index = by_title(library), tmp_path / "index"
    fava, bridge = docs[FAVA_TITLE]["id"], docs["The Golden Gate Bridge"]["id"]
    assert collection_documents(index, "Thesis", library) == [fava]  # FAVA is in Thesis/Hallucination
    assert collection_documents(index, "thesis / hallucination", library) == [fava]
    assert collection_documents(index, "Hallucination", library) == [fava]
    assert collection_documents(index, "Bridges", library) == [bridge]
    with pytest.raises(NotFound) as e:
        collection_documents(index, "Chapter 9", library)
    assert e.value.code == "collection_not_found" and "Thesis/Hallucination" in e.value.message
    with pytest.raises(EmptyLibrary):
        limit_to_collection("Bridges", [fava], library, index)
    text = "The bridge opened to traffic on May 27, 1937. FAVA improves detection F1 by 23.5 points."
    limited = collect(
        check_text(text, library, Judge(FakeModel()), limit_to_collection("Bridges", None, library, index))
    )
    assert {e["document_id"] for v in limited["verdicts"] for e in v["evidence"]} == {bridge}
    assert [v["label"] for v in limited["verdicts"]] == ["supported", "unsupported"]


def test_a_collection_whose_own_name_holds_a_slash_is_found_by_that_name(zot, library, tmp_path):
    z, _ = zot
    z.sql("UPDATE collections SET collectionName = ? WHERE collectionName = ?", "Methods/Results", "Hallucination")
    synced(library, tmp_path, z.root)
    fava, index = by_title(library)[FAVA_TITLE]["id"], tmp_path / "index"
    assert collection_documents(index, "Methods/Results", library) == [fava]  # was collection_not_found
    assert collection_documents(index, "Thesis/Methods/Results", library) == [fava]


def test_a_collection_cycle_and_deep_nesting_answer_with_every_collection(zot, client, app):
    z, ids = zot
    z.sql("UPDATE collections SET parentCollectionID = ? WHERE collectionID = ?", ids["hallucination"], ids["thesis"])
    parent = ids["bridges"]
    for i in range(1500):  # deeper than Python's recursion limit
        parent = z.collection(f"L{i}", parent)
    z.add_to(parent, ids["fava"])
    index = get_services(app).settings["INDEX_DIR"]
    report = sync(get_services(app).library(), index, zotero.read(z.root))
    list(get_services(app).library().ingest_many(report.queued))
    got = client.get("/api/v1/zotero")
    assert got.status_code == 200, got.get_json()
    state = got.get_json()["zotero"]
    by_name = {c["name"]: c for c in state["collections"]}
    assert len(state["collection_cycles"]) == 1 and state["collection_cycles"][0] in ("Thesis", "Hallucination")
    assert {by_name["Thesis"]["documents"], by_name["Hallucination"]["documents"]} == {1}
    assert by_name["Bridges"]["documents"] == 2 and by_name["L1499"]["documents"] == 1
    assert by_name["L1499"]["path"].count("/") == 1500
    body = {"text": "FAVA detects hallucinations.", "collection": "L700", "stream": False}
    resp = client.post("/api/v1/check", json=body, headers={"Accept": "application/json"})
    assert resp.status_code == 200, resp.get_json()
    assert len(collection_documents(index, "Thesis", get_services(app).library())) == 1


def test_the_status_counts_each_collections_subtree_as_a_brute_force_count_does(library, tmp_path):
    import random

    rng = random.Random(7)
    cols = {
        f"C{i}": {"name": f"n{i % 5}", "parent": f"C{rng.randrange(i)}" if i and rng.random() < 0.8 else None}
        for i in range(300)
    }
    entries = {
        f"A{i}": {"doc": f"d{i % 40}", "collections": rng.sample(sorted(cols), rng.randrange(3))} for i in range(500)
    }
    index = tmp_path / "index"
    zotero_sync._save(index, {"collections": cols, "attachments": entries})
    for d in {e["doc"] for e in entries.values()}:
        library.add_pdf(make_pdf(tmp_path / f"{d}.pdf", [f"Paper {d}."]).read_bytes(), f"{d}.pdf")
    ids = {d["filename"][:-4]: d["id"] for d in library.list()}
    for e in entries.values():
        e["doc"] = ids[e["doc"]]
    zotero_sync._save(index, {"collections": cols, "attachments": entries})
    t = tree(cols)

    def under(key):  # brute force: every collection whose chain of parents reaches key
        out = set()
        for k in cols:
            c = k
            while c is not None:
                if c == key:
                    out.add(k)
                    break
                c = cols[c]["parent"]
        return out

    got = {c["key"]: c["documents"] for c in status(index, library)["collections"]}
    for key in cols:
        assert set(t.within(key)) == under(key)
        want = {e["doc"] for e in entries.values() if under(key) & set(e["collections"])}
        assert got[key] == len(want), key


def test_the_tree_gives_each_collection_its_path_and_one_whose_parent_is_gone_is_a_top():
    t = tree(
        {
            "A": {"name": "Thesis", "parent": None},
            "B": {"name": "Chapter 2", "parent": "A"},
            "C": {"name": "Figures", "parent": "B"},
            "D": {"name": "Orphan", "parent": "GONE"},
            "E": {"name": "Loop", "parent": "E"},
        }
    )
    assert t.paths == {
        "A": "Thesis",
        "B": "Thesis/Chapter 2",
        "C": "Thesis/Chapter 2/Figures",
        "D": "Orphan",
        "E": "Loop",
    }
    assert sorted(t.tops) == ["A", "D", "E"] and t.cycles == ["E"]
    assert sorted(t.within("A")) == ["A", "B", "C"] and t.within("C") == ["C"] and t.within("E") == ["E"]


def test_a_check_not_limited_to_a_collection_reads_the_documents_asked_for():
    assert limit_to_collection(None, ["d_1"], None, "nowhere") == ["d_1"]
    assert limit_to_collection("", None, None, "nowhere") is None
    for bad in (3, ["Thesis"], {"name": "Thesis"}):
        with pytest.raises(BadRequest) as e:
            limit_to_collection(bad, None, None, "nowhere")
        assert e.value.code == "bad_request" and "collection" in e.value.message


def test_a_collection_and_documents_named_together_read_the_documents_in_both(zot, library, tmp_path):
    z, _ = zot
    synced(library, tmp_path, z.root)
    docs, index = by_title(library), tmp_path / "index"
    fava, bridge = docs[FAVA_TITLE]["id"], docs["The Golden Gate Bridge"]["id"]
    assert limit_to_collection("Thesis", [bridge, fava], library, index) == [fava]
    with pytest.raises(EmptyLibrary) as e:
        limit_to_collection("Thesis", [bridge], library, index)
    assert "among the documents asked for" in e.value.message
    library.delete(fava)  # removed from the library by hand: the collection is empty until the next sync
    assert collection_documents(index, "Thesis", library) == []
    with pytest.raises(EmptyLibrary) as e:
        limit_to_collection("Thesis", None, library, index)
    assert "among the documents" not in e.value.message and "Sync now" in e.value.message


def test_only_evidence_from_a_zotero_pdf_gets_a_link_to_its_page():
    documents = [
        {"id": "d_z", "title": "FAVA", "zotero": {"url": "zotero://open-pdf/library/items/K", "cite": "Mishra (2024)"}},
        {"id": "d_u", "title": "My upload", "zotero": None},
    ]
    evidence = [{"document_id": "d_z", "page": 3}, {"document_id": "d_u", "page": 1}, {"document_id": "d_x", "page": 2}]
    assert with_links(evidence, documents) == [
        {
            "document_id": "d_z",
            "page": 3,
            "zotero": {"url": "zotero://open-pdf/library/items/K?page=3", "cite": "Mishra (2024)", "title": "FAVA"},
        },
        {"document_id": "d_u", "page": 1},
        {"document_id": "d_x", "page": 2},
    ]


def test_the_status_before_any_sync_says_where_zotero_is_when_it_is_found(library, tmp_path, monkeypatch):
    def not_found(given=None):
        raise SourcecheckError("No Zotero here.", code="zotero_not_found", status=404)

    monkeypatch.setattr(zotero, "find_data_dir", not_found)
    assert status(tmp_path / "index", library) == {
        "data_dir": None,
        "synced_at": None,
        "items": 0,
        "documents": 0,
        "ready": 0,
        "skipped": [],
        "skipped_count": 0,
        "collections": [],
        "collection_cycles": [],
    }
    monkeypatch.setattr(zotero, "find_data_dir", lambda given=None: tmp_path / "Zotero")
    assert status(tmp_path / "index", library)["data_dir"] == str(tmp_path / "Zotero")


def test_the_status_counts_only_the_documents_still_in_the_library(zot, library, tmp_path):
    z, _ = zot
    synced(library, tmp_path, z.root)
    library.delete(by_title(library)[FAVA_TITLE]["id"])
    got = status(tmp_path / "index", library)
    assert (got["data_dir"], got["documents"], got["ready"], got["items"]) == (str(z.root), 1, 1, 4)
    assert got["synced_at"].endswith("Z") and got["skipped_count"] == 3 == len(got["skipped"])
    assert [(c["path"], c["name"], c["documents"]) for c in got["collections"]] == [
        ("Bridges", "Bridges", 1),
        ("Thesis", "Thesis", 0),
        ("Thesis/Hallucination", "Hallucination", 0),
    ]
