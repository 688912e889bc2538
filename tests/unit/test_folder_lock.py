import errno
import json
import os
import sys
import threading
from types import SimpleNamespace

import pytest
from sourcecheck.errors import IndexInUse
from sourcecheck.library import Library, folder_lock
from sourcecheck.library.embeddings import HashEmbedding


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["/usr/bin/sourcecheck", "check", "the private text being checked"])
    return tmp_path


def test_a_folder_is_opened_by_one_library_at_a_time(tmp_path, fava_pdf):
    first = Library(tmp_path / "index", HashEmbedding())
    with pytest.raises(IndexInUse) as refused:
        Library(tmp_path / "index", HashEmbedding())
    assert refused.value.status == 409 and "CHROMA_URL" in refused.value.message
    assert f"process {os.getpid()}" in refused.value.message  # names the holder
    doc, _ = first.add_pdf(fava_pdf.read_bytes(), "fava.pdf")
    first.close()
    again = Library(tmp_path / "index", HashEmbedding())  # closed: the folder is free, nothing lost
    assert [d["id"] for d in again.list()] == [doc["id"]]
    again.close()


def test_the_lock_cannot_be_deleted_from_under_a_running_library(tmp_path):
    first = Library(tmp_path / "index", HashEmbedding())
    for name in ("lock", "owner.json"):  # what a user tidying the folder might delete
        (tmp_path / "index" / name).unlink(missing_ok=True)
    with pytest.raises(IndexInUse):
        Library(tmp_path / "index", HashEmbedding())
    first.close()
    Library(tmp_path / "index", HashEmbedding()).close()


def test_a_library_opened_in_one_thread_is_released_by_another(tmp_path):
    """The server opens its library in whichever thread needs it first and closes it in another at shutdown."""
    opened = []
    thread = threading.Thread(target=lambda: opened.append(Library(tmp_path / "index", HashEmbedding())))
    thread.start()
    thread.join()
    opened[0].close()
    assert not (tmp_path / "index" / "owner.json").exists()  # the note of who held it goes with the lock
    Library(tmp_path / "index", HashEmbedding()).close()


def test_hold_notes_the_owner_without_its_arguments_and_release_removes_the_note(folder):
    held = folder_lock.hold(folder)
    owner = json.loads((folder / "owner.json").read_text(encoding="utf-8"))
    assert owner == {"pid": os.getpid(), "command": "sourcecheck check"}  # not the text being checked
    assert not (folder / "owner.json.part").exists()
    held.release()
    assert not (folder / "owner.json").exists()
    held.release()  # a second release does nothing
    folder_lock.hold(folder).release()


def test_a_second_hold_is_refused_in_the_error_shape_naming_the_holder(folder):
    held = folder_lock.hold(folder)
    with pytest.raises(IndexInUse) as refused:
        folder_lock.hold(folder)
    assert refused.value.to_dict()["code"] == "index_in_use" and refused.value.status == 409
    assert f"by another sourcecheck (process {os.getpid()}: sourcecheck check)" in refused.value.message
    assert str(folder) in refused.value.message and "INDEX_DIR" in refused.value.message
    assert json.loads((folder / "owner.json").read_text())["pid"] == os.getpid()  # the refused one wrote no note
    held.release()


@pytest.mark.parametrize("note", ["{not json", '{"pid": 1}', "[1, 2]"])
def test_an_unreadable_owner_note_still_refuses_without_naming_a_process(folder, note):
    held = folder_lock.hold(folder)
    (folder / "owner.json").write_text(note, encoding="utf-8")
    with pytest.raises(IndexInUse) as refused:
        folder_lock.hold(folder)
    assert "in use by another sourcecheck. Stop" in refused.value.message
    held.release()


def test_a_second_release_does_not_free_a_later_hold(folder):
    """The descriptor the first lock closed is reused by the next one: releasing the first again must not close it
    (the folder would be free while the second still thinks it holds it)."""
    first = folder_lock.hold(folder)
    first.release()
    second = folder_lock.hold(folder)
    first.release()
    with pytest.raises(IndexInUse):
        folder_lock.hold(folder)
    second.release()


def no_flock(*args):
    raise OSError(errno.ENOLCK, "No locks available")


@pytest.mark.parametrize(
    "fcntl",
    [None, SimpleNamespace(flock=no_flock, LOCK_EX=2, LOCK_NB=4)],
    ids=["windows", "a file system that cannot lock a folder"],
)
def test_without_a_lock_on_the_folder_a_lock_file_beside_the_data_is_held(folder, monkeypatch, fcntl):
    monkeypatch.setattr(folder_lock, "fcntl", fcntl)
    held = folder_lock.hold(folder)
    assert (folder / "lock").exists()
    with pytest.raises(IndexInUse) as refused:
        folder_lock.hold(folder)
    assert f"process {os.getpid()}" in refused.value.message
    released = threading.Thread(target=held.release)  # by another thread than the one that took it
    released.start()
    released.join()
    folder_lock.hold(folder).release()
