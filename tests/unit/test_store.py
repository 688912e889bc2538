import httpx
import pytest
from chromadb.errors import InternalError, InvalidArgumentError
from sourcecheck.errors import ConfigError, IndexUnreachable
from sourcecheck.library import Library, store
from sourcecheck.library.embeddings import HashEmbedding


def test_a_server_address_names_one_lexical_file_and_odd_addresses_are_refused():
    assert store.slug("127.0.0.1") == store.slug("http://127.0.0.1:8000/") == "http-127-0-0-1-8000"
    assert store.slug("https://Lab.example") == "https-lab-example-443" != store.slug("http://lab.example")
    for bad in ("http://lab/chroma", "ftp://lab", "http://user@lab:8000", "http://"):
        with pytest.raises(ConfigError):
            store.slug(bad)


class Flaky:
    """A collection whose calls fail as a server, or a proxy in front of it, can."""

    def __init__(self, error):
        self.error, self.name = error, "chunks_x"

    def count(self):
        raise self.error


@pytest.mark.parametrize("error", [httpx.ConnectError("refused"), InternalError("the server failed")])
def test_a_server_that_is_not_there_is_index_unreachable(error):
    remote = store.Remote(Flaky(error), "http://lab:8000")
    assert remote.name == "chunks_x"
    with pytest.raises(IndexUnreachable) as found:
        remote.count()
    assert found.value.status == 503 and "http://lab:8000" in found.value.message


def test_a_refused_request_is_not_mistaken_for_a_server_that_is_down():
    with pytest.raises(InvalidArgumentError):
        store.Remote(Flaky(InvalidArgumentError("bad name")), "http://lab:8000").count()


def test_a_shared_library_needs_a_folder_of_its_own():
    with pytest.raises(ValueError):
        Library(None, HashEmbedding(), chroma_url="http://127.0.0.1:1")
