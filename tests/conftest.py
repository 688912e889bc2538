"""Shared fixtures: settings in a temp folder, real PDFs, a Flask client that passes the Host check."""

import sys
from pathlib import Path

import pytest
from flask.testing import FlaskClient

sys.path.insert(0, str(Path(__file__).parent))  # tests/pdfs.py

from pdfs import BRIDGE_PAGES, FAVA_PAGES, make_pdf  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "models" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
TOKEN = "test-token"


@pytest.fixture
def settings(tmp_path):
    """Overrides for a fast, isolated app: fake model, hash embeddings, a temp index."""
    return {"INDEX_DIR": str(tmp_path / "index"), "BACKEND": "fake", "EMBEDDINGS": "hash", "TOKEN": TOKEN,
            "PORT": 8765}


@pytest.fixture
def app(settings):
    from sourcecheck.app import create_app

    return create_app(settings)


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


@pytest.fixture
def client(app):
    return make_client(app)


@pytest.fixture
def fava_pdf(tmp_path):
    return make_pdf(tmp_path / "fava.pdf", FAVA_PAGES, title="FAVA: Fine-grained Hallucination Detection",
                    author="Abhika Mishra, Akari Asai")


@pytest.fixture
def bridge_pdf(tmp_path):
    return make_pdf(tmp_path / "bridge.pdf", BRIDGE_PAGES)


@pytest.fixture
def real_model_path():
    assert MODEL.exists(), f"{MODEL} is missing: run scripts/setup first"
    return MODEL
