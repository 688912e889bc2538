"""A Zotero library that is large, odd or hostile (a real zotero.sqlite from Zotero's schema, real PDFs, real FIFOs):
what a sync and the status do with it."""

import os
import sqlite3
import threading
import time
from contextlib import closing

import pytest
from pdfs import make_pdf
from sourcecheck import zotero
from sourcecheck.errors import SourcecheckError
from sourcecheck.library import Library, records
from sourcecheck.library.embeddings import HashEmbedding
from sourcecheck.serve.services import get_services
from sourcecheck.zotero import sync as zotero_sync
from sourcecheck.zotero.sync import load_state, sync
from sourcecheck.zotero.view import collection_documents, status, tree
from zotero_library import FAVA_TITLE, ZoteroLibrary, standard_library


@pytest.fixture
def zot(tmp_path):
    return standard_library(tmp_path / "Zotero", tmp_path / "made")


@pytest.fixture
def library(tmp_path):
    lib = Library(tmp_path / "index", HashEmbedding(), max_file_mb=1)
    yield lib
    lib.close()


def synced(library, tmp_path, data_dir):
    report = sync(library, tmp_path / "index", zotero.read(data_dir))
    list(library.ingest_many(report.queued))
    return report


def sql(z, statement, *args):
    with closing(sqlite3.connect(z.db)) as conn:
        conn.execute(statement, args)
        conn.commit()


def test_an_attachment_past_the_size_limit_is_skipped_unread_and_the_others_are_added(zot, library, tmp_path):
    z, ids = zot
    huge = tmp_path / "made" / "scanned book.pdf"
    with huge.open("wb") as f:  # %PDF and a sparse hole: 3 GB on paper, nothing on disk
        f.write(b"%PDF-1.7\n")
        f.truncate(3 * 1024**3)
    z.attachment(z.item("A scanned book"), "scanned book.pdf", linked=huge)
    report = synced(library, tmp_path, z.root)
    too_large = [s for s in report.skipped if s["error"]["code"] == "too_large"]
    assert [s["file"] for s in too_large] == ["scanned book.pdf"] and "3,072 MB" in too_large[0]["error"]["message"]
    assert report.added == 2 and {d["title"] for d in library.list()} == {FAVA_TITLE, "The Golden Gate Bridge"}


def test_a_journal_that_blocks_on_open_does_not_hang_the_read(zot):
    z, _ = zot
    os.mkfifo(z.root / "zotero.sqlite-journal")
    done = []
    reader = threading.Thread(target=lambda: done.append(zotero.read(z.root)), daemon=True)
    reader.start()
    reader.join(20)
    assert done and len(done[0].attachments) == 5  # the trashed one is not listed


def test_stop_does_not_wait_for_a_read_of_zotero_that_hangs(zot, app, monkeypatch):
    z, _ = zot
    hung, release = threading.Event(), threading.Event()

    def read(data_dir, *args, **kwargs):  # a database on a network mount that stopped answering
        hung.set()
        release.wait(60)
        raise SourcecheckError("gone", code="zotero_unreadable", status=422)

    monkeypatch.setattr(zotero, "read", read)
    syncer = get_services(app).syncer()
    raised = []

    def start():
        try:
            syncer.start(str(z.root))
        except SourcecheckError as e:
            raised.append(e.code)

    starter = threading.Thread(target=start)
    starter.start()
    assert hung.wait(10)
    stopper = threading.Thread(target=syncer.stop)
    stopper.start()
    stopper.join(5)
    stopped = not stopper.is_alive()
    release.set()
    starter.join(10)
    assert stopped and raised == ["zotero_unreadable"]  # stop() took the lock at once: the read holds none
    syncer.start(str(z.root))  # a stopped syncer starts nothing, even after the read came back
    assert not syncer.state()["running"]


def test_a_collection_cycle_and_deep_nesting_answer_with_every_collection(zot, client, app):
    z, ids = zot
    sql(z, "UPDATE collections SET parentCollectionID = ? WHERE collectionID = ?", ids["hallucination"], ids["thesis"])
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


def test_the_state_is_written_at_growing_intervals_and_skipped_is_capped(library, tmp_path, monkeypatch):
    links = tuple(
        zotero.Attachment(f"K{i}", None, f"Page {i}", (), (), None, None, "text/html", zotero.LINK_ONLY, None, ())
        for i in range(5000)
    )
    snap = zotero.Snapshot(tmp_path, 123, 5000, 0, links, ())
    writes = []
    save = zotero_sync._save
    monkeypatch.setattr(zotero_sync, "_save", lambda d, s: (writes.append(1), save(d, s)))
    report = sync(library, tmp_path / "index", snap)
    assert len(report.skipped) == 5000
    assert len(writes) <= 10  # 25, 50, 100, …, 3200 and the last; every 25 would be 201
    shown = status(tmp_path / "index", library)
    assert len(shown["skipped"]) == 200 and shown["skipped_count"] == 5000


