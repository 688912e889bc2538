"""The user's library: documents and their chunks; add, ingest, remove, search.

Where the parts live: records.py (the document records and PDF copies: in memory, a folder, or a Chroma server),
chunks.py (the chunks in Chroma and the lexical index beside it), search.py (hybrid search over them). One lock,
the library's, is shared by all three.
"""

import builtins
import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from sourcecheck.errors import IndexUnreachable, LibraryFull, NotFound, PDFError, SourcecheckError
from sourcecheck.evidence import SentenceVectors
from sourcecheck.library import folder_lock, records, store
from sourcecheck.library.chunking import chunk_page
from sourcecheck.library.chunks import ChunkIndex, Embed, collection_name
from sourcecheck.library.filenames import clean_filename
from sourcecheck.library.records import Record, new_record
from sourcecheck.library.search import Hit, hybrid_search
from sourcecheck.pdf import ParsedPDF, files, open_pdf, parse_pdf
from sourcecheck.text.words import content_words

log = logging.getLogger("sourcecheck")

# Chunks embedded per call: one call sorts its texts by length, so larger groups pad less (a 300-page
# library: 1.0x the embedding-only bound at 256, more at 32); progress moves once per group, so a short
# document is cut into about PROGRESS_STEPS groups of at least MIN_GROUP for a bar that moves.
EMBED_GROUP, MIN_GROUP, PROGRESS_STEPS = 256, 8, 8
# What a PDF's chunks hold (how its pages are read and cut), versioned: a ready document indexed under an older
# version is indexed again after the next start (outdated(), reindex()), so that a new version's better quotes reach
# the PDFs added before it. 2: a chunk starts at a sentence's start; a reference list split into blocks stays out.
# 3: a running header set below the top band no longer ends a reference list.
INDEX_VERSION = 3
SYNC_S = 2.0  # with a Chroma server: how often a search first takes in what other backends added or deleted


