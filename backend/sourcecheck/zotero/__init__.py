"""Reading a Zotero library: where its data directory is, its PDF attachments with their items' metadata (title,
creators, year, DOI) and its collections, from zotero.sqlite read-only beside a running Zotero.

Zotero keeps zotero.sqlite open with an exclusive lock, so a plain connection gets "database is locked". SQLite's
immutable mode reads the file without taking or looking at locks, and so without disturbing Zotero; what it cannot
see is a write under way. So a read counts only when no write was under way before it (the rollback journal's
header says so) and the file is the same after it as before; otherwise it is tried again, then refused (zotero_busy).
A database in WAL mode is copied with its WAL and the copy read, since immutable mode would not see the WAL.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from sourcecheck.errors import SourcecheckError
from sourcecheck.library.filenames import clean_text
from sourcecheck.pdf import files

TESTED_SCHEMA = 123  # Zotero 7's userdata schema, as tests/data/zotero/schema.sql; a newer one is read if it can be
WRITING = bytes.fromhex("d9d505f920a163d7")  # a rollback journal's first bytes while a write is under way
STORED, LINKED = (0, 1), 2  # linkMode: a file in storage/<KEY>/ (imported, or saved from a URL); a file elsewhere
LINK_ONLY = 3  # a link to a web page: no file
NOT_ITEMS = ("attachment", "note", "annotation")


@dataclass(frozen=True)
class Attachment:
    key: str  # the attachment's own key: zotero://open-pdf/library/items/KEY
    item: str | None  # its parent item's key; None for a standalone file
    title: str
    authors: tuple[str, ...]  # "First Last", in Zotero's order
    surnames: tuple[str, ...]
    year: int | None
    doi: str | None
    content_type: str
    link_mode: int
    path: Path | None  # where the file should be; None when Zotero gives no place for it
    collections: tuple[str, ...]  # keys of the collections that hold its item


@dataclass(frozen=True)
class Collection:
    key: str
    name: str
    parent: str | None  # the parent collection's key


@dataclass(frozen=True)
class Snapshot:
    """What a read found in the user's own library (group libraries are not read)."""

    data_dir: Path
    schema: int
    items: int  # regular items (not attachments, notes or annotations), outside the trash
    notes: int
    attachments: tuple[Attachment, ...]
    collections: tuple[Collection, ...]


def not_found(message: str) -> SourcecheckError:
    return SourcecheckError(message, code="zotero_not_found", status=404)


def find_data_dir(
    given: str | Path | None = None, home: Path | None = None, environ: Mapping[str, str] = os.environ
) -> Path:
    """The Zotero data directory: the one given (or the folder of a zotero.sqlite given), else the one Zotero's
    preferences name (Settings → Advanced → Files and Folders → custom data directory), else ~/Zotero, the default
    on every system."""
    if given:
        path = Path(given).expanduser()
        path = path.parent if path.name == "zotero.sqlite" else path
        if not (path / "zotero.sqlite").is_file():
            raise not_found(
                f"No Zotero database (zotero.sqlite) in {path}. Give Zotero's data directory: Zotero shows it "
                "under Settings → Advanced → Files and Folders."
            )
        return path
    home = home or Path.home()
    custom = preferences(home, environ).get("extensions.zotero.dataDir")
    for path in ([Path(custom)] if custom else []) + [home / "Zotero"]:
        if (path / "zotero.sqlite").is_file():
            return path
    raise not_found(
        f"No Zotero library found in {home / 'Zotero'} (Zotero's default data directory), nor one named in "
        "Zotero's preferences. Is Zotero installed and has it run once? If its data is elsewhere, give that folder "
        "(side panel: Settings → Zotero; command line: `sourcecheck ingest --zotero FOLDER`); Zotero shows it under "
        "Settings → Advanced → Files and Folders."
    )


def preferences(home: Path, environ: Mapping[str, str] = os.environ, platform: str = sys.platform) -> dict[str, str]:
    """Zotero's own settings (prefs.js of its profile) that say where its files are: a custom data directory
    (extensions.zotero.dataDir, when useDataDir is on) and the base folder of relative linked files."""
    if platform == "win32":
        profiles = Path(environ.get("APPDATA") or home / "AppData" / "Roaming") / "Zotero" / "Zotero" / "Profiles"
    elif platform == "darwin":
        profiles = home / "Library" / "Application Support" / "Zotero" / "Profiles"
    else:
        profiles = home / ".zotero" / "zotero"
    found: dict[str, str] = {}
    for prefs in sorted(profiles.glob("*/prefs.js")):
        text = prefs.read_text(encoding="utf-8", errors="replace")
        for name, value in re.findall(r'user_pref\("(extensions\.zotero\.[A-Za-z]+)",\s*(.+?)\);', text):
            found[name] = _js_value(value)
    if found.get("extensions.zotero.useDataDir") != "true":
        found.pop("extensions.zotero.dataDir", None)
    return found


