"""records.py: a folder library's records, one line per change and the whole file now and then."""

import threading

from sourcecheck.library import records
from sourcecheck.library.records import FolderRecords, new_record


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


def test_a_crash_between_writing_the_file_and_emptying_the_log_replays_the_same_changes(tmp_path, monkeypatch):
    r = FolderRecords(tmp_path, threading.RLock())
    for i in range(records.COMPACT_AFTER - 1):
        r.put(new_record(f"d{i}", f"{i}.pdf", None))
    r.update("d1", title="Changed")
    # the change that fills the log writes the whole file; the power goes out before the log is emptied
    real, cuts = records.Path.write_text, []

    def cut(path, text, *args, **kwargs):
        if path.name == "documents.log":
            cuts.append(path)
            raise KeyboardInterrupt("power out")
        return real(path, text, *args, **kwargs)

    monkeypatch.setattr(records.Path, "write_text", cut)
    try:
        r.remove("d2")
    except KeyboardInterrupt:
        pass
    monkeypatch.undo()
    assert cuts, "the last change wrote the whole file"
    docs = reopen(tmp_path)  # the old log replayed onto the new file brings back no older state
    assert "d2" not in docs and docs["d1"]["title"] == "Changed" and len(docs) == records.COMPACT_AFTER - 2
