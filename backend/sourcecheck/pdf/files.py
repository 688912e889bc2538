"""Reading a user's file from disk (a Zotero attachment, a PDF of a folder ingest) the way an upload is read: a
regular file, no larger than MAX_UPLOAD_MB, opened so that it cannot block.

A path can name a FIFO (whose open waits for a writer forever), a device, or a sparse file of terabytes; it is opened
with O_NONBLOCK and looked at through the open file (fstat, so a swap between a check and the open changes nothing),
and read only when it is a regular file of an allowed size.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from sourcecheck.errors import SourcecheckError

MB = 1024 * 1024


def too_large(path: Path, size: int, limit: int) -> SourcecheckError:
    return SourcecheckError(
        f"{path.name} is {size / MB:,.0f} MB, larger than the {limit / MB:,.0f} MB a PDF may be (MAX_UPLOAD_MB).",
        code="too_large",
        status=413,
    )


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of the regular file at path, at most limit of them; SourcecheckError (not_a_file, too_large)
    otherwise, OSError when it cannot be opened."""
    fd = _open(path)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise SourcecheckError(
                f"{path.name} is not a regular file (a folder, a pipe, a device or a socket), so it is not read.",
                code="not_a_file",
                status=422,
            )
        if st.st_size > limit:
            raise too_large(path, st.st_size, limit)
        os.set_blocking(fd, True)  # opened without blocking; read as a file is (a FUSE file may honour the flag)
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(limit + 1)  # a file that grew since fstat is still read no further than the limit
    finally:
        os.close(fd)
    if len(data) > limit:
        raise too_large(path, len(data), limit)
    return data


def _open(path: Path) -> int:
    # O_NONBLOCK: POSIX only (Windows has no FIFOs that block an open); O_BINARY: Windows only
    return os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))


def head(path: Path, n: int) -> bytes:
    """The first n bytes of a regular file, b"" for anything else (missing, a FIFO, a device): never blocks."""
    try:
        fd = _open(path)
    except OSError:
        return b""
    try:
        return os.read(fd, n) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    finally:
        os.close(fd)


def private_folder(path: Path) -> None:
    """The folder at path, made 0700 when this makes it (the user's PDFs, the token); one that was there already
    keeps its mode (a folder the user chose, perhaps shared on purpose; its token file is 0600 still)."""
    if path.exists():
        return
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        path.chmod(0o700)  # mkdir's mode is cut by the umask
    except OSError:
        pass
