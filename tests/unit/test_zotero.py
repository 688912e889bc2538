"""A Zotero library as the source: a real data directory built from Zotero's own schema (tests/zotero_library.py) read
beside a running Zotero, its PDFs ingested with their items' metadata, kept in step, and checks by collection."""

import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing

import pytest
from pdfs import FAVA_PAGES, make_pdf
from sourcecheck import zotero
from sourcecheck.check import check_text, collect
from sourcecheck.errors import EmptyLibrary, NotFound, SourcecheckError
from sourcecheck.judging.judge import Judge
from sourcecheck.library import Library
from sourcecheck.library.embeddings import HashEmbedding
from sourcecheck.llm.fake import FakeModel
from sourcecheck.serve.services import get_services
from sourcecheck.zotero import sync as zotero_sync
from sourcecheck.zotero.sync import load_state, sync
from sourcecheck.zotero.view import collection_documents, limit_to_collection
from zotero_library import FAVA_TITLE, standard_library

CITING = "Mishra et al. (2024) fine-tuned the editor model from Llama2-Chat 7B."


@pytest.fixture
def zot(tmp_path):
    return standard_library(tmp_path / "Zotero", tmp_path / "made")


@pytest.fixture
def library(tmp_path):
    lib = Library(tmp_path / "index", HashEmbedding())
    yield lib
    lib.close()


def synced(library, tmp_path, data_dir):
    """A sync, then the ingest of what it queued (as the CLI does)."""
    report = sync(library, tmp_path / "index", zotero.read(data_dir))
    done = list(library.ingest_many(report.queued))
    assert all(d["status"] == "ready" for d in done), done
    return report


def by_title(library):
    return {d["title"]: d for d in library.list()}


def test_a_zotero_library_is_read_with_each_attachments_item_metadata(zot):
    z, ids = zot
    snap = zotero.read(z.root)
    assert snap.schema == 123 and snap.items == 4 and snap.notes == 2  # the trashed item is not counted
    found = {a.key: a for a in snap.attachments}
    assert ids["trashed_pdf"] not in found  # in the trash with its item
    fava = found[ids["fava_pdf"]]
    assert (fava.title, fava.authors, fava.year, fava.doi) == (
        FAVA_TITLE,
        ("Abhika Mishra", "Akari Asai", "Yizhong Wang"),
        2024,
        "10.48550/arXiv.2401.06855",
    )
    assert fava.path == z.root / "storage" / ids["fava_pdf"] / "Mishra et al. - 2024 - FAVA.pdf"
    bridge = found[ids["bridge_pdf"]]
    assert bridge.authors == ("Golden Gate Bridge District",) and bridge.year == 1937 and bridge.path.is_file()
    assert {c.name: c.parent for c in snap.collections} == {
        "Thesis": None,
        "Hallucination": next(c.key for c in snap.collections if c.name == "Thesis"),
        "Bridges": None,
    }


def test_sync_adds_the_pdfs_with_zoteros_metadata_and_says_what_it_skipped(zot, library, tmp_path):
    z, ids = zot
    report = synced(library, tmp_path, z.root)
    assert (report.added, report.changed, report.removed) == (2, 0, 0)
    skipped = {s["key"]: s["error"]["code"] for s in report.skipped}
    assert skipped == {
        ids["snapshot"]: "not_a_pdf",
        ids["link"]: "zotero_link_only",
        ids["missing_pdf"]: "zotero_attachment_missing",
    }
    docs = by_title(library)
    assert sorted(docs) == [FAVA_TITLE, "The Golden Gate Bridge"]  # Zotero's titles, not page 1's
    fava = docs[FAVA_TITLE]
    assert fava["authors"] == ["Abhika Mishra", "Akari Asai", "Yizhong Wang"] and fava["year"] == 2024
    assert fava["doi"] == "10.48550/arXiv.2401.06855" and fava["pages"] == 3
    assert fava["zotero"] == {
        "key": ids["fava_pdf"],
        "item": fava["zotero"]["item"],
        "added": True,
        "cite": "Mishra et al. (2024)",
        "url": f"zotero://open-pdf/library/items/{ids['fava_pdf']}",
    }
    missing = next(s for s in report.skipped if s["key"] == ids["missing_pdf"])["error"]["message"]
    assert "not on disk" in missing and "relink" in missing  # says what to do


