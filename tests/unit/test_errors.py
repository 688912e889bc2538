"""The error tree (errors.py): each error's code and status, what a raise may change of them, and the one shape the
edges write."""

import inspect

import pytest
from sourcecheck import errors
from sourcecheck.errors import (
    BadRequest,
    EmptyText,
    InternalError,
    NotFound,
    SourcecheckError,
    error_body,
    out_of_memory,
)

CLASSES = [c for _, c in inspect.getmembers(errors, inspect.isclass) if issubclass(c, SourcecheckError)]


def test_every_error_has_a_snake_case_code_and_an_error_status():
    assert len(CLASSES) >= 17
    for cls in CLASSES:
        assert cls.code.isidentifier() and cls.code == cls.code.lower(), cls
        assert 400 <= cls.status < 600, cls


@pytest.mark.parametrize(
    "cls, code, status",
    [
        (errors.BadRequest, "bad_request", 400),
        (errors.EmptyText, "empty_text", 400),
        (errors.Unauthorized, "unauthorized", 401),
        (errors.Forbidden, "forbidden", 403),
        (errors.NotFound, "not_found", 404),
        (errors.IndexInUse, "index_in_use", 409),
        (errors.EmptyLibrary, "empty_library", 409),
        (errors.TextTooLong, "text_too_long", 413),
        (errors.LibraryFull, "library_full", 413),
        (errors.InvalidOption, "invalid_option", 422),
        (errors.PDFError, "pdf_invalid", 422),
        (errors.RateLimited, "rate_limited", 429),
        (errors.ConfigError, "config_error", 500),
        (errors.InternalError, "internal_error", 500),
        (errors.ModelError, "model_error", 503),
        (errors.IndexUnreachable, "index_unreachable", 503),
    ],
)
def test_each_error_s_own_code_and_status_as_docs_api_md_lists_them(cls, code, status):
    e = cls("A sentence for a person.")
    assert (e.code, e.status, e.message, str(e)) == (code, status, "A sentence for a person.", e.message)


def test_a_raise_may_name_its_own_code_and_status_without_changing_the_class():
    e = NotFound("No document d_1.", code="document_not_found")
    assert (e.code, e.status) == ("document_not_found", 404)
    busy = SourcecheckError("Zotero is writing.", code="zotero_busy", status=409)
    assert (busy.code, busy.status) == ("zotero_busy", 409)
    assert (NotFound("x").code, SourcecheckError("x").code, SourcecheckError("x").status) == ("not_found", "error", 500)


def test_an_empty_text_is_caught_as_a_bad_request():
    with pytest.raises(BadRequest) as e:
        raise EmptyText("There is no text to check.")
    assert e.value.status == 400 and e.value.code == "empty_text"


def test_the_one_error_shape():
    e = SourcecheckError("The PDF is password-protected.", code="pdf_encrypted", status=422)
    assert e.to_dict() == {"code": "pdf_encrypted", "message": "The PDF is password-protected."}
    assert error_body(e) == {
        "ok": False,
        "error": {"code": "pdf_encrypted", "message": "The PDF is password-protected."},
        "status": 422,
    }


def test_an_unexpected_exception_is_wrapped_as_an_internal_error_that_names_it():
    e = InternalError.wrap(KeyError("page"))
    assert (e.code, e.status) == ("internal_error", 500)
    assert e.message == "Something went wrong inside sourcecheck: 'page'"


@pytest.mark.parametrize(
    "e, expected",
    [
        (MemoryError(), True),
        (RuntimeError("malloc (2147483648 bytes) failed"), True),
        (RuntimeError("code=2: realloc failed"), True),
        (ValueError("Out of Memory"), True),
        (RuntimeError("cannot find object in xref (12 0 R)"), False),
        (ValueError("syntax error in array"), False),
        (RuntimeError(""), False),
    ],
)
def test_out_of_memory_is_told_from_damage(e, expected):
    assert out_of_memory(e) is expected
