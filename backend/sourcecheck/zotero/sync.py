"""A Zotero library as a source: its PDFs added to the library with their items' metadata, kept in step by each sync
(new items added, deleted or trashed ones dropped, changed files read again). What checks and the side panel read of
it (collections, links, status) is zotero/view.py's.

What the last sync found is kept in INDEX_DIR/zotero.json: each PDF attachment's document, the file's size and time
and the collections. A file whose size and time are unchanged is not read again; any other is hashed, and a document
whose bytes changed is replaced. A document the sync added says so in its record ("zotero": {"added": true}): only
those are deleted when they leave Zotero, never a PDF the user had added by hand.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sourcecheck import zotero
from sourcecheck.errors import InternalError, NotFound, SourcecheckError

if TYPE_CHECKING:  # annotations only: the caller hands over its library
    from sourcecheck.library import Library
    from sourcecheck.library.records import Record

STATE = "zotero.json"
SAVE_EVERY = 25  # attachments before the first write of the state, twice as many before each next: an interrupted
# sync resumes from the last (what it registered after that is found again by its bytes: hashed, not parsed again)
log = logging.getLogger("sourcecheck")


@dataclass
class Report:
    data_dir: str
    queued: list[str] = field(default_factory=list)  # documents to ingest: new, changed, or left half-done
    added: int = 0
    changed: int = 0  # attachments whose file changed: read again
    removed: int = 0  # attachments gone from Zotero (deleted, in the trash, no longer a PDF)
    unchanged: int = 0
    skipped: list[dict[str, Any]] = field(default_factory=list)  # {"key", "title", "file", "error": {code, message}}
    stopped: bool = False  # stopped part way (the server is stopping): the next sync goes on from what is saved


def load_state(index_dir: str | Path) -> dict[str, Any]:
    try:
        return dict(json.loads((Path(index_dir) / STATE).read_text()))
    except FileNotFoundError:
        return {}


def _save(index_dir: str | Path, state: Mapping[str, Any]) -> None:
    tmp = Path(index_dir) / (STATE + ".tmp")
    tmp.write_text(json.dumps(state, indent=1))
    os.replace(tmp, Path(index_dir) / STATE)  # atomic: an interrupted sync leaves the last whole state


def check_same_library(index_dir: str | Path, data_dir: Path) -> None:
    """Refuse (409 zotero_other_library) a sync of another data directory than the last sync's while that one's
    documents are in the library: the sync would drop them all (a typo in the folder, a second Zotero profile)."""
    state = load_state(index_dir)
    last, documents = state.get("data_dir"), len(state.get("attachments", {}))
    if last and documents and Path(last).resolve() != data_dir.resolve():
        raise SourcecheckError(
            f"The library holds {documents:,} PDFs from the Zotero library in {last}; syncing {data_dir} instead "
            "would remove those the sync added. Sync that folder again, or confirm the switch (side panel: "
            '"Switch library"; command line: --replace; API: "replace": true).',
            code="zotero_other_library",
            status=409,
        )


def skip_reason(a: zotero.Attachment) -> dict[str, str] | None:
    """Why an attachment is not read (its code and a sentence), or None for a PDF on disk."""
    if a.link_mode == zotero.LINK_ONLY:
        return {"code": "zotero_link_only", "message": "a link to a web page, with no file to read"}
    name = a.path.name.lower() if a.path else ""
    if a.content_type != "application/pdf" and (a.content_type or not name.endswith(".pdf")):
        return {"code": "not_a_pdf", "message": f"not a PDF ({a.content_type or 'no type'}): only PDFs are read"}
    if a.path is None or not a.path.is_file():
        where = a.path or "under Zotero's base directory for linked files, which is not set"
        return {
            "code": "zotero_attachment_missing",
            "message": f"the file is not on disk ({where}): in Zotero, open the item so that it downloads the "
            "file, or relink it; the next sync reads it",
        }
    return None


def cite(surnames: Iterable[str], year: int | None) -> str:
    """How a text cites the item: "Mishra (2024)", "Mishra and Asai (2024)", "Mishra et al. (2024)"."""
    names = list(surnames)
    who = " and ".join(names) if len(names) <= 2 else f"{names[0]} et al."
    return f"{who} ({year})" if who and year else who or str(year or "")


def sync(
    library: Library,
    index_dir: str | Path,
    snap: zotero.Snapshot,
    progress: Callable[[zotero.Attachment], None] | None = None,
    queue: Callable[[str], None] | None = None,
    stopped: Callable[[], bool] = lambda: False,
) -> Report:
    """Bring the library in step with what a read of Zotero found; returns what changed and what to ingest (queue:
    called with each document to ingest as soon as it is registered, as the server ingests). When stopped() turns
    true it saves what it registered and returns at once (report.stopped), removing nothing: a document not reached
    yet is not gone from Zotero."""
    state = load_state(index_dir)
    before: dict[str, dict[str, Any]] = state.get("attachments", {})
    now: dict[str, dict[str, Any]] = {}
    replaced: list[str] = list(state.get("replaced", []))
    report = Report(str(snap.data_dir))
    next_save = SAVE_EVERY

    def save_so_far() -> None:  # what is registered, and the old versions still to remove; from this data directory
        so_far = {"data_dir": str(snap.data_dir), "attachments": {**before, **now}, "replaced": replaced}
        _save(index_dir, {**state, **so_far})

    for i, a in enumerate(snap.attachments):
        if stopped():
            save_so_far()
            report.stopped = True
            return report
        prev = before.get(a.key)
        problem = skip_reason(a)
        if problem:
            report.skipped.append({"key": a.key, "title": a.title, "file": a.path and a.path.name, "error": problem})
            if prev and problem["code"] == "zotero_attachment_missing":
                now[a.key] = prev  # what was read of it stays until the file is back
        else:
            entry = _register(library, a, prev, report, queue)
            if entry:
                now[a.key] = entry
                if prev and prev["doc"] != entry["doc"]:
                    replaced.append(prev["doc"])
        if progress:
            progress(a)
        if i + 1 == next_save:  # at growing intervals: the state's writes add up to a few times its size
            save_so_far()
            next_save *= 2
    kept = {e["doc"] for e in now.values()}
    # gone from Zotero, or an old version of a changed file (this run's, or an interrupted run's)
    for key, doc_id in [(k, e["doc"]) for k, e in before.items()] + [(None, d) for d in replaced]:
        doc = None if doc_id in kept else _document(library, doc_id)
        if doc is None:
            continue
        if doc["zotero"] and doc["zotero"].get("added"):
            library.delete(doc["id"])
        else:  # the user's own upload: it stays, no longer from Zotero
            library.set_metadata(doc["id"], zotero=None, doi=None)
        report.removed += key is not None and key not in now
    _save(
        index_dir,
        {
            "data_dir": str(snap.data_dir),
            "synced_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "schema": snap.schema,
            "items": snap.items,
            "notes": snap.notes,
            "attachments": now,
            "collections": {c.key: {"name": c.name, "parent": c.parent} for c in snap.collections},
            "skipped": report.skipped,
            "report": {k: v for k, v in asdict(report).items() if k not in ("queued", "skipped")},
        },
    )
    return report


def _document(library: Library, doc_id: str) -> Record | None:
    try:
        doc = library.get(doc_id)
    except NotFound:
        return None
    doc.setdefault("zotero", None)
    return doc


def _register(
    library: Library,
    a: zotero.Attachment,
    prev: dict[str, Any] | None,
    report: Report,
    queue: Callable[[str], None] | None,
) -> dict[str, Any] | None:
    assert a.path is not None  # skip_reason() passed it: a PDF on disk
    st = a.path.stat()
    doc = _document(library, prev["doc"]) if prev else None
    if prev and doc and doc["status"] != "failed" and (prev["size"], prev["mtime"]) == (st.st_size, st.st_mtime_ns):
        report.unchanged += 1
    else:
        try:
            data = library.read_file(a.path)
            # whose the document is comes from its record before this sync touched it: a user's own upload (even
            # one whose ingest failed, which add_pdf registers again as if new) stays the user's, never removed
            old = _document(library, library.id_for(data))
            doc, _ = library.add_pdf(data, a.path.name, by_user=False)
        except (OSError, SourcecheckError) as e:
            error = e.to_dict() if isinstance(e, SourcecheckError) else {"code": "pdf_corrupt", "message": str(e)}
            report.skipped.append({"key": a.key, "title": a.title, "file": a.path.name, "error": error})
            # a file Zotero is writing reads as damaged for a moment: its document stays, as a missing file's does,
            # until a readable version comes (or the item leaves Zotero)
            return prev if doc is not None else None
        doc["zotero"] = {"added": True} if old is None else old.get("zotero")
        if prev and prev["doc"] != doc["id"]:
            report.changed += 1
        elif old is None:
            report.added += 1
        else:
            report.unchanged += 1
    added = bool(doc["zotero"] and doc["zotero"].get("added"))
    current = _document(library, doc["id"])  # the user may have uploaded the same PDF since: then it is theirs
    if added and current and current["zotero"] and current["zotero"].get("added") is False:
        added = False
    metadata = {
        "title": a.title or a.path.stem,
        "authors": list(a.authors),
        "authors_listed": True,  # Zotero's creators: the item's whole list
        "year": a.year,
        "doi": a.doi,
        "zotero": {
            "key": a.key,
            "item": a.item,
            "added": added,
            "cite": cite(a.surnames, a.year),
            "url": f"zotero://open-pdf/library/items/{a.key}",
        },
    }
    if any(doc.get(k) != v for k, v in metadata.items()):  # each write rewrites the records: only what changed
        library.set_metadata(doc["id"], **metadata)
    if doc["status"] != "ready" and doc["id"] not in report.queued:
        report.queued.append(doc["id"])
        if queue:
            queue(doc["id"])
    return {"doc": doc["id"], "size": st.st_size, "mtime": st.st_mtime_ns, "collections": list(a.collections)}


class Syncer:
    """The server's sync: one at a time, in a thread of its own; what it registers is ingested by the server's
    queue (ingest)."""

    def __init__(self, index_dir: str | Path, library: Callable[[], Library], ingest: Callable[[str], None]) -> None:
        self.index_dir, self.library, self.ingest = index_dir, library, ingest
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._reading = False  # a start() is reading Zotero (outside the lock): a second one starts nothing
        self._error: dict[str, str] | None = None
        self._stop = threading.Event()

    def start(self, data_dir: str | None = None, replace: bool = False) -> None:
        """Read Zotero now (its errors are the request's), then register its PDFs in the background. The read runs
        outside the lock, which stop() takes: a database on a hung mount holds up this request, never the shutdown.
        A library other than the one synced last is refused (zotero_other_library) unless replace is set."""
        with self._lock:
            if self._reading or (self._thread and self._thread.is_alive()) or self._stop.is_set():
                return
            self._reading = True
        try:
            given = data_dir or load_state(self.index_dir).get("data_dir")
            found = zotero.find_data_dir(given)
            if not replace:
                check_same_library(self.index_dir, found)
            snap = zotero.read(found)
        except BaseException:
            with self._lock:
                self._reading = False
            raise
        with self._lock:
            self._reading = False
            if self._stop.is_set():
                return
            self._error = None
            self._thread = threading.Thread(target=self._run, args=(snap,), name="sourcecheck-zotero", daemon=True)
            self._thread.start()

    def _run(self, snap: zotero.Snapshot) -> None:
        try:
            sync(self.library(), self.index_dir, snap, queue=self.ingest, stopped=self._stop.is_set)
        except SourcecheckError as e:
            self._error = e.to_dict()
        except Exception as e:  # a bug: said in the status, not lost in a thread
            log.exception("Zotero sync failed")
            self._error = InternalError.wrap(e).to_dict()

    def stop(self, timeout: float = 60.0) -> None:
        """Stop a running sync after the attachment it is on (the server is stopping: the library closes next) and
        wait for it, longer than one PDF's quick check may take (30 s); no sync starts after this."""
        with self._lock:
            self._stop.set()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive():
                log.warning("The Zotero sync did not stop within %g s; the library closes under it.", timeout)

    def state(self) -> dict[str, Any]:
        """The sync's part of the status (zotero.view.status): running, the background part's error, last counts."""
        running = bool(self._thread and self._thread.is_alive())
        return {"running": running, "error": self._error, "last": load_state(self.index_dir).get("report")}