def test_the_citation_check_uses_zoteros_author_and_year(zot, library, tmp_path):
    z, ids = zot
    synced(library, tmp_path, z.root)
    result = collect(check_text(CITING, library, Judge(FakeModel())))
    (verdict,) = result["verdicts"]
    fava = by_title(library)[FAVA_TITLE]
    assert verdict["cited"] == [{"text": "Mishra et al. (2024)", "document_id": fava["id"]}]
    # the evidence of a Zotero PDF opens in Zotero at its page, and names the item as a text cites it
    ev = verdict["evidence"][0]
    assert ev["document_id"] == fava["id"]
    assert ev["zotero"] == {
        "url": f"zotero://open-pdf/library/items/{ids['fava_pdf']}?page={ev['page']}",
        "cite": "Mishra et al. (2024)",
        "title": FAVA_TITLE,
    }
    # The same PDF added as a file: its page 1 has no year, so nothing matches the citation.
    plain = Library(None, HashEmbedding())
    doc, _ = plain.add_pdf(make_pdf(tmp_path / "fava.pdf", FAVA_PAGES).read_bytes(), "fava.pdf")
    plain.ingest(doc["id"])
    (alone,) = collect(check_text(CITING, plain, Judge(FakeModel())))["verdicts"]
    assert alone["cited"] == [{"text": "Mishra et al. (2024)", "document_id": None}]
    assert "zotero" not in alone["evidence"][0]


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


def test_a_second_sync_adds_new_items_drops_deleted_ones_and_rereads_changed_files(zot, library, tmp_path):
    z, ids = zot
    own, _ = library.add_pdf((tmp_path / "made" / "linked" / "bridge.pdf").read_bytes(), "my bridge.pdf")
    library.ingest(own["id"])  # the user's own copy of the bridge PDF, before Zotero came in
    first = synced(library, tmp_path, z.root)
    assert (first.added, first.unchanged) == (1, 1)  # FAVA added; the bridge PDF was here already
    fava_before = by_title(library)[FAVA_TITLE]["id"]

    otters = z.item("Otters of the Northern Coast", [("Ann", "Fisher")], "2023-00-00 2023")
    z.stored_pdf(otters, "otters.pdf", ["Sea otters were counted from boats: 412 otters in 2021."], tmp_path / "made")
    fava_file = z.root / "storage" / ids["fava_pdf"] / "Mishra et al. - 2024 - FAVA.pdf"
    make_pdf(fava_file, FAVA_PAGES + ["Appendix. The editor was trained on 4 GPUs."])  # a new version of the PDF
    z.trash(ids["bridge"])
    second = synced(library, tmp_path, z.root)
    assert (second.added, second.changed, second.removed, second.unchanged) == (1, 1, 1, 0)
    docs = by_title(library)
    assert docs[FAVA_TITLE]["pages"] == 4 and docs[FAVA_TITLE]["id"] != fava_before
    assert fava_before not in {d["id"] for d in library.list()}  # the old version's document is gone
    assert docs["Otters of the Northern Coast"]["zotero"]["added"] is True
    # The bridge left Zotero, but the user had added that PDF themselves: it stays, no longer from Zotero.
    mine = library.get(own["id"])
    assert mine["zotero"] is None and mine["doi"] is None

    z.erase(otters)  # deleted for good: the trash emptied
    third = synced(library, tmp_path, z.root)
    assert (third.added, third.changed, third.removed, third.unchanged, third.queued) == (0, 0, 1, 1, [])
    assert sorted(d["title"] for d in library.list()) == [FAVA_TITLE, "The Golden Gate Bridge"]
    assert len(load_state(tmp_path / "index")["attachments"]) == 1


def test_a_pdf_the_user_uploads_after_zotero_added_it_stays_when_its_item_leaves_zotero(zot, library, tmp_path):
    z, ids = zot
    synced(library, tmp_path, z.root)
    fava = by_title(library)[FAVA_TITLE]
    assert fava["zotero"]["added"] is True
    pdf = z.root / "storage" / ids["fava_pdf"] / "Mishra et al. - 2024 - FAVA.pdf"
    mine, queued = library.add_pdf(pdf.read_bytes(), "my copy of FAVA.pdf")  # the same bytes, uploaded by hand
    assert mine["id"] == fava["id"] and not queued and mine["zotero"]["added"] is False
    again = synced(library, tmp_path, z.root)  # a sync in between keeps it the user's
    assert again.unchanged >= 1 and library.get(fava["id"])["zotero"]["added"] is False
    z.trash(ids["fava"])
    synced(library, tmp_path, z.root)
    kept = library.get(fava["id"])  # left Zotero: stays, no longer from Zotero
    assert kept["status"] == "ready" and kept["zotero"] is None