class Library:
    """Documents in a JSON file, PDF copies in files/, chunks in a Chroma collection, their words in lexical.sqlite.

    path=None keeps everything in memory (for evaluation and tests). With chroma_url the chunks and the document
    records live on a Chroma server that several backends share; each keeps its PDFs and lexical index in path.
    """

    def __init__(
        self,
        path: str | Path | None,
        embedding_function: Embed,
        chunk_words: int = 120,
        max_pages: int | None = None,
        parse: Callable[..., ParsedPDF] = parse_pdf,
        check: Callable[[bytes, int | None], None] | None = None,
        max_mb: int | None = None,
        chroma_url: str | None = None,
        max_file_mb: int = 100,
    ) -> None:
        """parse: PDF bytes → ParsedPDF; check(data, max_pages): raise PDFError for an unusable PDF. The server's
        run in child processes with limits (parser.py); by default both run here."""
        self._embed = embedding_function
        self.sentence_vectors = SentenceVectors(embedding_function)  # the checks' sentences, kept between checks
        self.chunk_words = chunk_words
        self.max_pages = max_pages
        self.max_mb = max_mb  # the PDFs the library keeps, in MB: a new one past it is refused (library_full)
        self.max_file_mb = max_file_mb  # one PDF read from disk (add_file), as MAX_UPLOAD_MB limits an upload
        self.parse = parse
        self.check = check or (lambda data, pages: open_pdf(data, pages).close())
        self._lock = threading.RLock()  # the records, the PDFs and every Chroma call (ChunkIndex.lock)
        self._stopping = threading.Event()  # stop(): ingests end between two writes
        self._synced = 0.0  # time.monotonic() of the last sync with the server
        self._adding: dict[str, Future[Record]] = {}  # sha256 → the answer of the add_pdf checking those bytes
        chroma_url = chroma_url or None  # the setting's "" (no server) and None mean the same: one test below
        if chroma_url and path is None:
            raise ValueError("A library on a Chroma server needs a folder of its own (its PDFs, its lexical index).")
        self.path = None if path is None else Path(path)
        self._folder_lock = None
        if self.path:
            records.make_folder(self.path)
            self._folder_lock = folder_lock.hold(self.path)  # IndexInUse if another process has the folder
        try:
            client = store.client(self.path, chroma_url)
            name = collection_name(self.path, embedding_function)
            self._records = records.open_records(self.path, client, name, chroma_url, self._lock)
            # the chunks in Chroma and their words: public for tooling (the bench) that reads or writes them
            self.chunks = ChunkIndex(client, name, embedding_function, self._lock, self.path, chroma_url)
            self._finish_deletes()
            self.chunks.reconcile(self._records.docs)
        except BaseException:
            if self._folder_lock:
                self._folder_lock.release()
            raise

    @property
    def embedding_function(self) -> Embed:
        """Read-only: the index's vectors and sentence_vectors' were made by it, and a swap would mix two spaces."""
        return self._embed

    # -- documents ---------------------------------------------------------------------------

    @staticmethod
    def id_for(data: bytes) -> str:
        """The id these PDF bytes have, or would have, in any library."""
        return "d_" + hashlib.sha256(data).hexdigest()[:16]

    def read_file(self, path: Path) -> bytes:
        """A PDF on disk (a folder ingest, a Zotero attachment) for add_pdf: read only when it is a regular file no
        larger than max_file_mb, as an upload is limited, and never blocking on a FIFO or a device."""
        return files.read_regular(path, self.max_file_mb * files.MB)

    def add_pdf(self, data: bytes, filename: str | None, by_user: bool = True) -> tuple[Record, bool]:
        """Register PDF bytes; returns (document, queued): queued is True when this call registered it for ingest
        (new, or a failed one queued again). Ingest with ingest(id) afterwards.

        The same bytes again return the existing document; the same bytes arriving at once are checked once, the
        later calls waiting for the first's answer (the document, or the same refusal). by_user: added by the user
        (an upload, the CLI), not by the Zotero sync: a document the sync added becomes the user's too, so that it
        stays when its item leaves Zotero.
        """
        sha = hashlib.sha256(data).hexdigest()
        doc_id = "d_" + sha[:16]  # the same PDF is one document however it arrives (id_for)
        with self._lock:
            self._records.refresh()
            existing = self._records.docs.get(doc_id)
            if existing and existing["status"] != "failed":
                if not self._records.has_pdf(doc_id):  # added by another backend: the viewer here can now open it
                    self._records.write_pdf(doc_id, data)
                if by_user and (existing.get("zotero") or {}).get("added"):
                    if self._records.update(doc_id, zotero={**existing["zotero"], "added": False}):
                        existing = self._records.docs[doc_id]  # else deleted by another backend meanwhile
                return dict(existing), False
            first = self._adding.get(sha)
            if first is None:
                self._adding[sha] = Future()
        if first is not None:
            return first.result(), False
        try:
            record = self._register(data, filename, doc_id, sha)
        except BaseException as e:
            self._adding.pop(sha).set_exception(e)
            raise
        self._adding.pop(sha).set_result(record)
        return record, True

    def _register(self, data: bytes, filename: str | None, doc_id: str, sha: str) -> Record:
        self.check(data, self.max_pages)  # not a PDF, encrypted, damaged, empty or too long: refused before
        # anything is stored
        with self._lock:
            stored = self._records.stored_bytes() if self.max_mb else 0
            if self.max_mb and stored + len(data) > self.max_mb * 2**20:
                raise LibraryFull(
                    f"The library holds {stored / 2**20:,.0f} MB of PDFs; this one would "
                    f"pass the limit of {self.max_mb:,} MB (the MAX_LIBRARY_MB setting). Delete some "
                    "PDFs or raise the limit."
                )
            self._records.write_pdf(doc_id, data)
            record = new_record(doc_id, clean_filename(filename), sha)
            self._records.put(record)
            return dict(record)

    def ingest(self, doc_id: str, read: Callable[[], ParsedPDF] | None = None) -> Record:
        """Parse, chunk and embed a registered document; failures are recorded on the document. read: a callable
        that returns the parsed PDF (ingest_many's read-ahead); by default the PDF is read here."""
        if self._stopping.is_set():
            return self.get(doc_id)  # the server is stopping: left queued, resumed at the next start
        try:
            parsed = (read or (lambda: self._read(doc_id)))()
            guessed: dict[str, Any] = {
                "title": parsed.title,
                "authors": parsed.authors,
                "authors_listed": parsed.authors_listed,
                "year": parsed.year,
            }
            if self._records.docs.get(doc_id, {}).get("zotero"):
                guessed = {}  # a Zotero item's own title, creators and year (set_metadata) outrank page 1's
            self._records.update(doc_id, pages=len(parsed.pages), **guessed)
            self._index_pages(doc_id, parsed.pages)
        except IndexUnreachable:
            raise  # nothing can be written to a server that does not answer: the caller tries again later
        except Exception as e:  # an unexpected failure still ends in a visible state, not a stuck one
            if self._stopping.is_set():
                return self.get(doc_id)  # the reader was stopped with the server, not by this PDF: resumed later
            self.chunks.remove_document(doc_id)
            self._records.update(
                doc_id,
                status="failed",
                error=e.to_dict()
                if isinstance(e, SourcecheckError)
                else {"code": "ingest_failed", "message": f"Indexing failed: {e}"},
            )
        return self.get(doc_id)

    def ingest_many(self, doc_ids: Iterable[str]) -> Iterator[Record]:
        """ingest() each document in turn, yielding it when done. The next PDF is read (by the parser, in its own
        process for the server's and the CLI's library) while this one is embedded: the two use different cores."""
        doc_ids = list(doc_ids)
        pool = ThreadPoolExecutor(1, thread_name_prefix="sourcecheck-read-ahead")
        try:
            ahead = pool.submit(self._read, doc_ids[0]) if doc_ids else None
            for i, doc_id in enumerate(doc_ids):
                current = ahead
                ahead = pool.submit(self._read, doc_ids[i + 1]) if i + 1 < len(doc_ids) else None
                try:
                    done = self.ingest(doc_id, read=current.result if current else None)
                except NotFound:
                    continue  # deleted meanwhile (by another backend of a shared library)
                yield done
        finally:
            pool.shutdown(wait=False, cancel_futures=True)  # Ctrl-C: a read under way ends with its reader

    def _read(self, doc_id: str) -> ParsedPDF:
        data = self.file_bytes(doc_id)
        self._records.update(doc_id, status="parsing", progress=0.05, error=None)
        return self.parse(data, on_page=lambda done, total: self._read_page(doc_id, done, total))

    def _read_page(self, doc_id: str, done: int, total: int) -> None:
        """Reading is the first tenth of the bar, moved page by page (a scan read by OCR takes ~1-2 s a page);
        written at most once per percent of the document, since each update rewrites the records file."""
        if done == total or done % max(1, total // 100) == 0:
            self._records.update(doc_id, progress=round(0.1 * done / total, 4))

    def add_text(self, title: str, pages: Sequence[str], filename: str | None = None) -> Record:
        """Index text that is not a PDF (benchmark sources); pages is a list of page texts."""
        doc_id = "d_" + hashlib.sha256("\f".join(pages).encode()).hexdigest()[:16]
        with self._lock:
            if doc_id in self._records.docs:
                return dict(self._records.docs[doc_id])
            self._records.docs[doc_id] = new_record(  # written once it is indexed (update)
                doc_id, filename or f"{title}.txt", None, status="parsing", title=title, pages=len(pages)
            )
        self._index_pages(doc_id, pages)
        return self.get(doc_id)

    def reindex(self, doc_id: str) -> Record:
        """Index a ready document again under INDEX_VERSION (outdated()). It stays ready and searchable meanwhile: its
        new chunks replace the old ones of the same ids as they are written, then the old ones left over go. A failure
        (a parse that times out on a busy machine, no text left) leaves what is there, old chunks or some new ones in
        their place, and its older version: it is tried again after the next start."""
        with self._lock:
            self._records.refresh()  # a shared library: another backend may have done it meanwhile
            doc = dict(self._records.docs.get(doc_id, {}))
        try:
            if not self._stopping.is_set() and doc.get("status") == "ready" and _outdated(doc):
                self._index_pages(doc_id, self.parse(self.file_bytes(doc_id)).pages, in_place=True)
        except IndexUnreachable:
            raise
        except Exception:  # noqa: BLE001 - it keeps what it had; the log says why
            log.exception("Indexing %s again under index version %d failed; it keeps its chunks", doc_id, INDEX_VERSION)
        return self.get(doc_id)

    def _index_pages(self, doc_id: str, pages: Sequence[str], in_place: bool = False) -> None:
        """Chunk and embed a document's pages. in_place: a ready document indexed again (reindex), its status and
        chunks left as they are until each new chunk is written."""
        chunks = [
            (f"{doc_id}:{page_no}:{i}", text, {"document_id": doc_id, "page": page_no, "start": start, "end": end})
            for page_no, page_text in enumerate(pages, start=1)
            for i, (start, end, text) in enumerate(chunk_page(page_text, self.chunk_words))
        ]
        if not chunks:
            raise PDFError("The document has no text to index.", code="pdf_no_text")
        old = self.chunks.ids_of(doc_id) if in_place else set()
        if not in_place:
            self.chunks.remove_document(doc_id)  # a resumed ingest: the run before's chunks (perhaps cut otherwise)
            self._records.update(doc_id, status="embedding", progress=0.1)
        size = min(EMBED_GROUP, max(MIN_GROUP, -(-len(chunks) // PROGRESS_STEPS)))
        for b in range(0, len(chunks), size):
            group = chunks[b : b + size]
            ids, texts, metas = [c[0] for c in group], [c[1] for c in group], [c[2] for c in group]
            vectors = self.embedding_function(texts)  # outside the lock: searches go on meanwhile
            with self._lock:
                if self._stopping.is_set():
                    return  # resumed at the next start (pending(), outdated()): what was written is written again
                if doc_id not in self._records.docs:  # deleted meanwhile (here, or by another backend)
                    self.chunks.remove_document(doc_id)
                    return
                self.chunks.write(ids, texts, vectors, metas)
            if not in_place and not self._records.update(doc_id, progress=0.1 + 0.9 * (b + len(group)) / len(chunks)):
                self.chunks.remove_document(doc_id)  # deleted meanwhile by another backend: its chunks here go too
                return
        with self._lock:
            self.chunks.remove_ids(sorted(old - {c[0] for c in chunks}))
        done = {"status": "ready", "progress": 1.0} if not in_place else {}
        if not self._records.update(doc_id, chunks=len(chunks), index_version=INDEX_VERSION, **done):
            self.chunks.remove_document(doc_id)

    def list(self) -> list[Record]:
        return self._records.list()

    def set_metadata(self, doc_id: str, **fields: Any) -> None:
        """Metadata from where the document came from (a Zotero item's title, authors, year, doi and its "zotero"
        keys), kept over what ingest reads from the PDF."""
        self.get(doc_id)  # NotFound for a document that is gone
        self._records.update(doc_id, **fields)

    def get(self, doc_id: str) -> Record:
        return self._records.get(doc_id)

    def delete(self, doc_id: str) -> None:
        with self._lock:  # checked under the lock: a second delete of the same document is a 404, not a 500
            self.get(doc_id)
            # Marked first (an atomic write): a crash part-way leaves a record that says "deleting", finished at
            # the next start (_finish_deletes), never a document listed without its chunks.
            self._records.update(doc_id, status="deleting")
            self.chunks.remove_document(doc_id)
            self._records.remove(doc_id)
            self.chunks.compact_if_due()

    def _finish_deletes(self) -> None:
        for doc_id in [d["id"] for d in self._records.docs.values() if d["status"] == "deleting"]:
            self.delete(doc_id)

    def pending(self) -> builtins.list[str]:  # builtins: list is a method here
        """Documents whose ingestion was interrupted (by a restart): to be queued again. With a shared library,
        only those whose PDF is here (the others are another backend's to finish)."""
        return [d["id"] for d in self._here() if d["status"] in ("queued", "parsing", "embedding")]

    def outdated(self) -> builtins.list[str]:
        """Ready documents indexed under an older INDEX_VERSION (a record from before versions has none: 1), to be
        indexed again (reindex). With a shared library, only those whose PDF is here."""
        return [d["id"] for d in self._here() if d["status"] == "ready" and _outdated(d)]

    def _here(self) -> builtins.list[Record]:
        return [d for d in self.list() if d["sha256"] and self._records.has_pdf(d["id"])]

    def file_bytes(self, doc_id: str) -> bytes:
        doc = self.get(doc_id)
        if not self._records.has_pdf(doc_id):
            raise records.pdf_elsewhere(doc)
        return self._records.read_pdf(doc_id)

    def file_path(self, doc_id: str) -> Path:
        doc = self.get(doc_id)
        path = self._records.pdf_path(doc_id)
        if path is None or not path.exists():
            raise records.pdf_elsewhere(doc)
        return path

    def stop(self) -> None:
        """Let a running ingest end between two writes and wait for the write in progress: a server that stops
        leaves nothing half-written, and the document is resumed at the next start."""
        self._stopping.set()
        with self._lock:
            pass

    def close(self) -> None:
        """Drop an in-memory library's chunks (Chroma's in-memory client outlives the Library object); close the
        lexical index; let another process open the folder."""
        self.chunks.close()
        if self._folder_lock:
            self._folder_lock.release()

    def counts(self) -> dict[str, int]:
        with self._lock:
            return {"documents": len(self._records.docs), "chunks": self.chunks.count()}

    # -- search ------------------------------------------------------------------------------

    def mentions(self, word: str, document_ids: Sequence[str]) -> bool:
        """Whether a chunk of these documents has the word (as the lexical index keeps words: lower case; a word it
        does not keep, "An", is taken as mentioned). Their reference lists are not indexed."""
        if not content_words(word):
            return True
        with self._lock:
            return bool(document_ids) and bool(self.chunks.lexical.top(word, 1, document_ids))

    def search(
        self, query: str, k: int = 5, document_ids: Iterable[str] | None = None, candidates: int = 20
    ) -> builtins.list[Hit]:
        """Top-k chunks by dense and BM25 search fused with reciprocal ranks."""
        return self.search_many([query], k, document_ids, candidates)[0]

    def search_many(
        self, queries: Sequence[str], k: int = 5, document_ids: Iterable[str] | None = None, candidates: int = 20
    ) -> builtins.list[builtins.list[Hit]]:
        """search() for several queries, embedding them in one batch. Only chunks of document_ids are returned (a
        check's snapshot of the documents ready when it started): never a chunk of a document still being ingested
        or of one added since. A document of the snapshot deleted since is in the hits while Chroma still has its
        chunks (the check's consistent view), else absent; never an error."""
        self._sync()
        allowed = set(document_ids) if document_ids is not None else None
        every = False  # whether allowed holds every document of the library: then Chroma's search is not filtered
        if allowed is not None:
            with self._lock:
                every = set(self._records.docs) <= allowed
        return hybrid_search(
            self.chunks, self.embedding_function, queries, k, allowed, candidates, filter_in_chroma=not every
        )

    def _sync(self) -> None:
        """With a Chroma server: every SYNC_S at most, the records again and the lexical index in step with them."""
        if not self._records.shared or time.monotonic() - self._synced < SYNC_S:
            return
        with self._lock:
            self._records.refresh()
            self.chunks.reconcile(self._records.docs)
            self._synced = time.monotonic()


def _outdated(doc: Record) -> bool:
    """Indexed under an older INDEX_VERSION (a record from before versions has none: 1)."""
    return (doc.get("index_version") or 1) < INDEX_VERSION
