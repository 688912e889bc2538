"""Where a library keeps its document records and its PDF copies: in memory (evaluation and tests); in its folder
(documents.json, files/); or, for a library several backends share, the records on the Chroma server (one JSON
string per document, beside the chunks) and the PDFs in this backend's folder."""

import json
import os
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sourcecheck.errors import NotFound
from sourcecheck.library import store
from sourcecheck.pdf import files

Record = dict[str, Any]  # a document as GET /documents lists it (new_record)
COMPACT_AFTER = 200  # documents.log lines before documents.json is written anew, in a small library


def new_record(doc_id: str, filename: str, sha256: str | None, status: str = "queued", **fields: Any) -> Record:
    """A new document's record, as GET /documents lists it."""
    return {
        "id": doc_id,
        "filename": filename,
        "title": "",
        "authors": [],
        "authors_listed": False,  # a whole list (the PDF's metadata, Zotero's creators), not page 1's first row
        "year": None,
        "sha256": sha256,
        "pages": 0,
        "chunks": 0,
        "index_version": None,  # the library's INDEX_VERSION when it was last indexed
        "status": status,
        "progress": 0.0,
        "error": None,
        "added_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        **fields,
    }


def make_folder(path: Path) -> None:
    """The library's folder with files/ in it. One made here is the user's alone (0700: the PDFs and the token); a
    folder that was there already keeps its mode (a shared folder stays shared; files/ and the token are 0700/0600)."""
    files.private_folder(path)
    (path / "files").mkdir(mode=0o700, exist_ok=True)


def open_records(
    path: Path | None, client: store.Client, chunks: str, url: str | None, lock: threading.RLock
) -> "Records":
    """The records of the library whose chunks are in the collection named chunks (chunks_<model>)."""
    if path is None:
        return Records(lock)
    if url:
        return ServerRecords(path, store.collection(client, chunks.replace("chunks_", "documents_"), None, url), lock)
    return FolderRecords(path, lock)


class Records:
    """The document records, {id: record} in docs, and the PDF copies; kept in memory here, elsewhere by the
    subclasses. Read whole, written one change at a time, under the library's lock (lock)."""

    shared = False  # whether other backends write the records too: refresh() then reads them again

    def __init__(self, lock: threading.RLock) -> None:
        self.lock = lock
        self._pdfs: dict[str, bytes] = {}  # an in-memory library's PDFs
        self.docs: dict[str, Record] = self._load()

    def get(self, doc_id: str) -> Record:
        """A copy of the record."""
        with self.lock:
            if doc_id not in self.docs:
                self.refresh()  # perhaps added by another backend of a shared library
            if doc_id not in self.docs:
                raise NotFound(
                    f"No document with id {doc_id!r} is in your library: it was deleted, or never added.",
                    code="document_not_found",
                )
            return dict(self.docs[doc_id])

    def list(self) -> list[Record]:
        """Copies of the records, oldest first."""
        with self.lock:
            self.refresh()
            return [dict(d) for d in sorted(self.docs.values(), key=lambda d: d["added_at"])]

    def put(self, record: Record) -> None:
        """Add or replace a record, and write it."""
        with self.lock:
            self.docs[record["id"]] = record
            self._save(record["id"])

    def update(self, doc_id: str, **fields: Any) -> bool:
        """Change a record and write it; False when the document is gone (deleted here, or by another backend of
        a shared library: then it is dropped here too, not written back)."""
        with self.lock:
            if doc_id not in self.docs:
                return False
            if fields.get("status") != "deleting" and self._deleted_elsewhere(doc_id):
                del self.docs[doc_id]
                return False
            self.docs[doc_id].update(fields)
            self._save(doc_id)
            return True

    def remove(self, doc_id: str) -> None:
        """Drop a record and its PDF."""
        with self.lock:
            self.remove_pdf(doc_id)
            del self.docs[doc_id]
            self._save(doc_id)

    def refresh(self) -> None:
        """With a Chroma server, take in the records other backends wrote (this one's are already there)."""
        if self.shared:
            self.docs = self._load()

    def _load(self) -> dict[str, Record]:
        return {}

    def _save(self, doc_id: str) -> None:
        """Write what changed: doc_id's record, or its removal when docs no longer has it."""

    def _deleted_elsewhere(self, doc_id: str) -> bool:
        """Whether another backend deleted the document or is deleting it."""
        return False

    # -- the PDFs ------------------------------------------------------------------------------------------

    def write_pdf(self, doc_id: str, data: bytes) -> None:
        self._pdfs[doc_id] = data

    def has_pdf(self, doc_id: str) -> bool:
        return doc_id in self._pdfs

    def read_pdf(self, doc_id: str) -> bytes:
        return self._pdfs[doc_id]

    def pdf_path(self, doc_id: str) -> Path | None:
        """The PDF's file; None when it is kept in memory."""
        return None

    def remove_pdf(self, doc_id: str) -> None:
        self._pdfs.pop(doc_id, None)

    def stored_bytes(self) -> int:
        """The size of the PDFs kept."""
        return sum(map(len, self._pdfs.values()))