def test_an_interrupted_sync_resumes_and_still_owns_what_it_added(zot, library, tmp_path):
    z, ids = zot
    seen = []

    def stop_after_the_first(attachment):
        seen.append(attachment.key)
        if len(seen) == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sync(library, tmp_path / "index", zotero.read(z.root), progress=stop_after_the_first)
    assert [d["status"] for d in library.list()] == ["queued"]  # FAVA registered, not ingested
    report = synced(library, tmp_path, z.root)  # run again: FAVA is taken up where it stopped
    assert report.added == 1 and len(report.queued) == 2
    z.trash(ids["fava"])
    assert synced(library, tmp_path, z.root).removed == 1
    assert [d["title"] for d in library.list()] == ["The Golden Gate Bridge"]  # added by the sync: deleted with it


def test_a_stopped_sync_keeps_what_it_registered_removes_nothing_and_goes_on_next_time(zot, library, tmp_path):
    z, ids = zot
    synced(library, tmp_path, z.root)
    z.trash(ids["fava"])  # gone from Zotero: only a sync that reached the end may remove it
    report = sync(library, tmp_path / "index", zotero.read(z.root), stopped=lambda: True)
    assert report.stopped and report.removed == 0
    assert sorted(d["title"] for d in library.list()) == sorted([FAVA_TITLE, "The Golden Gate Bridge"])
    calls = []

    def after_one():
        calls.append(1)
        return len(calls) > 1

    fresh = Library(tmp_path / "index2", HashEmbedding())
    try:
        first = sync(fresh, tmp_path / "index2", zotero.read(z.root), stopped=after_one)
        assert first.stopped and len(first.queued) == 1 and len(load_state(tmp_path / "index2")["attachments"]) == 1
        rest = sync(fresh, tmp_path / "index2", zotero.read(z.root))
        assert not rest.stopped and rest.unchanged == 1 and len(fresh.list()) == 1 + rest.added
    finally:
        fresh.close()
    assert synced(library, tmp_path, z.root).removed == 1  # a full sync removes what Zotero no longer has


def test_the_server_stops_a_running_sync_before_it_closes_the_library(zot, app, monkeypatch):
    z, _ = zot
    register, seen, inside = zotero_sync._register, [], threading.Event()

    def slow(*args, **kwargs):  # the first PDF takes a while: the server stops in the middle of the sync
        seen.append(1)
        inside.set()
        time.sleep(0.5)
        return register(*args, **kwargs)

    monkeypatch.setattr(zotero_sync, "_register", slow)
    svc = get_services(app)
    svc.syncer().start(str(z.root))
    assert inside.wait(30)
    svc.close()
    assert not svc.syncer().state()["running"] and svc.syncer().state()["error"] is None
    # it stopped after the PDF it was on (the library has two): registered, saved, and no full sync's save
    state = load_state(svc.settings["INDEX_DIR"])
    assert len(seen) == 1 and len(state["attachments"]) == 1 and "synced_at" not in state
    svc.syncer().start(str(z.root))  # a stopping server starts no new sync
    assert not svc.syncer().state()["running"]


HOLD = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA locking_mode=EXCLUSIVE")  # as Zotero keeps its database
if sys.argv[2] == "lock":
    conn.execute("BEGIN EXCLUSIVE"); conn.execute("SELECT count(*) FROM items").fetchall(); conn.execute("COMMIT")
else:  # a write under way, big enough that pages of the file are already rewritten
    conn.execute("PRAGMA cache_size=2"); conn.execute("BEGIN")
    conn.execute("CREATE TABLE filler (x)")
    conn.executemany("INSERT INTO filler VALUES (?)", [("x" * 500,) for _ in range(2000)])
