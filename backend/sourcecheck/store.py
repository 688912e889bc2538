"""The Chroma client a library keeps its chunks in: in memory, a local folder, or a server several backends share."""

import re
from urllib.parse import urlsplit

import chromadb
import httpx
from chromadb.config import Settings
from chromadb.errors import ChromaError

from sourcecheck.errors import ConfigError, IndexUnreachable


def _settings():
    """A new Settings for each client: chromadb writes the server's address into the one it is given."""
    return Settings(anonymized_telemetry=False, allow_reset=False)


def client(path, url=None):
    """A Chroma server's client when url is given, else a folder's (path/chroma), else an in-memory one."""
    if url:
        return _server(url)
    if path is None:
        return chromadb.EphemeralClient(settings=_settings())
    return chromadb.PersistentClient(path=str(path / "chroma"), settings=_settings())


class Remote:
    """A Chroma collection on a server: a lost connection is index_unreachable, in the one error shape."""

    def __init__(self, collection, url):
        self._collection, self._url = collection, url

    def __getattr__(self, name):
        attr = getattr(self._collection, name)
        if not callable(attr):
            return attr

        def call(*args, **kwargs):
            try:
                return attr(*args, **kwargs)
            except (httpx.TransportError, ChromaError) as e:
                if not _down(e):
                    raise
                raise unreachable(self._url, e) from None
        return call


def collection(client, name, embedding_function, url=None):
    """A cosine collection, wrapped as Remote on a server. The embedding function is passed explicitly, None
    included: Chroma's default one downloads a model."""
    try:
        collection = client.get_or_create_collection(name, embedding_function=embedding_function,
                                                     metadata={"hnsw:space": "cosine"})
    except (httpx.TransportError, ChromaError) as e:
        if not (url and _down(e)):
            raise
        raise unreachable(url, e) from None
    return Remote(collection, url) if url else collection


def _server(url):
    """A client of the Chroma server at url (http://host:port)."""
    parts = _parts(url)
    try:
        return chromadb.HttpClient(host=parts.hostname, port=_port(parts), ssl=parts.scheme == "https",
                                   settings=_settings())
    except (ValueError, httpx.TransportError, ChromaError) as e:  # chromadb: "Could not connect to a Chroma server"
        raise unreachable(url, e) from None


def _down(e):
    """Whether an error means the server is not there to answer: no connection, or the server (or a proxy in front
    of it) failing with a 5xx; a refused request (4xx) is a bug to see as it is."""
    return isinstance(e, httpx.TransportError) or e.code() >= 500


def unreachable(url, e):
    return IndexUnreachable(f"The Chroma server at {url} (the CHROMA_URL setting) does not answer ({e}). Start it "
                            "(`chroma run --path FOLDER --port PORT`) or check the address.")


def slug(url):
    """A file-name-safe name for a server (scheme, host and port): one lexical index per server."""
    parts = _parts(url)
    return re.sub(r"[^a-z0-9]+", "-", f"{parts.scheme}-{parts.hostname}-{_port(parts)}".lower())


def _parts(url):
    """The URL split, http:// assumed; a path or user name it cannot carry is refused rather than dropped."""
    parts = urlsplit(url if "://" in url else "http://" + url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path.strip("/") or parts.username:
        raise ConfigError(f"CHROMA_URL={url!r} is not a Chroma server's address; use http://HOST:PORT.")
    return parts


def _port(parts):
    return parts.port or (443 if parts.scheme == "https" else 8000)
