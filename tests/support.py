"""Test helpers shared by the suites (import as `from support import ...`)."""

import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "models" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
TOKEN = "test-token"


def require_model(config):
    """One rule for a missing default GGUF: a run that asks for the model's tests (`-m model`) fails, saying how to
    install it; any other run (plain pytest, `-m "not model"`, a machine without the model) skips them, saying why."""
    if MODEL.exists():
        return MODEL
    reason = f"{MODEL} is missing: run scripts/setup first"
    if re.search(r"(?<!not )\bmodel\b", config.option.markexpr or ""):
        pytest.fail(reason)
    pytest.skip(reason)


def make_client(app, host="127.0.0.1:8765", token=TOKEN):
    """A test client that sends the given Host header (and token, unless None) with every request."""

    class Client(app.test_client_class or FlaskClient):
        def open(self, *args, **kwargs):
            kwargs.setdefault("base_url", f"http://{host}")
            return super().open(*args, **kwargs)

    client = Client(app, app.response_class, use_cookies=True)
    if token:
        client.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    return client


# A chat answer of the shape the checks see: a preamble, a list of three claims (one wrong, one invented), a question
TEXT = (
    "Here is a summary:\n- The Golden Gate Bridge opened to traffic on May 27, 1937.\n"
    "- Its main span is 2,000 meters long.\n- The bridge was the first one painted by robots.\nAnything else?"
)


def bridge_and_fava(fava_pdf, bridge_pdf, embed=None):
    """An in-memory library with the two test PDFs ingested (embed: its embedding function, HashEmbedding())."""
    from sourcecheck.library import Library
    from sourcecheck.library.embeddings import HashEmbedding

    lib = Library(None, embed or HashEmbedding())
    for path in (fava_pdf, bridge_pdf):
        doc, _ = lib.add_pdf(path.read_bytes(), path.name)
        lib.ingest(doc["id"])
    return lib


def assert_error(resp, status, code):
    """The one error shape (docs/api.md), with this status and code, from a Flask test client's response."""
    body = resp.get_json()
    assert resp.status_code == status, (resp.request.path, body)
    assert resp.mimetype == "application/json"
    assert set(body) == {"ok", "error", "status"} and set(body["error"]) == {"code", "message"}
    assert body["ok"] is False and body["status"] == status and body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