def test_odd_values_in_the_database_are_read_or_refused_clearly(zot):
    z, ids = zot
    sql(
        z,
        "UPDATE itemAttachments SET path = X'00ff' WHERE itemID = (SELECT itemID FROM items WHERE key = ?)",
        ids["fava_pdf"],
    )
    sql(z, "UPDATE itemDataValues SET value = CAST(X'4f74746572ff' AS TEXT) WHERE value = 'Otters at the harbour'")
    sql(z, "UPDATE itemDataValues SET value = ? WHERE value = 'The Golden Gate Bridge'", "Bridge\x00\n\u202e\x1b[2J")
    snap = zotero.read(z.root)
    found = {a.key: a for a in snap.attachments}
    assert found[ids["fava_pdf"]].path is None  # a BLOB where the path should be: the file is not found
    assert found[ids["bridge_pdf"]].title == "Bridge [2J"  # a newline is a space; NUL, RLO and ESC go
    assert "Otter\ufffd" in {a.title for a in snap.attachments}
    sql(z, "UPDATE version SET version = 'abc' WHERE schema = 'userdata'")
    with pytest.raises(SourcecheckError) as e:
        zotero.read(z.root)
    assert e.value.code == "zotero_unreadable"


def test_a_folder_that_was_there_keeps_its_mode_and_a_new_one_is_private(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    records.make_folder(shared)
    assert shared.stat().st_mode & 0o777 == 0o755
    records.make_folder(tmp_path / "new")
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o700


def test_a_large_library_is_read_with_shared_collection_tuples(tmp_path):
    z = ZoteroLibrary(tmp_path / "Zotero")
    col = z.collection("All")
    with z.connect() as conn:  # 300 items in one collection, written in one go
        for i in range(300):
            item_id, _ = z._item(conn, "journalArticle", [("title", f"Paper {i}")])
            conn.execute("INSERT INTO collectionItems (collectionID, itemID) VALUES (?, ?)", (col, item_id))
            att, _ = z._item(conn, "attachment")
            conn.execute(
                "INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) "
                "VALUES (?, ?, 0, ?, ?)",
                (att, item_id, "application/pdf", f"storage:{i}.pdf"),
            )
    snap = zotero.read(z.root)
    assert len(snap.attachments) == 300 and len({id(a.collections) for a in snap.attachments}) == 1


def idle(svc):
    """Wait for the sync to end (30 s at most), then for its ingests."""
    deadline = time.monotonic() + 30
    while svc.syncer().state()["running"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not svc.syncer().state()["running"]
    svc.wait_idle()


def test_a_sync_of_another_library_is_refused_until_confirmed(zot, client, app, tmp_path):
    z, _ = zot
    other, _ = standard_library(tmp_path / "Other", tmp_path / "made-other")
    assert client.post("/api/v1/zotero/sync", json={"data_dir": str(z.root)}).status_code == 202
    svc = get_services(app)
    idle(svc)
    before = {d["id"] for d in svc.library().list()}
    resp = client.post("/api/v1/zotero/sync", json={"data_dir": str(other.root)})  # a typo, a second profile
    assert resp.status_code == 409 and resp.get_json()["error"]["code"] == "zotero_other_library"
    assert "--replace" in resp.get_json()["error"]["message"]
    assert {d["id"] for d in svc.library().list()} == before
    assert load_state(svc.settings["INDEX_DIR"])["data_dir"] == str(z.root)
    resp = client.post("/api/v1/zotero/sync", json={"data_dir": str(other.root), "replace": "yes"})
    assert resp.status_code == 400
    resp = client.post("/api/v1/zotero/sync", json={"data_dir": str(other.root), "replace": True})
    assert resp.status_code == 202
    idle(svc)
    assert load_state(svc.settings["INDEX_DIR"])["data_dir"] == str(other.root)
    assert client.post("/api/v1/zotero/sync", json={}).status_code == 202  # the last one again: no question
    idle(svc)


def test_pairing_before_any_server_makes_the_folder_private(tmp_path):
    from sourcecheck.serve.security import new_pairing_code

    new_pairing_code({"INDEX_DIR": str(tmp_path / "fresh")})  # `sourcecheck pair` first
    assert (tmp_path / "fresh").stat().st_mode & 0o777 == 0o700
