"""The Chroma client a library keeps its chunks in: in memory, a local folder, or a server several backends share."""

import ctypes
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, urlsplit

import chromadb
import httpx
from chromadb.api.types import Documents, EmbeddingFunction
from chromadb.config import Settings
from chromadb.errors import ChromaError

from sourcecheck.errors import ConfigError, IndexUnreachable

# chromadb's client and collection, typed loosely on purpose: Library closes its client (Client.close, which the
# ClientAPI that chromadb's constructors return does not declare), a collection may be Remote below, and the
# results' fields that include= asks for are typed Optional by chromadb although they are always there.
Client = Any
Collection = Any


def _settings() -> Settings:
    """A new Settings for each client: chromadb writes the server's address into the one it is given."""
    return Settings(anonymized_telemetry=False, allow_reset=False)


def client(path: Path | None, url: str | None = None) -> Client:
    """A Chroma server's client when url is given, else a folder's (path/chroma), else an in-memory one."""
    if url:
        return _server(url)
    if path is None:
        return chromadb.EphemeralClient(settings=_settings())
    _tune_malloc()
    return chromadb.PersistentClient(path=str(path / "chroma"), settings=_settings())


# glibc's mallopt() parameters. Measured with `sourcecheck serve`, 20 deletes and re-ingests of a 7,490-chunk PDF,
# with the rebuilds of chunks.ChunkIndex._compact: RSS 370 MB at the end and still climbing ~2 MB a cycle with glibc's
# defaults; 274 MB, +0.6 MB a cycle from the 5th, with these.
M_MMAP_THRESHOLD, MMAP_THRESHOLD = -3, 2**20  # blocks of 1 MB or more mapped on their own, returned when freed
M_ARENA_MAX, ARENA_MAX = -8, 2  # arenas shared by all threads (default: 8 per core)


def _tune_malloc() -> None:
    """Keep the memory a rebuilt HNSW index frees from staying with the process. By default glibc raises its mmap
    threshold to the largest block freed (up to 32 MB), so the index's next buffers come from the heap instead,
    and each of Chroma's threads gets an arena of its own, which keeps what was freed in it. No-op outside glibc."""
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return
    mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    mallopt(M_ARENA_MAX, ARENA_MAX)


class Remote:
    """A Chroma collection on a server: a lost connection is index_unreachable, in the one error shape."""

    def __init__(self, collection: Collection, url: str) -> None:
        self._collection, self._url = collection, url

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._collection, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return attr(*args, **kwargs)
            except (httpx.TransportError, ChromaError) as e:
                if not _down(e):
                    raise
                raise unreachable(self._url, e) from None

        return call


def collection(
    client: Client, name: str, embedding_function: EmbeddingFunction[Documents] | None, url: str | None = None
) -> Collection:
    """A cosine collection, wrapped as Remote on a server. The embedding function is passed explicitly, None
    included: Chroma's default one downloads a model."""
    try:
        collection = client.get_or_create_collection(
            name, embedding_function=embedding_function, metadata={"hnsw:space": "cosine"}
        )
    except (httpx.TransportError, ChromaError) as e:
        if not (url and _down(e)):
            raise
        raise unreachable(url, e) from None
    return Remote(collection, url) if url else collection


REBUILD = "_rebuild"  # suffix of the collection a rebuild copies the live chunks into


def rebuild(client: Client, old: Collection, embedding_function: EmbeddingFunction[Documents], page: int) -> Collection:
    """A new collection holding old's records (ids, embeddings, documents, metadata), read page by page."""
    name = old.name + REBUILD
    if name in {c.name for c in client.list_collections()}:
        client.delete_collection(name)
    new = collection(client, name, embedding_function)
    offset = 0
    while True:
        got = old.get(include=["embeddings", "documents", "metadatas"], limit=page, offset=offset)
        if not got["ids"]:
            return new
        new.add(ids=got["ids"], embeddings=got["embeddings"], documents=got["documents"], metadatas=got["metadatas"])
        offset += len(got["ids"])


def finish_rebuild(client: Client, name: str) -> None:
    """After a crash during a rebuild: a copy left beside a whole collection is dropped; one whose original was
    dropped already takes its name."""
    names = {c.name for c in client.list_collections()}
    if name + REBUILD not in names:
        return
    if name in names:
        client.delete_collection(name + REBUILD)
    else:
        client.get_collection(name + REBUILD, embedding_function=None).modify(name=name)


_SEGMENT = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def drop_orphans(path: Path) -> None:
    """Delete the index folders of dropped collections, which Chroma leaves on disk (chroma-core/chroma#5520): the
    folders named by a segment id that chroma.sqlite3 no longer lists."""
    folder = path / "chroma"
    try:
        db = sqlite3.connect(f"file:{folder / 'chroma.sqlite3'}?mode=ro", uri=True)
        try:
            live = {row[0] for row in db.execute("SELECT id FROM segments")}
        finally:
            db.close()
    except sqlite3.Error:
        return  # another Chroma schema: left as it is
    if not live:
        return
    for sub in folder.iterdir():
        if sub.is_dir() and _SEGMENT.fullmatch(sub.name) and sub.name not in live:
            shutil.rmtree(sub, ignore_errors=True)


def _server(url: str) -> Client:
    """A client of the Chroma server at url (http://host:port)."""
    parts = _parts(url)
    try:
        return chromadb.HttpClient(
            host=parts.hostname or "", port=_port(parts), ssl=parts.scheme == "https", settings=_settings()
        )
    except (ValueError, httpx.TransportError, ChromaError) as e:  # chromadb: "Could not connect to a Chroma server"
        raise unreachable(url, e) from None


def _down(e: httpx.TransportError | ChromaError) -> bool:
    """Whether an error means the server is not there to answer: no connection, or the server (or a proxy in front
    of it) failing with a 5xx; a refused request (4xx) is a bug to see as it is."""
    return isinstance(e, httpx.TransportError) or e.code() >= 500


def unreachable(url: str, e: Exception) -> IndexUnreachable:
    return IndexUnreachable(
        f"The Chroma server at {url} (the CHROMA_URL setting) does not answer ({e}). Start it "
        "(`chroma run --path FOLDER --port PORT`) or check the address."
    )


def slug(url: str) -> str:
    """A file-name-safe name for a server (scheme, host and port): one lexical index per server."""
    parts = _parts(url)
    return re.sub(r"[^a-z0-9]+", "-", f"{parts.scheme}-{parts.hostname}-{_port(parts)}".lower())


def _parts(url: str) -> SplitResult:
    """The URL split, http:// assumed; a path or user name it cannot carry is refused rather than dropped."""
    parts = urlsplit(url if "://" in url else "http://" + url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path.strip("/") or parts.username:
        raise ConfigError(f"CHROMA_URL={url!r} is not a Chroma server's address; use http://HOST:PORT.")
    return parts


def _port(parts: SplitResult) -> int:
    return parts.port or (443 if parts.scheme == "https" else 8000)
