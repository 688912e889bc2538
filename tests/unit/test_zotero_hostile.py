"""A Zotero library that is large, odd or hostile (a real zotero.sqlite from Zotero's schema, real PDFs, real FIFOs):
what a read of it finds. What a sync and the status do with one: test_zotero_sync.py, test_zotero_view.py."""

import os
import threading

import pytest
from sourcecheck import zotero
from sourcecheck.errors import SourcecheckError
from sourcecheck.library import records
from zotero_library import ZoteroLibrary


def test_a_journal_that_blocks_on_open_does_not_hang_the_read(zot):
    z, _ = zot
    os.mkfifo(z.root / "zotero.sqlite-journal")
    done = []
    reader = threading.Thread(target=lambda: done.append(zotero.read(z.root)), daemon=True)
    reader.start()
    reader.join(20)
    assert done and len(done[0].attachments) == 5  # the trashed one is not listed


def test_odd_values_in_the_database_are_read_or_refused_clearly(zot):
    z, ids = zot
    z.sql(
        "UPDATE itemAttachments SET path = X'00ff' WHERE itemID = (SELECT itemID FROM items WHERE key = ?)",
        ids["fava_pdf"],
    )
    z.sql("UPDATE itemDataValues SET value = CAST(X'4f74746572ff' AS TEXT) WHERE value = 'Otters at the harbour'")
    z.sql("UPDATE itemDataValues SET value = ? WHERE value = 'The Golden Gate Bridge'", "Bridge\x00\n\u202e\x1b[2J")
    snap = zotero.read(z.root)
    found = {a.key: a for a in snap.attachments}
    assert found[ids["fava_pdf"]].path is None  # a BLOB where the path should be: the file is not found
    assert found[ids["bridge_pdf"]].title == "Bridge [2J"  # a newline is a space; NUL, RLO and ESC go
    assert "Otter\ufffd" in {a.title for a in snap.attachments}
    z.sql("UPDATE version SET version = 'abc' WHERE schema = 'userdata'")
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