def _js_value(text: str) -> str:
    """A prefs.js value as text: a JS string unescaped (its escapes are JSON's), true/false/numbers as written."""
    try:
        return str(json.loads(text)) if text.startswith('"') else text
    except ValueError:
        return text.strip('"')


def read(data_dir: Path, wait_s: float = 5.0, base_dir: Path | None = None) -> Snapshot:
    """The library as zotero.sqlite says now. Waits up to wait_s for a write of Zotero's to end (zotero_busy after).
    base_dir: the folder relative linked files are under (Zotero's "Linked Attachment Base Directory")."""
    db = data_dir / "zotero.sqlite"
    if base_dir is None:
        base = preferences(Path.home()).get("extensions.zotero.baseAttachmentPath")
        base_dir = Path(base) if base else None
    deadline = time.monotonic() + wait_s
    while True:
        before = _file_state(db)
        if before[-1] != WRITING:
            with _open(db) as conn:
                snapshot = _query(conn, data_dir, base_dir)
            if _file_state(db) == before:
                return snapshot
        if time.monotonic() >= deadline:
            raise SourcecheckError(
                "Zotero is writing its database right now (or stopped in the middle of a write). Try again in a "
                "moment; if this stays, open Zotero once and close it: it finishes the write when it starts.",
                code="zotero_busy",
                status=409,
            )
        time.sleep(0.2)


def _file_state(db: Path) -> tuple[int, int, int, bytes]:
    """What changes when Zotero writes: the file's size and time, its WAL's size and its journal's header."""
    st = db.stat()
    wal = db.with_name(db.name + "-wal")
    journal = db.with_name(db.name + "-journal")
    # opened without blocking: a FIFO or a hung mount in its place must not hang the sync (files.head)
    return st.st_size, st.st_mtime_ns, wal.stat().st_size if wal.exists() else 0, files.head(journal, 8)


@contextmanager
def _open(db: Path) -> Iterator[sqlite3.Connection]:
    wal = db.with_name(db.name + "-wal")
    if wal.exists() and wal.stat().st_size:  # WAL mode: the latest writes are in the WAL, which immutable mode skips
        with tempfile.TemporaryDirectory(prefix="sourcecheck-zotero-") as tmp:
            copy = Path(tmp) / db.name
            shutil.copyfile(db, copy)
            shutil.copyfile(wal, Path(tmp) / wal.name)
            with closing(sqlite3.connect(copy)) as conn:
                yield conn
        return
    with closing(sqlite3.connect(f"{db.resolve().as_uri()}?immutable=1", uri=True)) as conn:
        yield conn


def _query(conn: sqlite3.Connection, data_dir: Path, base_dir: Path | None) -> Snapshot:
    # a title that is not UTF-8 reads with U+FFFD in it, rather than refusing the whole library
    conn.text_factory = lambda b: b.decode("utf-8", "replace")
    try:
        schema = int(conn.execute("SELECT version FROM version WHERE schema = 'userdata'").fetchone()[0])
    except (sqlite3.DatabaseError, TypeError, ValueError) as e:  # no such table or row; a version that is no number
        raise SourcecheckError(
            f"{data_dir / 'zotero.sqlite'} cannot be read as a Zotero database ({e}). Give Zotero's data directory.",
            code="zotero_unreadable",
            status=422,
        ) from None
    try:
        return _library(conn, data_dir, base_dir, schema)
    except sqlite3.DatabaseError as e:
        if schema > TESTED_SCHEMA:
            raise SourcecheckError(
                f"Zotero's database is newer (schema {schema}) than the one this sourcecheck was tested with "
                f"({TESTED_SCHEMA}) and reads differently ({e}). Update sourcecheck; until then, add the PDFs from "
                "Zotero's storage folder with `sourcecheck ingest FOLDER`.",
                code="zotero_schema_newer",
                status=422,
            ) from None
        raise SourcecheckError(
            f"Zotero's database could not be read ({e}).", code="zotero_unreadable", status=422
        ) from None


