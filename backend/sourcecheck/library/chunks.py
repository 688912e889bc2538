"""A library's chunks: a Chroma collection (in memory, a local folder, or a server several backends share) and the
lexical index of their words beside it, written together and kept in step.

Every Chroma call holds the library's lock (ChunkIndex.lock, shared with the Library): a rebuild (_compact) replaces
the client and the collection, and the lexical index's one SQLite connection is shared with ingestion.
"""

import logging
import threading
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from chromadb.api.types import Documents, EmbeddingFunction

from sourcecheck.library import store
from sourcecheck.library.lexical import LexicalIndex

READ_PAGE = 5000  # chunks read from Chroma per call: SQLite caps the variables of one query
# Chroma's HNSW index only marks a deleted vector, and a vector added again takes a new slot: each chunk deleted
# kept ~2.2 KB of memory (and disk) for as long as the collection lived (issue #25: +14 MB a delete and re-ingest of
# a 7,500-chunk PDF). Once as many chunks were deleted as the collection still holds, and at least COMPACT_MIN, it is
# rebuilt (_compact): the deleted vectors kept stay under max(live chunks, COMPACT_MIN) plus one document's, and a
# chunk is copied at most once per chunk deleted.
COMPACT_MIN = 2_000  # ~4.4 MB of deleted vectors

Embed = EmbeddingFunction[Documents]


def collection_name(path: Path | None, embedding_function: Embed) -> str:
    """The chunks' collection: one per embedding model in a folder or on a server; an in-memory client outlives
    the library, so an in-memory library's has a name of its own."""
    if path is None:
        return f"chunks_{uuid.uuid4().hex[:8]}"
    return "chunks_" + embedding_function.name().replace("sourcecheck-", "")


