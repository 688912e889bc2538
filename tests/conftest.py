"""Shared fixtures: settings in a temp folder, real PDFs, a Flask client that passes the Host check."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # tests/pdfs.py, tests/support.py

from pdfs import BRIDGE_PAGES, FAVA_PAGES, make_pdf  # noqa: E402
from support import TOKEN, make_client, require_model  # noqa: E402


@pytest.fixture
def settings(tmp_path):
    """Overrides for a fast, isolated app: fake model, hash embeddings, a temp index."""
    return {"INDEX_DIR": str(tmp_path / "index"), "BACKEND": "fake", "EMBEDDINGS": "hash", "TOKEN": TOKEN, "PORT": 8765}


@pytest.fixture
def app(settings):
    from sourcecheck.serve.app import create_app
    from sourcecheck.serve.services import get_services

    app = create_app(settings)
    yield app
    get_services(app).close()  # its threads (the load sampler, ingest) stop with the test


@pytest.fixture
def client(app):
    return make_client(app)


@pytest.fixture
def fava_pdf(tmp_path):
    return make_pdf(
        tmp_path / "fava.pdf",
        FAVA_PAGES,
        title="FAVA: Fine-grained Hallucination Detection",
        author="Abhika Mishra, Akari Asai",
    )


@pytest.fixture
def bridge_pdf(tmp_path):
    return make_pdf(tmp_path / "bridge.pdf", BRIDGE_PAGES)


@pytest.fixture
def real_model_path(request):
    return require_model(request.config)


def pytest_collection_modifyitems(items):
    """A test that needs the real GGUF is a `model` test, whether or not its file says so: `-m "not model"` leaves
    it out."""
    for item in items:
        if "real_model_path" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.model)
