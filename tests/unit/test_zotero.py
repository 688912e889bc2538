"""A Zotero library as the source: a real data directory built from Zotero's own schema (tests/zotero_library.py) read
beside a running Zotero, a citation checked by its items' metadata, and the API. The sync: test_zotero_sync.py;
collections and the status: test_zotero_view.py."""

import sqlite3
import subprocess
import sys
import time
from contextlib import closing

import pytest
from pdfs import FAVA_PAGES, make_pdf
from sourcecheck import zotero
from sourcecheck.check import check_text, collect
from sourcecheck.errors import SourcecheckError
from sourcecheck.judging.judge import Judge
from sourcecheck.library import Library
from sourcecheck.library.embeddings import HashEmbedding
from sourcecheck.llm.fake import FakeModel
from sourcecheck.serve.services import get_services
from zotero_library import FAVA_TITLE, by_title, standard_library, synced

CITING = "Mishra et al. (2024) fine-tuned the editor model from Llama2-Chat 7B."


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