class FolderRecords(Records):
    """Records in path/documents.json, PDFs in path/files/. Each change is one line appended to documents.log;
    documents.json is written anew only when the log has grown as long as the library (so a change costs the same
    in a library of ten documents or of a hundred thousand, where rewriting the whole file made a large library's
    first sync quadratic)."""

    def __init__(self, path: Path, lock: threading.RLock) -> None:
        self.path = path
        self._logged, self._torn = 0, False  # lines in documents.log; whether its last is cut short
        super().__init__(lock)

    def _load(self) -> dict[str, Record]:
        records = self.path / "documents.json"
        docs = {d["id"]: d for d in json.loads(records.read_text())} if records.exists() else {}
        log = self.path / "documents.log"
        text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
        self._torn = not text.endswith("\n") and bool(text)  # the next line must not join a torn one
        lines = text.splitlines()
        for line in lines:
            try:
                change = json.loads(line)
            except ValueError:  # the last line, torn by a crash mid-write: that change was never acknowledged
                continue
            if change.get("record") is not None:
                docs[change["id"]] = change["record"]
            else:
                docs.pop(change.get("id"), None)
        self._logged = len(lines)
        return docs

    def _save(self, doc_id: str) -> None:
        """One line: the record as it is now, or its removal; then, once the log is as long as the library, the
        whole file written anew and the log emptied."""
        line = json.dumps({"id": doc_id, "record": self.docs.get(doc_id)}, ensure_ascii=False)
        with open(self.path / "documents.log", "a", encoding="utf-8") as log:
            log.write("\n" * self._torn + line + "\n")
        self._torn = False
        self._logged += 1
        if self._logged >= max(COMPACT_AFTER, len(self.docs)) or not (self.path / "documents.json").exists():
            tmp = self.path / "documents.json.tmp"
            tmp.write_text(json.dumps(list(self.docs.values()), indent=1))
            os.replace(tmp, self.path / "documents.json")  # atomic: a crash never leaves half a file
            # a crash here replays the log onto the new file: every change is in both, the log's last line for a
            # document is its record in the file, so the replay gives the same records
            (self.path / "documents.log").write_text("")
            self._logged = 0

    def write_pdf(self, doc_id: str, data: bytes) -> None:
        self._file(doc_id).write_bytes(data)

    def has_pdf(self, doc_id: str) -> bool:
        return self._file(doc_id).exists()

    def read_pdf(self, doc_id: str) -> bytes:
        return self._file(doc_id).read_bytes()

    def pdf_path(self, doc_id: str) -> Path | None:
        return self._file(doc_id)

    def remove_pdf(self, doc_id: str) -> None:
        self._file(doc_id).unlink(missing_ok=True)

    def stored_bytes(self) -> int:
        return sum(f.stat().st_size for f in (self.path / "files").glob("*.pdf"))

    def _file(self, doc_id: str) -> Path:
        return self.path / "files" / f"{doc_id}.pdf"


class ServerRecords(FolderRecords):
    """Records in a collection on the Chroma server, one JSON string per document (each write is atomic there);
    PDFs in path/files/, so a document another backend added has its record here but perhaps not its PDF."""

    shared = True

    def __init__(self, path: Path, collection: store.Collection, lock: threading.RLock) -> None:
        self._collection = collection
        super().__init__(path, lock)

    def _load(self) -> dict[str, Record]:
        got = self._collection.get(include=["documents"])
        return {doc_id: json.loads(text) for doc_id, text in zip(got["ids"], got["documents"])}

    def _save(self, doc_id: str) -> None:
        """The one record."""
        if doc_id in self.docs:
            self._collection.upsert(ids=[doc_id], documents=[json.dumps(self.docs[doc_id])], embeddings=[[1.0]])
        else:
            self._collection.delete(ids=[doc_id])

    def _deleted_elsewhere(self, doc_id: str) -> bool:
        """Whether the document's record is gone from the server or says it is being deleted."""
        got = self._collection.get(ids=[doc_id], include=["documents"])
        return not got["ids"] or json.loads(got["documents"][0])["status"] == "deleting"


def pdf_elsewhere(doc: Record) -> NotFound:
    """The error for a document of a shared library whose PDF is not in this backend's folder."""
    return NotFound(
        f"{doc['filename']} was added to the shared library by another sourcecheck; its PDF is "
        "not on this computer. Its passages are still searched; add the PDF here to open it.",
        code="document_file_elsewhere",
    )
