"""One process at a time in an index folder.

Chroma's local store, the lexical index and documents.json are each written by one process: two servers on one
folder each kept their own view, lost each other's documents and left chunks without records (issue 37). The
first process to open a folder holds an OS lock on it (filelock: flock on Unix, LockFileEx on Windows; released by
the OS when the process dies, so a crash leaves nothing to clean up) and writes who it is beside the lock, so the
next one can say which process to stop. Several backends share one library through a Chroma server instead.
"""

import json
import os
import sys
from pathlib import Path

from filelock import FileLock, Timeout

from sourcecheck.errors import IndexInUse

LOCK, OWNER = "lock", "owner.json"  # the lock file's content is truncated by each attempt: the owner is kept apart


class FolderLock:
    """The held lock of one folder; release() frees it (from any thread) and removes the owner's note."""

    def __init__(self, path: Path, lock: FileLock) -> None:
        self.path, self._lock = path, lock

    def release(self) -> None:
        (self.path / OWNER).unlink(missing_ok=True)
        self._lock.release()


def hold(path: Path) -> FolderLock:
    """Lock the folder for this process; raise IndexInUse naming the process that holds it."""
    # thread_local=False: the library may be opened by one thread (a request, the warm-up) and closed by another
    lock = FileLock(path / LOCK, timeout=0, thread_local=False)
    try:
        lock.acquire()
    except Timeout:
        raise IndexInUse(_in_use(path)) from None
    # the program and its command, not its arguments (`sourcecheck check "the text being checked"`)
    owner = {"pid": os.getpid(), "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:2]])}
    tmp = path / (OWNER + ".part")
    tmp.write_text(json.dumps(owner), encoding="utf-8")
    os.replace(tmp, path / OWNER)
    return FolderLock(path, lock)


def _in_use(path: Path) -> str:
    try:
        owner = json.loads((path / OWNER).read_text(encoding="utf-8"))
        who = f"another sourcecheck (process {owner['pid']}: {owner['command']})"
    except (OSError, ValueError, KeyError, TypeError):
        who = "another sourcecheck"
    return (
        f"The library in {path} is in use by {who}. Stop that one first, or give this one its own folder "
        "(INDEX_DIR). To share one library between several backends, run a Chroma server (`chroma run --path "
        "FOLDER`) and set CHROMA_URL on each of them, each with its own INDEX_DIR."
    )
