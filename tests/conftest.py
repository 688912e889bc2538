"""Shared fixtures: settings in a temp folder, real PDFs, a Flask client that passes the Host check."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # tests/pdfs.py, tests/support.py

from pdfs import BRIDGE_PAGES, FAVA_PAGES, make_pdf  # noqa: E402
from support import MODEL, TOKEN, make_client  # noqa: E402


@pytest.fixture
def settings(tmp_path):
    """Overrides for a fast, isolated app: fake model, hash embeddings, a temp index."""
    return {"INDEX_DIR": str(tmp_path / "index"), "BACKEND": "fake", "EMBEDDINGS": "hash", "TOKEN": TOKEN,
            "PORT": 8765}


@pytest.fixture
def app(settings):
    from sourcecheck.app import create_app

    return create_app(settings)


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
