"""A document's file name as the library keeps it and as the API sends it back: the client's name, made safe."""

import unicodedata
from pathlib import PurePosixPath

DEFAULT = "document.pdf"  # for an upload without a name, or one that is nothing but control characters
# Cc: NUL, newlines, escapes, DEL, C1. Cs: lone surrogates, a POSIX name's undecodable bytes, which cannot be UTF-8
DROPPED = ("Cc", "Cs", "Zl", "Zp")  # and the line and paragraph separators, which break a listing's lines
# the bidirectional controls, which make a listing show "evil\u202efdp.exe" as "evilexe.pdf"
REORDERING = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def clean_filename(name: str | None) -> str:
    """The name without its folders and without control characters, which mean nothing in a file name and break
    what carries it: a NUL in the Content-Disposition header makes clients refuse the whole response (Node's
    fetch), a newline makes Werkzeug refuse to send it, an escape sequence rewrites the terminal that lists the
    library. Other characters stay: send_file sends a non-ASCII name as RFC 5987's filename*."""
    return PurePosixPath(_visible(name or "")).name or DEFAULT


def clean_text(text: str) -> str:
    """text without the characters that break a listing, a header or a terminal (as a file name is cleaned): for
    metadata from elsewhere, a Zotero title or author name."""
    return _visible("".join(" " if c in "\t\n\r\v\f\u2028\u2029" else c for c in text))  # "Title\nSub": 2 words


def _visible(text: str) -> str:
    return "".join(c for c in text if unicodedata.category(c) not in DROPPED and c not in REORDERING)
