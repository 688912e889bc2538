"""A Zotero library kept in step (zotero/sync.py): its PDFs added with their items' metadata, new items added, gone
ones dropped, changed files read again, an interrupted or stopped sync resumed, and the server's sync in a thread."""

import json
import threading
import time

import pytest
from pdfs import FAVA_PAGES, make_pdf
from sourcecheck import zotero
from sourcecheck.errors import SourcecheckError
from sourcecheck.library import Library
from sourcecheck.library.embeddings import HashEmbedding
from sourcecheck.serve.services import get_services
from sourcecheck.zotero import sync as zotero_sync
from sourcecheck.zotero.sync import STATE, Syncer, check_same_library, cite, load_state, skip_reason, sync
from sourcecheck.zotero.view import status
from zotero_library import FAVA_TITLE, by_title, standard_library, synced


@pytest.fixture
def library(tmp_path):
    lib = Library(tmp_path / "index", HashEmbedding(), max_file_mb=1)  # 1 MB a file: a sparse file passes it
    yield lib
    lib.close()


def attachment(path, content_type="application/pdf", link_mode=zotero.LINKED):
    return zotero.Attachment("KEY1", "ITEM1", "A title", (), (), None, None, content_type, link_mode, path, ())


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


def test_a_file_that_reads_as_damaged_for_a_moment_keeps_its_document(zot, library, tmp_path):
    """Overwritten mid-sync (Zotero rewriting it), FAVA's stored PDF read as pdf_corrupt, and the sync deleted its good
    document and said it was gone from Zotero; it stays until a readable version comes, as a missing file's does."""
    z, ids = zot
    synced(library, tmp_path, z.root)
    fava = by_title(library)[FAVA_TITLE]["id"]
    fava_file = z.root / "storage" / ids["fava_pdf"] / "Mishra et al. - 2024 - FAVA.pdf"
    good = fava_file.read_bytes()
    fava_file.write_bytes(b"%PDF-1.7\n" + b"x" * 5000)
    second = sync(library, tmp_path / "index", zotero.read(z.root))
    assert second.removed == 0 and library.get(fava)["status"] == "ready"
    assert [s["error"]["code"] for s in second.skipped if s["key"] == ids["fava_pdf"]] == ["pdf_corrupt"]
    fava_file.write_bytes(good)  # written whole again: the same document, unchanged
    third = synced(library, tmp_path, z.root)
    assert (third.removed, third.changed) == (0, 0) and by_title(library)[FAVA_TITLE]["id"] == fava


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


def test_a_citation_names_one_or_two_authors_or_the_first_et_al_with_the_year():
    assert cite(["Mishra"], 2024) == "Mishra (2024)"
    assert cite(["Mishra", "Asai"], 2024) == "Mishra and Asai (2024)"
    assert cite(iter(["Mishra", "Asai", "Wang"]), 2024) == "Mishra et al. (2024)"
    assert (cite(["Mishra"], None), cite([], 2024), cite([], None)) == ("Mishra", "2024", "")


def test_an_attachment_is_read_only_when_it_is_a_pdf_on_disk(tmp_path):
    pdf = make_pdf(tmp_path / "paper.pdf", FAVA_PAGES)
    assert skip_reason(attachment(pdf)) is None
    assert skip_reason(attachment(pdf, content_type="")) is None  # no type, but a .pdf name
    link = attachment(None, "text/html", zotero.LINK_ONLY)
    assert skip_reason(link)["code"] == "zotero_link_only"
    page = tmp_path / "page.html"
    page.write_text("<html></html>")
    assert skip_reason(attachment(page, "text/html")) == {
        "code": "not_a_pdf",
        "message": "not a PDF (text/html): only PDFs are read",
    }
    assert skip_reason(attachment(page, ""))["message"].startswith("not a PDF (no type)")
    gone = skip_reason(attachment(tmp_path / "unplugged" / "moss.pdf"))
    assert gone["code"] == "zotero_attachment_missing" and str(tmp_path / "unplugged" / "moss.pdf") in gone["message"]
    nowhere = skip_reason(attachment(None))  # a linked file under a base directory that is not set
    assert nowhere["code"] == "zotero_attachment_missing" and "base directory" in nowhere["message"]
    assert skip_reason(attachment(tmp_path))["code"] == "zotero_attachment_missing"  # a folder is no file


def test_another_data_directory_is_refused_only_while_the_last_one_s_pdfs_are_in_the_library(tmp_path):
    index, last = tmp_path / "index", tmp_path / "Zotero"
    index.mkdir()
    assert load_state(index) == {}
    check_same_library(index, tmp_path / "Other")  # nothing synced yet
    (index / STATE).write_text(json.dumps({"data_dir": str(last), "attachments": {}}))
    check_same_library(index, tmp_path / "Other")  # the last sync added nothing
    (index / STATE).write_text(json.dumps({"data_dir": str(last), "attachments": {"K": {"doc": "d_1"}}}))
    check_same_library(index, tmp_path / "Other" / ".." / "Zotero")  # the same folder, written another way
    with pytest.raises(SourcecheckError) as e:
        check_same_library(index, tmp_path / "Other")
    assert (e.value.code, e.value.status) == ("zotero_other_library", 409)
    assert f"1 PDFs from the Zotero library in {last}" in e.value.message


def test_the_background_sync_s_failure_is_in_its_state_and_a_bug_is_an_internal_error(tmp_path, monkeypatch):
    snap = zotero.Snapshot(tmp_path / "Zotero", 123, 0, 0, (), ())
    monkeypatch.setattr(zotero, "find_data_dir", lambda given=None: snap.data_dir)
    monkeypatch.setattr(zotero, "read", lambda data_dir: snap)
    failures = iter([SourcecheckError("The disk is full.", code="disk_full", status=507), KeyError("doc")])

    def failing(*args, **kwargs):
        raise next(failures)

    monkeypatch.setattr(zotero_sync, "sync", failing)
    syncer = Syncer(tmp_path / "index", lambda: None, lambda doc_id: None)
    assert syncer.state() == {"running": False, "error": None, "last": None}
    errors = []
    for _ in range(2):
        syncer.start()
        deadline = time.monotonic() + 30
        while syncer.state()["running"] and time.monotonic() < deadline:
            time.sleep(0.01)
        errors.append(syncer.state()["error"])
    assert errors == [
        {"code": "disk_full", "message": "The disk is full."},
        {"code": "internal_error", "message": "Something went wrong inside sourcecheck: 'doc'"},
    ]
