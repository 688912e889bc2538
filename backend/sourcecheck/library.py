"""The user's library: documents and their chunks in Chroma; add, remove, search."""

import hashlib
import json
import logging
import math
import os
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from sourcecheck import store
from sourcecheck.chunking import chunk_page
from sourcecheck.errors import IndexUnreachable, LibraryFull, NotFound, PDFError, SourcecheckError
from sourcecheck.lexical import LexicalIndex
from sourcecheck.pdf import open_pdf, parse_pdf

# Chunks embedded per call: one call sorts its texts by length, so larger groups pad less (a 300-page
# library: 1.0x the embedding-only bound at 256, more at 32); progress moves once per group, so a short
# document is cut into about PROGRESS_STEPS groups of at least MIN_GROUP for a bar that moves.
EMBED_GROUP, MIN_GROUP, PROGRESS_STEPS = 256, 8, 8
READ_PAGE = 5000  # chunks read from Chroma per call: SQLite caps the variables of one query
RRF_K = 60  # reciprocal-rank fusion's constant (Cormack et al. 2009): a rank r counts 1 / (RRF_K + r)
SYNC_S = 2.0  # with a Chroma server: how often a search first takes in what other backends added or deleted
# Chroma's HNSW index only marks a deleted vector, and a vector added again takes a new slot: each chunk deleted
# kept ~2.2 KB of memory (and disk) for as long as the collection lived (issue #25: +14 MB a delete and re-ingest of
# a 7,500-chunk PDF). Once as many chunks were deleted as the collection still holds, and at least COMPACT_MIN, it is
# rebuilt (_compact): the deleted vectors kept stay under max(live chunks, COMPACT_MIN) plus one document's, and a
# chunk is copied at most once per chunk deleted.
COMPACT_MIN = 2_000  # ~4.4 MB of deleted vectors


@dataclass
class Hit:
    """One chunk found for a query."""

    chunk_id: str
    document_id: str
    page: int
    start: int
    end: int
    text: str
    similarity: float  # cosine similarity of the query and the chunk
    lexical: float = 0.0  # BM25 score of the query in the chunk
    fused: float = 0.0  # reciprocal-rank fusion of the dense and lexical ranks: higher is more relevant


