"""A real Zotero data directory for tests: zotero.sqlite made from Zotero's own schema (tests/data/zotero/schema.sql)
and the files in storage/<KEY>/, written as Zotero writes them (item keys, "storage:" paths, dates "YYYY-MM-DD text",
creators with fieldMode, trash in deletedItems). Each change is one short connection, as Zotero's are committed."""

import itertools
import random
import sqlite3
from contextlib import closing
from pathlib import Path

from pdfs import BRIDGE_PAGES, FAVA_PAGES, make_pdf

SCHEMA = Path(__file__).parent / "data" / "zotero" / "schema.sql"
# Rows Zotero fills in at start from its global schema, for the types, fields and creator types used here.
ITEM_TYPES = {"attachment": 3, "book": 7, "journalArticle": 22, "note": 28, "webpage": 38}
FIELDS = {"title": 1, "date": 6, "url": 13, "DOI": 26}
CREATOR_TYPES = {"author": 8, "editor": 10}
KEY_LETTERS = "23456789ABCDEFGHIJKLMNPQRSTUVWXYZ"  # Zotero's alphabet for object keys
FAVA_TITLE = "FAVA: Fine-grained Hallucination Detection and Editing"


class ZoteroLibrary:
    def __init__(self, root):
        self.root = Path(root)
        self.db = self.root / "zotero.sqlite"
        self.root.mkdir(parents=True, exist_ok=True)
        rng = random.Random(0)
        self._keys = ("".join(rng.choices(KEY_LETTERS, k=8)) for _ in itertools.count())
        version = int(SCHEMA.read_text().split()[1])  # "-- 123": the version Zotero records
        with self.connect() as conn:
            conn.executescript(SCHEMA.read_text())
            conn.execute("INSERT INTO version VALUES ('userdata', ?)", (version,))
            conn.execute("INSERT INTO libraries (libraryID, type, editable, filesEditable) VALUES (1, 'user', 1, 1)")
            conn.executemany(
                "INSERT INTO itemTypesCombined VALUES (?, ?, 1, 0)", [(i, n) for n, i in ITEM_TYPES.items()]
            )
            conn.executemany(
                "INSERT INTO fieldsCombined VALUES (?, ?, NULL, NULL, 0)", [(i, n) for n, i in FIELDS.items()]
            )
            conn.executemany("INSERT INTO creatorTypes VALUES (?, ?)", [(i, n) for n, i in CREATOR_TYPES.items()])

    def sql(self, statement, *args):
        """One statement in its own connection, committed: a change made as another program (or Zotero) makes it."""
        with self.connect() as conn:
            conn.execute(statement, args)

    def connect(self):
        """A connection that commits and closes at the end of a with block."""
        conn = sqlite3.connect(self.db)
        conn.execute("PRAGMA synchronous=OFF")  # a test's file: no need to wait for the disk at each commit

        class Done(closing):
            def __exit__(self, *exc):
                if exc[0] is None:
                    conn.commit()
                return super().__exit__(*exc)

        return Done(conn)

    def _item(self, conn, kind, fields=()):
        key = next(self._keys)
        cur = conn.execute("INSERT INTO items (itemTypeID, libraryID, key) VALUES (?, 1, ?)", (ITEM_TYPES[kind], key))
        for name, value in fields:
            conn.execute("INSERT OR IGNORE INTO itemDataValues (value) VALUES (?)", (value,))
            (value_id,) = conn.execute("SELECT valueID FROM itemDataValues WHERE value = ?", (value,)).fetchone()
            conn.execute("INSERT INTO itemData VALUES (?, ?, ?)", (cur.lastrowid, FIELDS[name], value_id))
        return cur.lastrowid, key

    def item(self, title, creators=(), date=None, doi=None, kind="journalArticle"):
        """A regular item; creators: (first, last) pairs, (None, name) for one field, or (first, last, "editor")."""
        fields = [("title", title)] + ([("date", date)] if date else []) + ([("DOI", doi)] if doi else [])
        with self.connect() as conn:
            item_id, _ = self._item(conn, kind, fields)
            for i, (first, last, *kind_) in enumerate(creators):
                mode = 1 if first is None else 0
                conn.execute(
                    "INSERT OR IGNORE INTO creators (firstName, lastName, fieldMode) VALUES (?, ?, ?)",
                    (first or "", last, mode),
                )
                (creator_id,) = conn.execute(
                    "SELECT creatorID FROM creators WHERE firstName = ? AND lastName = ? AND fieldMode = ?",
                    (first or "", last, mode),
                ).fetchone()
                kind_id = CREATOR_TYPES[kind_[0] if kind_ else "author"]
                conn.execute("INSERT INTO itemCreators VALUES (?, ?, ?, ?)", (item_id, creator_id, kind_id, i))
        return item_id

    def attachment(self, parent, name, content_type="application/pdf", data=None, linked=None, link_mode=None):
        """A stored file (storage/KEY/name, with data), a linked file (the path linked), or a link (link_mode 3).
        Returns the attachment's key."""
        with self.connect() as conn:
            item_id, key = self._item(conn, "attachment", [("title", name)])
            mode = link_mode if link_mode is not None else 2 if linked else 0
            path = str(linked) if linked else None if mode == 3 else f"storage:{name}"
            conn.execute(
                "INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) "
                "VALUES (?, ?, ?, ?, ?)",
                (item_id, parent, mode, content_type, path),
            )
        if data is not None and not linked:
            (self.root / "storage" / key).mkdir(parents=True)
            (self.root / "storage" / key / name).write_bytes(data)
        return key

    def stored_pdf(self, parent, name, pages, tmp):
        """A real PDF of these pages, stored by Zotero; returns the attachment's key."""
        return self.attachment(parent, name, data=make_pdf(Path(tmp) / name, pages).read_bytes())

    def note(self, parent=None, text="<p>Read section 3 again.</p>"):
        with self.connect() as conn:
            item_id, _ = self._item(conn, "note")
            conn.execute(
                "INSERT INTO itemNotes (itemID, parentItemID, note, title) VALUES (?, ?, ?, '')",
                (item_id, parent, text),
            )
        return item_id

    def collection(self, name, parent=None, conn=None):
        """A collection's id; written in conn's transaction when given (thousands at once), else committed now."""
        if conn is None:
            with self.connect() as own:
                return self.collection(name, parent, own)
        cur = conn.execute(
            "INSERT INTO collections (collectionName, parentCollectionID, libraryID, key) VALUES (?, ?, 1, ?)",
            (name, parent, next(self._keys)),
        )
        return cur.lastrowid

    def add_to(self, collection, item):
        with self.connect() as conn:
            conn.execute("INSERT INTO collectionItems (collectionID, itemID) VALUES (?, ?)", (collection, item))

    def trash(self, item):
        with self.connect() as conn:
            conn.execute("INSERT INTO deletedItems (itemID) VALUES (?)", (item,))

    def erase(self, item):
        """Deleted for good (the trash emptied): the item and its children's rows go."""
        with self.connect() as conn:
            children = [
                r[0] for r in conn.execute("SELECT itemID FROM itemAttachments WHERE parentItemID = ?", (item,))
            ]
            for table in ("itemAttachments", "itemData", "itemCreators", "collectionItems", "deletedItems", "items"):
                conn.executemany(f"DELETE FROM {table} WHERE itemID = ?", [(i,) for i in [item, *children]])