print("held", flush=True)
sys.stdin.readline()
"""


@pytest.fixture
def hold():
    """hold(db, how): another process holding the database ("lock": Zotero's exclusive lock; "write": a write
    under way); released at the end of the test."""
    procs = []

    def start(db, how):
        p = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(db), how], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert p.stdout.readline().strip() == "held"
        procs.append(p)
        return p

    yield start
    for p in procs:
        p.kill()
        p.wait()


def test_a_database_another_process_holds_locked_is_read_without_error(zot, hold):
    z, ids = zot
    hold(z.db, "lock")
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        with closing(sqlite3.connect(z.db, timeout=0.2)) as conn:
            conn.execute("SELECT count(*) FROM items").fetchall()
    snap = zotero.read(z.root, wait_s=0)
    assert ids["fava_pdf"] in {a.key for a in snap.attachments}


def test_a_database_being_written_is_waited_for_then_refused_with_what_to_do(zot, hold):
    z, _ = zot
    writer = hold(z.db, "write")
    with pytest.raises(SourcecheckError) as e:
        zotero.read(z.root, wait_s=0.5)
    assert e.value.code == "zotero_busy" and e.value.status == 409 and "Try again in a moment" in e.value.message
    writer.stdin.write("\n")  # the writer ends without committing: SQLite rolls its write back
    writer.stdin.flush()
    writer.wait(10)
    with closing(sqlite3.connect(z.db)) as conn:  # the next opening (Zotero's) rolls the journal back
        conn.execute("SELECT 1").fetchall()
    assert zotero.read(z.root, wait_s=0).items == 4


def test_a_newer_schema_is_read_when_it_can_be_and_refused_when_not(zot):
    z, ids = zot
    with z.connect() as conn:
        conn.execute("UPDATE version SET version = 130 WHERE schema = 'userdata'")
    assert zotero.read(z.root).schema == 130  # the tables it reads are as they were
    with z.connect() as conn:
        conn.execute("ALTER TABLE itemAttachments RENAME COLUMN path TO location")
    with pytest.raises(SourcecheckError) as e:
        zotero.read(z.root)
    assert e.value.code == "zotero_schema_newer" and "130" in e.value.message and "123" in e.value.message
    (z.root / "zotero.sqlite").write_bytes(b"not a database at all" * 100)
    with pytest.raises(SourcecheckError) as e:
        zotero.read(z.root)
    assert e.value.code == "zotero_unreadable"


def test_the_data_directory_is_found_on_its_own_or_said_missing(tmp_path, monkeypatch):
    home = tmp_path / "home"
    with pytest.raises(SourcecheckError) as e:
        zotero.find_data_dir(home=home)
    assert e.value.code == "zotero_not_found" and "--zotero FOLDER" in e.value.message
    standard_library(home / "Zotero", tmp_path / "made")
    assert zotero.find_data_dir(home=home) == home / "Zotero"  # the default on every system
    elsewhere = tmp_path / "Research" / "Zotero data"
    standard_library(elsewhere, tmp_path / "made2")
    monkeypatch.setattr(sys, "platform", "linux")
    prefs = home / ".zotero" / "zotero" / "abcd1234.default" / "prefs.js"
    prefs.parent.mkdir(parents=True)
    prefs.write_text(
        f'user_pref("extensions.zotero.dataDir", "{elsewhere}");\nuser_pref("extensions.zotero.useDataDir", true);\n'
    )
    assert zotero.find_data_dir(home=home) == elsewhere  # Zotero's own setting for a custom data directory
    assert zotero.find_data_dir(elsewhere / "zotero.sqlite") == elsewhere
    with pytest.raises(SourcecheckError, match="No Zotero database"):
        zotero.find_data_dir(tmp_path)


def test_the_api_syncs_a_library_shows_it_and_checks_a_collection(client, app, zot):
    z, ids = zot
    resp = client.post("/api/v1/zotero/sync", json={"data_dir": str(z.root / "nowhere")})
    assert resp.status_code == 404 and resp.get_json()["error"]["code"] == "zotero_not_found"
    resp = client.post("/api/v1/zotero/sync", json={"data_dir": str(z.root)})
    assert resp.status_code == 202, resp.get_json()
    deadline = time.monotonic() + 30
    while client.get("/api/v1/zotero").get_json()["zotero"]["sync"]["running"] and time.monotonic() < deadline:
        time.sleep(0.1)
    get_services(app).wait_idle()
    state = client.get("/api/v1/zotero").get_json()["zotero"]
    assert (state["data_dir"], state["documents"], state["ready"], state["items"]) == (str(z.root), 2, 2, 4)
    assert state["sync"] == {"running": False, "error": None, "last": state["sync"]["last"]}
    assert state["sync"]["last"]["added"] == 2 and len(state["skipped"]) == 3
    assert [(c["path"], c["documents"]) for c in state["collections"]] == [
        ("Bridges", 1),
        ("Thesis", 1),
        ("Thesis/Hallucination", 1),
    ]
    doc = next(d for d in client.get("/api/v1/documents").get_json()["documents"] if d["title"] == FAVA_TITLE)
    assert doc["doi"] == "10.48550/arXiv.2401.06855" and doc["zotero"]["key"] == ids["fava_pdf"]
    body = {"text": "The bridge opened to traffic on May 27, 1937.", "collection": "Thesis"}
    result = client.post("/api/v1/check", json=body, headers={"Accept": "application/json"}).get_json()
    assert {e["document_id"] for v in result["verdicts"] for e in v["evidence"]} == {doc["id"]}
    resp = client.post("/api/v1/check", json={**body, "collection": "Nope"})
    assert resp.status_code == 404 and resp.get_json()["error"]["code"] == "collection_not_found"
    resp = client.post("/api/v1/check", json={**body, "collection": 3})
    assert resp.status_code == 400 and resp.get_json()["error"]["code"] == "bad_request"


def test_the_old_version_of_a_changed_file_goes_even_when_the_sync_was_interrupted(zot, library, tmp_path, monkeypatch):
    z, ids = zot
    monkeypatch.setattr(zotero_sync, "SAVE_EVERY", 1)  # the state written after every attachment
    synced(library, tmp_path, z.root)
    old = by_title(library)[FAVA_TITLE]["id"]
    make_pdf(z.root / "storage" / ids["fava_pdf"] / "Mishra et al. - 2024 - FAVA.pdf", FAVA_PAGES + ["Appendix."])

    def stop_after_fava(attachment):  # FAVA's new version registered and written down, the run stopped at the next
        if attachment.key == ids["bridge_pdf"]:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sync(library, tmp_path / "index", zotero.read(z.root), progress=stop_after_fava)
    assert old in {d["id"] for d in library.list()}  # not removed yet: the run stopped first
    report = synced(library, tmp_path, z.root)
    assert old not in {d["id"] for d in library.list()} and by_title(library)[FAVA_TITLE]["pages"] == 4
    assert (report.changed, report.unchanged, report.removed) == (0, 2, 0)


def test_a_database_in_wal_mode_is_read_with_what_its_wal_holds(zot, tmp_path):
    z, _ = zot
    with closing(sqlite3.connect(z.db)) as open_elsewhere:  # while it is open, the new item stays in the WAL
        open_elsewhere.execute("PRAGMA journal_mode=WAL").fetchall()
        open_elsewhere.execute("SELECT count(*) FROM items").fetchall()  # it reads: the WAL is its too now
        otters = z.item("Otters of the Northern Coast", [("Ann", "Fisher")], "2023-00-00 2023")
        z.stored_pdf(otters, "otters.pdf", ["Sea otters were counted from boats."], tmp_path / "made")
        assert (z.root / "zotero.sqlite-wal").stat().st_size > 0
        titles = {a.title for a in zotero.read(z.root).attachments}
    assert "Otters of the Northern Coast" in titles


def test_a_users_own_failed_upload_stays_the_users_when_zotero_holds_the_same_pdf(zot, library, tmp_path):
    """A PDF the user uploaded whose ingest failed is registered again by the sync (add_pdf takes a failed record
    as new): it must stay the user's, so an item trashed in Zotero later does not take the user's document along."""
    z, ids = zot
    pdf = next((z.root / "storage" / ids["fava_pdf"]).glob("*.pdf")).read_bytes()
    mine, _ = library.add_pdf(pdf, "mine.pdf")
    library._records.update(mine["id"], status="failed")  # as an ingest stopped by a missing embedding model
    first = synced(library, tmp_path, z.root)
    assert first.added == 1  # the bridge only: the FAVA PDF was the user's already
    assert library.get(mine["id"])["zotero"]["added"] is False
    z.trash(ids["fava"])
    sync(library, tmp_path / "index", zotero.read(z.root))
    assert mine["id"] in {d["id"] for d in library.list()}


def test_a_stored_file_name_cannot_climb_out_of_its_items_folder(tmp_path):
    storage = tmp_path / "storage"
    (storage / "ABCD1234").mkdir(parents=True)
    (storage / "EFGH5678").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (storage / "LINKED11").symlink_to(tmp_path / "elsewhere")
    item = (storage / "ABCD1234").resolve()
    assert zotero._file("storage:paper.pdf", 0, storage, "ABCD1234", None) == item / "paper.pdf"
    assert zotero._file("storage:../../../etc/passwd", 0, storage, "ABCD1234", None) is None
    assert zotero._file("storage:../EFGH5678/x.pdf", 0, storage, "ABCD1234", None) is None  # another item's folder
    assert zotero._file("storage:passwd", 0, storage, "../../../etc", None) is None  # a key that climbs
    assert zotero._file("storage:x.pdf", 0, storage, ".", None) is None
    assert zotero._file("storage:x.pdf", 0, storage, "LINKED11", None) is None  # a folder symlinked elsewhere
    assert zotero._file(b"storage:x.pdf", 0, storage, "ABCD1234", None) is None  # a BLOB: no place
    assert zotero._file("attachments:../../x.pdf", 2, storage, "ABCD1234", tmp_path / "base") is None
    assert zotero._file("/home/me/papers/x.pdf", 2, storage, "ABCD1234", None).name == "x.pdf"  # linked: by design