class ChunkIndex:
    """Chunks (id, text, vector, {document_id, page, start, end}) in Chroma, their content words in a LexicalIndex:
    lexical.sqlite in the folder, lexical-<server>.sqlite beside a Chroma server's chunks, in memory otherwise."""

    def __init__(
        self,
        client: store.Client,
        name: str,
        embedding_function: Embed,
        lock: threading.RLock,
        path: Path | None = None,
        url: str | None = None,
    ) -> None:
        self.lock = lock  # the library's
        self.lexical = LexicalIndex(
            path / (f"lexical-{store.slug(url)}.sqlite" if url else "lexical.sqlite") if path else None
        )
        self._client, self._path, self._shared = client, path, bool(url)
        self._embedding_function = embedding_function
        self._local = path is not None and not url  # a folder's collection, rebuilt here (a server's is its own)
        if self._local:
            store.finish_rebuild(client, name)  # a rebuild (_compact) that a crash interrupted
        self._collection = store.collection(client, name, embedding_function, url)
        self._count: int | None = None  # chunks in Chroma, when known (count())
        self._removed = 0  # chunks deleted from the local collection since it was opened or rebuilt
        self._versions: dict[str, int | None] = {}  # document id → the index version its words were last read at
        self._reread: dict[str, int] = {}  # document id → its record's chunk count when its words were read again

    @property
    def collection(self) -> store.Collection:
        """The Chroma collection; use it under the lock, since a rebuild replaces it."""
        return self._collection

    def count(self) -> int:
        """Chroma's count of chunks, kept between this index's writes (a call takes 6 ms at 100k chunks); asked
        each time of a shared server, which others write to."""
        with self.lock:
            if self._shared or self._count is None:
                self._count = self._collection.count()
            return self._count

    def write(
        self, ids: Sequence[str], texts: Sequence[str], vectors: Any, metadatas: Sequence[Mapping[str, Any]]
    ) -> None:
        """Add or replace chunks, in Chroma and in the lexical index."""
        with self.lock:
            self._collection.upsert(ids=ids, documents=texts, embeddings=vectors, metadatas=metadatas)
            self._count = None
            self.lexical.add(ids, texts, [m["document_id"] for m in metadatas])

    def remove_document(self, doc_id: str) -> None:
        with self.lock:
            before = self._collection.count() if self._local else 0
            self._collection.delete(where={"document_id": doc_id})
            self._count = None
            self.lexical.remove_document(doc_id)
            if self._local:
                self._removed += before - self._collection.count()

    def ids_of(self, doc_id: str) -> set[str]:
        """The ids of a document's chunks in Chroma."""
        with self.lock:
            out: set[str] = set()
            while got := self._collection.get(
                where={"document_id": doc_id}, include=[], limit=READ_PAGE, offset=len(out)
            ):
                if not got["ids"]:
                    break
                out.update(got["ids"])
            return out

    def remove_ids(self, ids: Sequence[str]) -> None:
        """Remove these chunks, from Chroma and from the lexical index."""
        if not ids:
            return
        with self.lock:
            self._collection.delete(ids=list(ids))
            self._count = None
            self.lexical.remove(ids)
            if self._local:
                self._removed += len(ids)

    def compact_if_due(self) -> None:
        """Rebuild the local Chroma collection once as many chunks were deleted from it as it holds, and at least
        COMPACT_MIN (see there). A failure leaves the collection as it was, to be rebuilt at a later delete."""
        with self.lock:
            if self._removed < COMPACT_MIN or self._removed < self.count():
                return
            try:
                self._compact()
            except Exception:  # noqa: BLE001 - the delete itself is done
                logging.getLogger("sourcecheck").exception("Rebuilding the Chroma collection failed")

    def _compact(self) -> None:
        """The live chunks copied into a new collection, the old one dropped, the client reopened: Chroma frees a
        dropped collection's index only when its client closes. A crash part-way is finished by
        store.finish_rebuild at the next start."""
        assert self._path is not None  # only a local collection is rebuilt (_removed stays 0 otherwise)
        with self.lock:
            name = self._collection.name
            fresh = store.rebuild(self._client, self._collection, self._embedding_function, READ_PAGE)
            self._client.delete_collection(name)
            fresh.modify(name=name)
            self._client.close()
            self._client = store.client(self._path)
            self._collection = store.collection(self._client, name, self._embedding_function)
            store.drop_orphans(self._path)
            self._removed, self._count = 0, None

    def reconcile(self, docs: Mapping[str, Mapping[str, Any]]) -> None:
        """Bring the lexical index in step with Chroma, document by document (docs: the library's records): a ready
        document indexed with another number of chunks (a library from before the index existed, a crash between
        the two writes) is read again from Chroma; a document without a record is dropped. Documents still being
        ingested are left as they are: their ingest starts again and writes both."""
        with self.lock:
            indexed = self.lexical.counts()
            for doc_id in set(indexed) - set(docs):
                self.lexical.remove_document(doc_id)
            for doc in docs.values():
                doc_id = doc["id"]
                version, seen = doc.get("index_version"), self._versions.setdefault(doc_id, doc.get("index_version"))
                self._versions[doc_id] = version
                if doc["status"] != "ready" or (
                    version == seen
                    and (indexed.get(doc_id, 0) == doc["chunks"] or self._reread.get(doc_id) == doc["chunks"])
                ):
                    continue  # in step; or read again already and Chroma holds another number than the record; a
                    # new index version (another backend indexed it again, perhaps into as many chunks) is read again
                self.lexical.remove_document(doc_id)
                offset = 0
                while True:  # all the document's chunks in Chroma, however many its record says
                    got = self._collection.get(
                        where={"document_id": doc_id}, include=["documents"], limit=READ_PAGE, offset=offset
                    )
                    if not got["ids"]:
                        break
                    self.lexical.add(got["ids"], got["documents"], [doc_id] * len(got["ids"]))
                    offset += len(got["ids"])
                self._reread[doc_id] = doc["chunks"]

    def close(self) -> None:
        """Drop an in-memory collection (Chroma's in-memory client outlives the index); close the lexical index."""
        if self._path is None:
            self._client.delete_collection(self._collection.name)
        with self.lock:
            self.lexical.close()