def standard_library(root, tmp):
    """The library most tests use. Returns (ZoteroLibrary, {name: key or id}):
    - FAVA (journal article, 3 authors, 2024, a DOI), its PDF stored, in Thesis/Hallucination, with a child note;
    - the bridge book (an institution as author, 1937), its PDF linked from outside the data directory, in Bridges;
    - a web page with an HTML snapshot and a link (neither read);
    - a trashed item with a stored PDF; an item whose linked PDF is missing; a standalone note."""
    z = ZoteroLibrary(root)
    tmp = Path(tmp)
    tmp.mkdir(parents=True, exist_ok=True)
    ids = {}
    ids["fava"] = z.item(
        FAVA_TITLE,
        [("Abhika", "Mishra"), ("Akari", "Asai"), ("Yizhong", "Wang")],
        "2024-00-00 2024",
        "10.48550/arXiv.2401.06855",
    )
    ids["fava_pdf"] = z.stored_pdf(ids["fava"], "Mishra et al. - 2024 - FAVA.pdf", FAVA_PAGES, tmp)
    z.note(ids["fava"])
    ids["bridge"] = z.item(
        "The Golden Gate Bridge", [(None, "Golden Gate Bridge District")], "1937-05-27 May 27, 1937", kind="book"
    )
    (tmp / "linked").mkdir(exist_ok=True)
    linked = make_pdf(tmp / "linked" / "bridge.pdf", BRIDGE_PAGES)
    ids["bridge_pdf"] = z.attachment(ids["bridge"], "bridge.pdf", linked=linked)
    web = z.item("Otters at the harbour", [("Ann", "Fisher")], "2023-00-00 2023", kind="webpage")
    ids["snapshot"] = z.attachment(web, "Otters.html", "text/html", b"<html><body>Otters</body></html>")
    ids["link"] = z.attachment(web, "Otters (link)", "text/html", link_mode=3)
    ids["trashed"] = z.item("A retracted paper", [("Bo", "Lind")], "2020-00-00 2020")
    ids["trashed_pdf"] = z.stored_pdf(ids["trashed"], "retracted.pdf", ["Retracted. Everything here was wrong."], tmp)
    z.trash(ids["trashed"])
    gone = z.item("A paper on a drive not plugged in", [("Cy", "Moss")], "2019-00-00 2019")
    ids["missing_pdf"] = z.attachment(gone, "moss.pdf", linked=tmp / "unplugged" / "moss.pdf")
    z.note(None, "<p>Ideas for chapter 2</p>")
    thesis = z.collection("Thesis")
    ids["thesis"], ids["hallucination"] = thesis, z.collection("Hallucination", thesis)
    ids["bridges"] = z.collection("Bridges")
    z.add_to(ids["hallucination"], ids["fava"])
    z.add_to(ids["bridges"], ids["bridge"])
    return z, ids


def synced(library, tmp_path, data_dir):
    """A sync into the library whose index is tmp_path / "index", then the ingest of what it queued (as the CLI
    does); returns the sync's report."""
    from sourcecheck import zotero
    from sourcecheck.zotero.sync import sync

    report = sync(library, tmp_path / "index", zotero.read(data_dir))
    done = list(library.ingest_many(report.queued))
    assert all(d["status"] == "ready" for d in done), done
    return report


def by_title(library):
    return {d["title"]: d for d in library.list()}
