"""Fixtures the Zotero tests share (a file's own fixture of the same name wins, as test_zotero_sync's library)."""

import pytest
from sourcecheck.library import Library
from sourcecheck.library.embeddings import HashEmbedding
from zotero_library import standard_library


@pytest.fixture
def zot(tmp_path):
    """A real Zotero data directory with the standard items (zotero_library.standard_library)."""
    return standard_library(tmp_path / "Zotero", tmp_path / "made")


@pytest.fixture
def library(tmp_path):
    """An empty library in a temp folder with hash embeddings."""
    lib = Library(tmp_path / "index", HashEmbedding())
    yield lib
    lib.close()
