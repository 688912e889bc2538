"""The error tree. The core raises these; the edges (API, CLI) turn them into the one error shape."""

from typing import Any


class SourcecheckError(Exception):
    """Base class: a stable snake_case code, an HTTP status and a sentence for a person."""

    code = "error"
    status = 500

    def __init__(self, message: str, code: str | None = None, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code:
            self.code = code
        if status:
            self.status = status

    def to_dict(self) -> dict[str, str]:
        """The error as every edge writes it: {"code", "message"}."""
        return {"code": self.code, "message": self.message}


class BadRequest(SourcecheckError):
    code, status = "bad_request", 400


class EmptyText(BadRequest):
    code = "empty_text"


class InvalidOption(SourcecheckError):
    """A check option of the wrong type or an unknown value ("revise": "false" is not false)."""

    code, status = "invalid_option", 422


class TextTooLong(SourcecheckError):
    code, status = "text_too_long", 413


class LibraryFull(SourcecheckError):
    code, status = "library_full", 413


class NotFound(SourcecheckError):
    code, status = "not_found", 404


class IndexUnreachable(SourcecheckError):
    """The Chroma server that holds the library (CHROMA_URL) does not answer."""

    code, status = "index_unreachable", 503


class IndexInUse(SourcecheckError):
    """Another process has the index folder open (folder_lock.py)."""

    code, status = "index_in_use", 409


class EmptyLibrary(SourcecheckError):
    code, status = "empty_library", 409


class PDFError(SourcecheckError):
    """A PDF we cannot use; code says why (not_a_pdf, pdf_encrypted, pdf_corrupt, pdf_no_text, pdf_empty)."""

    code, status = "pdf_invalid", 422


def out_of_memory(e: BaseException) -> bool:
    """Whether an exception from the PDF library is its memory running out (MuPDF: "malloc/realloc (…) failed"),
    which under the reader's limit means the PDF needs too much, not that it is damaged."""
    return isinstance(e, MemoryError) or "alloc" in str(e).lower() or "memory" in str(e).lower()


class ModelError(SourcecheckError):
    """The judge model is missing, broken, unreachable or answered garbage."""

    code, status = "model_error", 503


class ConfigError(SourcecheckError):
    code, status = "config_error", 500


class Forbidden(SourcecheckError):
    code, status = "forbidden", 403


class Unauthorized(SourcecheckError):
    code, status = "unauthorized", 401


class RateLimited(SourcecheckError):
    code, status = "rate_limited", 429


class InternalError(SourcecheckError):
    """A bug or an unexpected failure, wrapped so that it still leaves in the one error shape."""

    code, status = "internal_error", 500

    @classmethod
    def wrap(cls, e: BaseException) -> "InternalError":
        return cls(f"Something went wrong inside sourcecheck: {e}")


def error_body(error: SourcecheckError) -> dict[str, Any]:
    """The one error shape every endpoint returns, for a SourcecheckError."""
    return {"ok": False, "error": error.to_dict(), "status": error.status}
