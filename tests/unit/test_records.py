"""records.py: a folder library's records, one line per change and the whole file now and then."""

import json
import threading

from sourcecheck import records
from sourcecheck.records import FolderRecords, new_record


def reopen(path):
    return FolderRecords(path, threading.RLock()).docs


def test_changes_are_appended_and_the_whole_file_is_written_only_as_often_as_the_library_doubles(tmp_path, monkeypatch):
    writes = []
    real = records.os.replace
    monkeypatch.setattr(records.os, "replace", lambda a, b: (writes.append(b), real(a, b)))
    r = FolderRecords(tmp_path, threading.RLock())
    for i in range(5000):  # a large first sync: each document added, then two updates
        r.put(new_record(f"d{i}", f"{i}.pdf", None))
        r.update(f"d{i}", status="indexing", progress=0.5)
        r.update(f"d{i}", status="ready", progress=1.0, chunks=i)
    # 15,000 changes; whole-file writes: the first, then one each time the log grew as long as the library
    assert len(writes) <= 20, len(writes)
    docs = reopen(tmp_path)
    assert len(docs) == 5000 and docs["d4321"]["status"] == "ready" and docs["d4321"]["chunks"] == 4321
    r.remove("d7")
    assert "d7" not in reopen(tmp_path) and len(reopen(tmp_path)) == 4999


def test_a_line_torn_by_a_crash_loses_only_that_change(tmp_path):
    r = FolderRecords(tmp_path, threading.RLock())
    r.put(new_record("a", "a.pdf", None))
    r.update("a", status="ready")
    with open(tmp_path / "documents.log", "a") as log:
        log.write('{"id": "a", "record": {"id": "a", "sta')  # the power went out here
    docs = reopen(tmp_path)
    assert docs["a"]["status"] == "ready"
    # and a library reopened after it writes on: the next change is read back
    again = FolderRecords(tmp_path, threading.RLock())
    again.update("a", title="Kept")
    assert reopen(tmp_path)["a"]["title"] == "Kept"


def test_a_crash_between_writing_the_file_and_emptying_the_log_replays_the_same_changes(tmp_path):
    r = FolderRecords(tmp_path, threading.RLock())
    for i in range(300):
        r.put(new_record(f"d{i}", f"{i}.pdf", None))
    log = (tmp_path / "documents.log").read_text()
    snapshot = json.loads((tmp_path / "documents.json").read_text())
    # documents.json holds every record; an old log replayed onto it sets the records it names to what they were
    (tmp_path / "documents.json").write_text(json.dumps(list(r.docs.values())))
    (tmp_path / "documents.log").write_text(log)
    assert reopen(tmp_path) == r.docs and len(snapshot) < 300
