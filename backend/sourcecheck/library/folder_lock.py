"""One process at a time in an index folder.

Chroma's local store, the lexical index and the records (documents.json and .log) are each written by one process:
two servers on one folder each kept their own view, lost each other's documents and left chunks without records
(issue 37). The first process to open a folder holds an OS lock on it (flock on the folder itself on Unix, LockFileEx
on a lock file on Windows; released by the OS when the process dies, so a crash leaves nothing to clean up) and writes
who it is beside the lock, so the next one can say which process to stop. Several backends share one library through a
Chroma server instead.
"""

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

from filelock import FileLock, Timeout

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

from sourcecheck.errors import IndexInUse

LOCK, OWNER = "lock", "owner.json"  # Windows' lock file is truncated by each attempt: the owner is kept apart


class FolderLock:
    """The held lock of one folder; release() frees it (from any thread) and removes the owner's note."""

    def __init__(self, path: Path, release: Callable[[], None]) -> None:
        self.path = path
        self._release: Callable[[], None] | None = release

    def release(self) -> None:
        if self._release is None:
            return  # released already: a second call must not close a descriptor number reused meanwhile
        release, self._release = self._release, None
        (self.path / OWNER).unlink(missing_ok=True)
        release()


def hold(path: Path) -> FolderLock:
    """Lock the folder for this process; raise IndexInUse naming the process that holds it."""
    release = (_lock_folder(path) if fcntl else None) or _lock_file(path)
    # the program and its command, not its arguments (`sourcecheck check "the text being checked"`)
    owner = {"pid": os.getpid(), "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:2]])}
    tmp = path / (OWNER + ".part")
    tmp.write_text(json.dumps(owner), encoding="utf-8")
    os.replace(tmp, path / OWNER)
    return FolderLock(path, release)


def _lock_folder(path: Path) -> Callable[[], None] | None:
    """flock on the folder itself (POSIX): a lock no one can delete from under a running server, as they could a
    lock file (a second server then got in and documents were lost). None where the file system cannot lock a
    folder (NFS emulates flock with fcntl, which wants a file open for writing): the lock file then."""
    assert fcntl is not None
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise IndexInUse(_in_use(path)) from None
    except OSError:
        os.close(fd)
        return None
    return lambda: os.close(fd)  # closing the descriptor drops the lock


def _lock_file(path: Path) -> Callable[[], None]:
    """Windows: LockFileEx on a lock file beside the data (a folder cannot be opened for locking there); the OS keeps
    an open file from being deleted, so the lock cannot be removed under a running server either."""
    # thread_local=False: the library may be opened by one thread (a request, the warm-up) and closed by another
    lock = FileLock(path / LOCK, timeout=0, thread_local=False)
    try:
        lock.acquire()
    except Timeout:
        raise IndexInUse(_in_use(path)) from None
    return lambda: lock.release()


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