def _library(conn: sqlite3.Connection, data_dir: Path, base_dir: Path | None, schema: int) -> Snapshot:
    row = conn.execute("SELECT libraryID FROM libraries WHERE type = 'user'").fetchone()
    if row is None:
        raise sqlite3.DatabaseError("it has no user library")
    library = row[0]
    items = {  # itemID -> (key, type) of what is in the library and not in the trash
        row[0]: (row[1], row[2])
        for row in conn.execute(
            "SELECT i.itemID, i.key, t.typeName FROM items i JOIN itemTypesCombined t USING (itemTypeID) "
            "WHERE i.libraryID = ? AND i.itemID NOT IN (SELECT itemID FROM deletedItems)",
            (library,),
        )
    }
    fields: dict[int, dict[str, str]] = {}
    for item, name, value in conn.execute(
        "SELECT d.itemID, f.fieldName, v.value FROM itemData d JOIN fieldsCombined f USING (fieldID) "
        "JOIN itemDataValues v USING (valueID) WHERE f.fieldName IN ('title', 'date', 'DOI')"
    ):
        fields.setdefault(item, {})[name] = clean_text(str(value))
    creators: dict[int, list[tuple[str, str, str]]] = {}
    for item, first, last, mode, kind in conn.execute(
        "SELECT c.itemID, p.firstName, p.lastName, p.fieldMode, t.creatorType FROM itemCreators c "
        "JOIN creators p USING (creatorID) JOIN creatorTypes t USING (creatorTypeID) ORDER BY c.itemID, c.orderIndex"
    ):
        first, last = clean_text(str(first or "")), clean_text(str(last or ""))
        name = last if mode == 1 else " ".join(filter(None, (first, last)))  # 1: one field (an institution)
        creators.setdefault(item, []).append((name, last or name, kind))
    trashed = (
        {r[0] for r in conn.execute("SELECT collectionID FROM deletedCollections")}
        if _has(conn, "deletedCollections")
        else set()
    )
    rows = conn.execute(
        "SELECT collectionID, key, collectionName, parentCollectionID FROM collections WHERE libraryID = ?", (library,)
    ).fetchall()
    keys = {cid: key for cid, key, _, _ in rows}
    collections = tuple(
        Collection(key, clean_text(str(name)), keys.get(parent))
        for cid, key, name, parent in rows
        if cid not in trashed
    )
    held: dict[int, list[str]] = {}
    for cid, item in conn.execute("SELECT collectionID, itemID FROM collectionItems"):
        if cid in keys and cid not in trashed:
            held.setdefault(item, []).append(keys[cid])
    shared: dict[tuple[str, ...], tuple[str, ...]] = {}  # one tuple for the many items of the same collections
    attachments = []
    for item, parent, mode, content_type, path in conn.execute(
        "SELECT itemID, parentItemID, linkMode, contentType, path FROM itemAttachments ORDER BY itemID"
    ):
        if item not in items or (parent is not None and parent not in items):
            continue  # in the trash, or its item is, or in another library
        owner = parent if parent is not None else item
        people = creators.get(owner, [])
        authors = [p for p in people if p[2] == "author"] or people  # an edited book: its editors
        about = fields.get(owner, {})
        year = re.match(r"\d{4}", about.get("date", ""))
        attachments.append(
            Attachment(
                key=items[item][0],
                item=items[parent][0] if parent is not None else None,
                title=about.get("title") or fields.get(item, {}).get("title", ""),
                authors=tuple(p[0] for p in authors),
                surnames=tuple(p[1] for p in authors),
                year=int(year.group()) if year and year.group() != "0000" else None,
                doi=about.get("DOI") or None,
                content_type=content_type or "",
                link_mode=mode,
                path=_file(path, mode, data_dir / "storage", items[item][0], base_dir),
                collections=shared.setdefault(tuple(held.get(owner, [])), tuple(held.get(owner, []))),
            )
        )
    kinds = [kind for _, kind in items.values()]
    return Snapshot(
        data_dir,
        schema,
        sum(k not in NOT_ITEMS for k in kinds),
        kinds.count("note"),
        tuple(attachments),
        collections,
    )


def _has(conn: sqlite3.Connection, table: str) -> bool:
    return (
        conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone() is not None
    )


def _file(path: str | None, mode: int, storage: Path, key: str, base_dir: Path | None) -> Path | None:
    """Where Zotero keeps an attachment's file: "storage:NAME" in storage/<KEY>/; a linked file's own path, or
    "attachments:REL" under the base directory of linked files."""
    if not path or not isinstance(path, str) or mode == LINK_ONLY:  # a BLOB where a path should be: no place
        return None
    if path.startswith("storage:"):  # a file name, never a path: kept inside the item's own folder
        folder = _inside(storage, key)  # None for a key "..", or a storage/<KEY> symlinked elsewhere
        ok = folder is not None and folder.parent == storage.resolve()
        return _inside(folder, path.removeprefix("storage:")) if folder and ok else None
    if path.startswith("attachments:"):
        return _inside(base_dir, path.removeprefix("attachments:")) if base_dir else None
    return Path(path)  # a linked file: wherever the user keeps it, by design


def _inside(folder: Path, relative: str) -> Path | None:
    """folder/relative, or None when relative climbs out of folder ("../../x.pdf", a symlink out)."""
    found = (folder / relative).resolve()
    return found if found.is_relative_to(folder.resolve()) else None
