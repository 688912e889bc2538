"""A truncated or wrong GGUF is found by the catalog's check; the installed default model passes it."""

import pytest
from sourcecheck.llm import catalog

pytestmark = pytest.mark.integration


def test_catalog_check_detects_truncated_and_wrong_files(tmp_path):
    entry = {
        "name": "tiny",
        "file": "tiny.gguf",
        "size": 5,
        "sha256": "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
    }  # sha256("hello")
    assert catalog.check_file(entry, tmp_path) == "missing"
    (tmp_path / "tiny.gguf").write_bytes(b"hell")
    assert catalog.check_file(entry, tmp_path) == "corrupt"
    (tmp_path / "tiny.gguf").write_bytes(b"jello")
    assert catalog.check_file(entry, tmp_path) == "corrupt"
    (tmp_path / "tiny.gguf").write_bytes(b"hello")
    assert catalog.check_file(entry, tmp_path) == "ok"
    assert (tmp_path / "tiny.sha256").exists()  # verified once, remembered by mtime


def test_the_installed_default_model_is_verified(real_model_path):
    entry = next(e for e in catalog.catalog() if e.get("default"))
    assert catalog.check_file(entry, real_model_path.parent) == "ok"
    assert catalog.resolve_model_path(entry["name"], real_model_path.parent) == real_model_path