class Library:
    """Documents in a JSON file, PDF copies in files/, chunks in a Chroma collection, their words in lexical.sqlite.

    path=None keeps everything in memory (for evaluation and tests). With chroma_url the chunks and the document
    records live on a Chroma server that several backends share; each keeps its PDFs and lexical index in path.
    """

    def __init__(
        self,
        path,
        embedding_function,
        chunk_words=120,
        max_pages=None,
        parse=parse_pdf,
        check=None,
        max_mb=None,
        chroma_url=None,
    ):
        """parse: PDF bytes → ParsedPDF; check(data, max_pages): raise PDFError for an unusable PDF. The server's
        run in child processes with limits (parser.py); by default both run here."""
        self.embedding_function = embedding_function
        self.chunk_words = chunk_words
        self.max_pages = max_pages
        self.max_mb = max_mb  # the PDFs the library keeps, in MB: a new one past it is refused (library_full)
        self.parse = parse
        self.check = check or (lambda data, pages: open_pdf(data, pages).close())
        self._lock = threading.RLock()
        self._stopping = threading.Event()  # stop(): ingests end between two writes
        self._memory_files = {}  # PDF bytes of an in-memory library
        self._records = None  # with a Chroma server: the collection of document records
        self._count = None  # chunks in Chroma, when known (_chunk_count)
        self._reread = {}  # document id → its record's chunk count when its lexical index was read again
        self._synced = 0.0  # time.monotonic() of the last sync with the server
        self._removed = 0  # chunks deleted from the local Chroma collection since it was opened or rebuilt
        if chroma_url and path is None:
            raise ValueError("A library on a Chroma server needs a folder of its own (its PDFs, its lexical index).")
        self.path = None if path is None else Path(path)
        if self.path:
            self._make_folder()
        self._client = store.client(self.path, chroma_url)
        name = (
            "chunks_" + embedding_function.name().replace("sourcecheck-", "")
            if self.path
            else f"chunks_{uuid.uuid4().hex[:8]}"
        )  # an in-memory client outlives the library: a name of its own
        if chroma_url:
            self._records = store.collection(self._client, name.replace("chunks_", "documents_"), None, chroma_url)
        self._docs = self._load_records() if self.path or chroma_url else {}
        self._lexical = LexicalIndex(
            self.path / (f"lexical-{store.slug(chroma_url)}.sqlite" if chroma_url else "lexical.sqlite")
            if self.path
            else None
        )
        if self.path and not chroma_url:
            store.finish_rebuild(self._client, name)  # a rebuild (_compact) that a crash interrupted
        self._collection = store.collection(self._client, name, embedding_function, chroma_url)
        self._finish_deletes()
        self._reconcile_lexical()

    # -- documents ---------------------------------------------------------------------------

    def add_pdf(self, data, filename):
        """Register PDF bytes; returns (document, created). Ingest with ingest(id) afterwards.

        The same bytes again return the existing document (a failed one is queued again).
        """
        sha = hashlib.sha256(data).hexdigest()
        doc_id = "d_" + sha[:16]
        with self._lock:
            self._refresh()
            existing = self._docs.get(doc_id)
            if existing and existing["status"] != "failed":
                if self.path and not self._file(doc_id).exists():  # added by another backend: the viewer here
                    self._file(doc_id).write_bytes(data)  # can now open it too
                return dict(existing), False
        self.check(data, self.max_pages)  # not a PDF, encrypted, damaged, empty or too long: refused before
        # anything is stored
        with self._lock:
            stored = self._stored_bytes() if self.max_mb else 0
            if self.max_mb and stored + len(data) > self.max_mb * 2**20:
                raise LibraryFull(
                    f"The library holds {stored / 2**20:,.0f} MB of PDFs; this one would "
                    f"pass the limit of {self.max_mb:,} MB (the MAX_LIBRARY_MB setting). Delete some "
                    "PDFs or raise the limit."
                )
            if self.path:
                self._file(doc_id).write_bytes(data)
            else:
                self._memory_files[doc_id] = data
            self._docs[doc_id] = _record(doc_id, Path(filename or "document.pdf").name, sha)
            self._save_records(doc_id)
            return dict(self._docs[doc_id]), existing is None

    def ingest(self, doc_id, read=None):
        """Parse, chunk and embed a registered document; failures are recorded on the document. read: a callable
        that returns the parsed PDF (ingest_many's read-ahead); by default the PDF is read here."""
        if self._stopping.is_set():
            return self.get(doc_id)  # the server is stopping: left queued, resumed at the next start
        try:
            parsed = (read or (lambda: self._read(doc_id)))()
            self._update(doc_id, title=parsed.title, authors=parsed.authors, year=parsed.year, pages=len(parsed.pages))
            self._index_pages(doc_id, parsed.pages)
        except IndexUnreachable:
            raise  # nothing can be written to a server that does not answer: the caller tries again later
        except Exception as e:  # an unexpected failure still ends in a visible state, not a stuck one
            if self._stopping.is_set():
                return self.get(doc_id)  # the reader was stopped with the server, not by this PDF: resumed later
            self._remove_chunks(doc_id)
            self._update(
                doc_id,
                status="failed",
                error=e.to_dict()
                if isinstance(e, SourcecheckError)
                else {"code": "ingest_failed", "message": f"Indexing failed: {e}"},
            )
        return self.get(doc_id)

    def ingest_many(self, doc_ids):
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
                    done = self.ingest(doc_id, read=current.result)
                except NotFound:
                    continue  # deleted meanwhile (by another backend of a shared library)
                yield done
        finally:
            pool.shutdown(wait=False, cancel_futures=True)  # Ctrl-C: a read under way ends with its reader

    def _read(self, doc_id):
        data = self.file_bytes(doc_id)
        self._update(doc_id, status="parsing", progress=0.05, error=None)
        return self.parse(data, on_page=lambda done, total: self._read_page(doc_id, done, total))

    def add_text(self, title, pages, filename=None):
        """Index text that is not a PDF (benchmark sources); pages is a list of page texts."""
        doc_id = "d_" + hashlib.sha256("\f".join(pages).encode()).hexdigest()[:16]
        with self._lock:
            if doc_id in self._docs:
                return dict(self._docs[doc_id])
            self._docs[doc_id] = _record(
                doc_id, filename or f"{title}.txt", None, status="parsing", title=title, pages=len(pages)
            )
        self._index_pages(doc_id, pages)
        return self.get(doc_id)

    def _index_pages(self, doc_id, pages):
        chunks = []
        for page_no, page_text in enumerate(pages, start=1):
            for i, (start, end, text) in enumerate(chunk_page(page_text, self.chunk_words)):
                chunks.append(
                    (
                        f"{doc_id}:{page_no}:{i}",
                        text,
                        {"document_id": doc_id, "page": page_no, "start": start, "end": end},
                    )
                )
        if not chunks:
            raise PDFError("The document has no text to index.", code="pdf_no_text")
        self._remove_chunks(doc_id)  # a resumed ingest: chunks of the run before (perhaps chunked otherwise) go
        self._update(doc_id, status="embedding", progress=0.1)
        size = min(EMBED_GROUP, max(MIN_GROUP, -(-len(chunks) // PROGRESS_STEPS)))
        for b in range(0, len(chunks), size):
            group = chunks[b : b + size]
            ids, texts, metas = [c[0] for c in group], [c[1] for c in group], [c[2] for c in group]
            vectors = self.embedding_function(texts)  # outside the lock: searches go on meanwhile
            with self._lock:
                if doc_id not in self._docs or self._stopping.is_set():
                    return  # deleted while it was being indexed, or the server is stopping: resumed at the next
                    # start (pending()), the chunks written so far are written again
                self._collection.upsert(ids=ids, documents=texts, embeddings=vectors, metadatas=metas)
                self._count = None
                self._lexical.add(ids, texts, [doc_id] * len(ids))
            if not self._update(doc_id, progress=0.1 + 0.9 * (b + len(group)) / len(chunks)):
                self._remove_chunks(doc_id)  # deleted meanwhile by another backend: what was written here goes too
                return
        if not self._update(doc_id, status="ready", progress=1.0, chunks=len(chunks)):
            self._remove_chunks(doc_id)

    def list(self):
        with self._lock:
            self._refresh()
            return [dict(d) for d in sorted(self._docs.values(), key=lambda d: d["added_at"])]

    def get(self, doc_id):
        with self._lock:
            if doc_id not in self._docs:
                self._refresh()  # perhaps added by another backend of a shared library
            if doc_id not in self._docs:
                raise NotFound(f"No document with id {doc_id!r}.", code="document_not_found")
            return dict(self._docs[doc_id])

    def delete(self, doc_id):
        with self._lock:  # checked under the lock: a second delete of the same document is a 404, not a 500
            self.get(doc_id)
            # Marked first (an atomic write): a crash part-way leaves a record that says "deleting", finished at
            # the next start (_finish_deletes), never a document listed without its chunks.
            self._update(doc_id, status="deleting")
            self._remove_chunks(doc_id)
            self._memory_files.pop(doc_id, None)
            if self.path:
                self._file(doc_id).unlink(missing_ok=True)
            del self._docs[doc_id]
            self._save_records(doc_id)
            self._compact_if_due()

    def _finish_deletes(self):
        for doc_id in [d["id"] for d in self._docs.values() if d["status"] == "deleting"]:
            self.delete(doc_id)

    def pending(self):
        """Documents whose ingestion was interrupted (by a restart): to be queued again. With a shared library,
        only those whose PDF is here (the others are another backend's to finish)."""
        return [
            d["id"]
            for d in self.list()
            if d["status"] in ("queued", "parsing", "embedding")
            and d["sha256"]
            and (self.path is None or self._file(d["id"]).exists())
        ]

    def file_bytes(self, doc_id):
        if self.path is None:
            self.get(doc_id)
            return self._memory_files[doc_id]
        return self.file_path(doc_id).read_bytes()

    def file_path(self, doc_id):
        doc = self.get(doc_id)
        if self.path and not self._file(doc_id).exists():
            raise NotFound(
                f"{doc['filename']} was added to the shared library by another sourcecheck; its PDF is "
                "not on this computer. Its passages are still searched; add the PDF here to open it.",
                code="document_file_elsewhere",
            )
        return self._file(doc_id)

    def chunk_texts(self):
        """The text of every chunk in the index."""
        with self._lock:
            return self._collection.get(include=["documents"])["documents"]

    def add_chunks(self, ids, texts, vectors, metadatas):
        """Index chunks whose embeddings are known (the bench's synthetic library): each document is recorded as
        ready text, without a PDF."""
        with self._lock:
            self._collection.add(ids=ids, documents=texts, embeddings=vectors, metadatas=metadatas)
            self._count = None
            self._lexical.add(ids, texts, [m["document_id"] for m in metadatas])
            for doc_id in {m["document_id"] for m in metadatas}:
                doc = self._docs.setdefault(doc_id, _record(doc_id, f"{doc_id}.txt", None, status="ready"))
                doc["chunks"] += sum(m["document_id"] == doc_id for m in metadatas)
                self._save_records(doc_id)

    def stop(self):
        """Let a running ingest end between two writes and wait for the write in progress: a server that stops
        leaves nothing half-written, and the document is resumed at the next start."""
        self._stopping.set()
        with self._lock:
            pass

    def close(self):
        """Drop an in-memory library's chunks (Chroma's in-memory client outlives the Library object); close the
        lexical index."""
        if self.path is None:
            self._client.delete_collection(self._collection.name)
        with self._lock:
            self._lexical.close()

    def counts(self):
        with self._lock:
            return {"documents": len(self._docs), "chunks": self._chunk_count()}

    # -- search ------------------------------------------------------------------------------

    def search(self, query, k=5, document_ids=None, candidates=20):
        """Top-k chunks by dense and BM25 search fused with reciprocal ranks."""
        return self.search_many([query], k, document_ids, candidates)[0]

    def search_many(self, queries, k=5, document_ids=None, candidates=20):
        """search() for several queries, embedding them in one batch. Only chunks of document_ids are returned (a
        check's snapshot of the documents ready when it started): never a chunk of a document still being ingested
        or of one added since. A document of the snapshot deleted since is in the hits while Chroma still has its
        chunks (the check's consistent view), else absent; never an error."""
        self._sync()
        with self._lock:
            total = self._chunk_count()
        if total == 0 or not queries:
            return [[] for _ in queries]
        allowed = set(document_ids) if document_ids is not None else None
        if allowed is not None and not allowed:
            return [[] for _ in queries]
        where = self._where(allowed)
        # One after the other: on 2 cores the lexical search in a thread beside the embedding made both slower
        # (57 vs 52 ms at 100k chunks).
        vectors = self.embedding_function(list(queries))
        with self._lock:  # one SQLite connection, shared with ingestion; the collection, which _compact replaces
            dense = self._collection.query(
                query_embeddings=vectors,
                n_results=min(candidates, total),
                where=where,
                include=["documents", "metadatas", "distances"],
            )
            lexical = [self._lexical.top(q, candidates, sorted(allowed) if where else None) for q in queries]
        results = []
        for qi in range(len(queries)):
            hits = {}
            for rank, (cid, text, meta, dist) in enumerate(
                zip(dense["ids"][qi], dense["documents"][qi], dense["metadatas"][qi], dense["distances"][qi])
            ):
                if meta is None or text is None:  # deleted between Chroma's vector search and its read
                    continue
                hits[cid] = Hit(
                    cid,
                    meta["document_id"],
                    meta["page"],
                    meta["start"],
                    meta["end"],
                    text,
                    similarity=1.0 - dist,
                    fused=1.0 / (RRF_K + rank),
                )
            for rank, (cid, lex) in enumerate(lexical[qi]):
                hit = hits.get(cid)
                if hit is None:  # found by its words alone: its text and place are read below
                    hit = hits[cid] = Hit(cid, "", 0, 0, 0, "", similarity=float("nan"))
                hit.lexical = lex
                hit.fused += 1.0 / (RRF_K + rank)
            results.append(list(hits.values()))
        self._fill_lexical_only(vectors, results)  # before the cut: a hit whose chunk is gone leaves its place
        if allowed is not None:
            results = [[h for h in hits if h.document_id in allowed] for hits in results]
        return [sorted(hits, key=lambda h: -h.fused)[:k] for hits in results]

    def _where(self, allowed):
        """Chroma's filter for a set of documents; none when the set holds every document the library has (a filter
        costs ~1.2x a search at 40 documents), the hits then being filtered afterwards."""
        if allowed is None:
            return None
        with self._lock:
            if set(self._docs) <= allowed:
                return None
        return {"document_id": {"$in": sorted(allowed)}}

    def _chunk_count(self):
        """Chroma's count of chunks, kept between this library's writes (a call takes 6 ms at 100k chunks); asked
        each time of a shared server, which others write to."""
        if self._records is not None or self._count is None:
            self._count = self._collection.count()
        return self._count

    def dense_search(self, vector, candidates=20):
        """Chroma's dense search alone for one query vector (what hybrid search adds to: the bench's baseline)."""
        with self._lock:
            return self._collection.query(
                query_embeddings=[vector], n_results=candidates, include=["documents", "metadatas", "distances"]
            )

    def _fill_lexical_only(self, vectors, results):
        """Text, place and cosine similarity of the hits that dense search did not return, in one read; a chunk gone
        from Chroma meanwhile (a document deleted under the search, or by another backend) is dropped."""
        missing = {h.chunk_id for hits in results for h in hits if math.isnan(h.similarity)}
        if not missing:
            return
        with self._lock:
            got = self._collection.get(ids=sorted(missing), include=["documents", "metadatas", "embeddings"])
        found = {
            cid: (text, meta, vec)
            for cid, text, meta, vec in zip(got["ids"], got["documents"], got["metadatas"], got["embeddings"])
        }
        for qi, hits in enumerate(results):
            for h in hits:
                if h.chunk_id in found and math.isnan(h.similarity) and found[h.chunk_id][1] is not None:
                    text, meta, vec = found[h.chunk_id]
                    h.document_id, h.page, h.start, h.end, h.text = (
                        meta["document_id"],
                        meta["page"],
                        meta["start"],
                        meta["end"],
                        text,
                    )
                    h.similarity = float(np.dot(vectors[qi], vec))
            hits[:] = [h for h in hits if not math.isnan(h.similarity)]

    def _sync(self):
        """With a Chroma server: every SYNC_S at most, the records again and the lexical index in step with them."""
        if self._records is None or time.monotonic() - self._synced < SYNC_S:
            return
        with self._lock:
            self._refresh()
            self._reconcile_lexical()
            self._synced = time.monotonic()

    def _reconcile_lexical(self):
        """Bring the lexical index in step with Chroma, document by document: a ready document indexed with
        another number of chunks (a library from before the index existed, a crash between the two writes) is
        read again from Chroma; a document without a record is dropped. Documents still being ingested are left
        as they are: their ingest starts again and writes both."""
        with self._lock:
            indexed = self._lexical.counts()
            for doc_id in set(indexed) - set(self._docs):
                self._lexical.remove_document(doc_id)
            for doc in self._docs.values():
                doc_id = doc["id"]
                if (
                    doc["status"] != "ready"
                    or indexed.get(doc_id, 0) == doc["chunks"]
                    or self._reread.get(doc_id) == doc["chunks"]
                ):
                    continue  # in step; or read again already and Chroma holds another number than the record
                self._lexical.remove_document(doc_id)
                offset = 0
                while True:  # all the document's chunks in Chroma, however many its record says
                    got = self._collection.get(
                        where={"document_id": doc_id}, include=["documents"], limit=READ_PAGE, offset=offset
                    )
                    if not got["ids"]:
                        break
                    self._lexical.add(got["ids"], got["documents"], [doc_id] * len(got["ids"]))
                    offset += len(got["ids"])
                self._reread[doc_id] = doc["chunks"]

    # -- storage -----------------------------------------------------------------------------

    def _stored_bytes(self):
        if self.path is None:
            return sum(map(len, self._memory_files.values()))
        return sum(f.stat().st_size for f in (self.path / "files").glob("*.pdf"))

    def _file(self, doc_id):
        return self.path / "files" / f"{doc_id}.pdf"

    def _read_page(self, doc_id, done, total):
        """Reading is the first tenth of the bar, moved page by page (a scan read by OCR takes ~1-2 s a page);
        written at most once per percent of the document, since each update rewrites the records file."""
        if done == total or done % max(1, total // 100) == 0:
            self._update(doc_id, progress=round(0.1 * done / total, 4))

    def _update(self, doc_id, **fields):
        """Change a record and write it; False when the document is gone (deleted here, or by another backend of
        a shared library: then it is dropped here too, not written back)."""
        with self._lock:
            if doc_id not in self._docs:
                return False
            if fields.get("status") != "deleting" and self._deleted_elsewhere(doc_id):
                del self._docs[doc_id]
                return False
            self._docs[doc_id].update(fields)
            self._save_records(doc_id)
            return True

    def _deleted_elsewhere(self, doc_id):
        """With a Chroma server: whether the document's record is gone from it or says it is being deleted."""
        if self._records is None:
            return False
        got = self._records.get(ids=[doc_id], include=["documents"])
        return not got["ids"] or json.loads(got["documents"][0])["status"] == "deleting"

    def _remove_chunks(self, doc_id):
        with self._lock:
            local = self.path is not None and self._records is None  # a Chroma server's index is the server's
            before = self._collection.count() if local else 0
            self._collection.delete(where={"document_id": doc_id})
            self._count = None
            self._lexical.remove_document(doc_id)
            if local:
                self._removed += before - self._collection.count()

    def _compact_if_due(self):
        """Rebuild the local Chroma collection once as many chunks were deleted from it as it holds, and at least
        COMPACT_MIN (see there). A failure leaves the collection as it was, to be rebuilt at a later delete."""
        with self._lock:
            if self._removed < COMPACT_MIN or self._removed < self._chunk_count():
                return
            try:
                self._compact()
            except Exception:  # noqa: BLE001 - the delete itself is done
                logging.getLogger("sourcecheck").exception("Rebuilding the Chroma collection failed")

    def _compact(self):
        """The live chunks copied into a new collection, the old one dropped, the client reopened: Chroma frees a
        dropped collection's index only when its client closes. A crash part-way is finished by
        store.finish_rebuild at the next start."""
        with self._lock:
            name = self._collection.name
            fresh = store.rebuild(self._client, self._collection, self.embedding_function, READ_PAGE)
            self._client.delete_collection(name)
            fresh.modify(name=name)
            self._client.close()
            self._client = store.client(self.path)
            self._collection = store.collection(self._client, name, self.embedding_function)
            store.drop_orphans(self.path)
            self._removed, self._count = 0, None

    def _make_folder(self):
        (self.path / "files").mkdir(parents=True, exist_ok=True)
        try:
            self.path.chmod(0o700)  # the user's PDFs and the token: no other account on the machine reads them
        except OSError:
            pass  # a folder the user chose and does not own: left as it is

    def _load_records(self):
        if self._records is not None:  # one JSON string per document, beside the chunks on the server
            got = self._records.get(include=["documents"])
            return {doc_id: json.loads(text) for doc_id, text in zip(got["ids"], got["documents"])}
        records = self.path / "documents.json"
        if not records.exists():
            return {}
        return {d["id"]: d for d in json.loads(records.read_text())}

    def _save_records(self, doc_id):
        """Write what changed: the one record on a Chroma server (each write is atomic there), else the file."""
        if self._records is not None:
            if doc_id in self._docs:
                self._records.upsert(ids=[doc_id], documents=[json.dumps(self._docs[doc_id])], embeddings=[[1.0]])
            else:
                self._records.delete(ids=[doc_id])
            return
        if self.path is None:
            return
        tmp = self.path / "documents.json.tmp"
        tmp.write_text(json.dumps(list(self._docs.values()), indent=1))
        os.replace(tmp, self.path / "documents.json")  # atomic: a crash never leaves half a file

    def _refresh(self):
        """With a Chroma server, take in the records other backends wrote (this one's are already there)."""
        if self._records is not None:
            self._docs = self._load_records()


def _record(doc_id, filename, sha256, status="queued", **fields):
    """A new document's record, as GET /documents lists it."""
    return {
        "id": doc_id,
        "filename": filename,
        "title": "",
        "authors": [],
        "year": None,
        "sha256": sha256,
        "pages": 0,
        "chunks": 0,
        "status": status,
        "progress": 0.0,
        "error": None,
        "added_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        **fields,
    }
