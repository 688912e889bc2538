"""create_app(): settings layers, services on the app, blueprints, security checks, one error shape."""

from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, jsonify, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import HTTPException

from sourcecheck.config import load_settings
from sourcecheck.errors import BadRequest, InternalError, SourcecheckError, error_body
from sourcecheck.serve.services import EXTENSION, Services

OPEN_ENDPOINTS = {"/api/v1/health", "/api/v1/pair", "/api/v1/openapi.json"}
# The codes of the framework's own errors (unknown route, wrong method, upload too large, bad Range);
# the contract lists every code, so any other HTTP error gets one generic code rather than a new one.
HTTP_ERROR_CODES: dict[int | None, str] = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    416: "range_not_satisfiable",
}
OTHER_HTTP_ERROR = "http_error"
UPLOAD_ENDPOINT = "/api/v1/documents"
# A JSON body (a check, a pairing code) holds at most MAX_TEXT_CHARS characters of text; even written as \uXXXX
# escapes that is 6 bytes a character. Anything larger is refused before it is read, not parsed into memory.
JSON_BYTES_PER_CHAR, MIN_JSON_BYTES = 8, 2**20


class JSONProvider(DefaultJSONProvider):
    """Flask's JSON, with JSON nested past Python's recursion limit a 400 rather than a 500 with a traceback."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        try:
            return super().loads(s, **kwargs)
        except RecursionError:
            raise BadRequest('The JSON is nested too deeply; send a flat object like {"text": "..."}.') from None


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """The Flask app: defaults → SOURCECHECK_* environment → config (a dict of setting overrides)."""
    settings = load_settings(config)
    app = Flask(__name__)
    app.json = JSONProvider(app)
    app.config["MAX_CONTENT_LENGTH"] = settings["MAX_UPLOAD_MB"] * 1024 * 1024
    json_limit = max(MIN_JSON_BYTES, JSON_BYTES_PER_CHAR * settings["MAX_TEXT_CHARS"])
    services = app.extensions[EXTENSION] = Services(settings)
    guard = services.guard()  # now, so that the token exists before the first request
    services.load()  # sampling from now: a first check's time left knows how busy the machine is

    from sourcecheck.serve.api import calibrate, check, documents, meta, zotero

    for bp in (meta.bp, documents.bp, check.bp, calibrate.bp, zotero.bp):
        app.register_blueprint(bp, url_prefix="/api/v1")

    @app.before_request
    def trust() -> Response | None:
        if request.path != UPLOAD_ENDPOINT:  # only uploads carry PDFs; any other body is a small JSON object
            request.max_content_length = json_limit
        guard.check_host(request.host)
        guard.check_origin(request.headers.get("Origin"))
        if request.method == "OPTIONS":
            return app.make_default_options_response()  # a CORS preflight carries no token
        if request.path not in OPEN_ENDPOINTS:
            guard.check_token(request.headers.get("Authorization"))
        return None

    @app.after_request
    def cors(response: Response) -> Response:
        origin = request.headers.get("Origin", "")
        if guard.extension_origin(origin):
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Access-Control-Allow-Headers"] = "Authorization, Content-Type, Accept"
            response.headers["Access-Control-Allow-Methods"] = "GET, POST, DELETE, OPTIONS"
            response.headers["Vary"] = "Origin"
        return response

    @app.errorhandler(SourcecheckError)
    def domain_error(e: SourcecheckError) -> tuple[Response, int]:
        return jsonify(error_body(e)), e.status

    @app.errorhandler(HTTPException)
    def http_error(e: HTTPException) -> tuple[Response, int]:
        # an HTTPException raised without a description (abort(404)) still says something: its standard phrase
        message = too_large(settings) if e.code == 413 else e.description or f"{e.name}."
        code = HTTP_ERROR_CODES.get(e.code, OTHER_HTTP_ERROR)
        return domain_error(SourcecheckError(message, code=code, status=e.code))

    @app.errorhandler(Exception)
    def internal_error(e: Exception) -> tuple[Response, int]:
        app.logger.exception("unhandled error")
        return domain_error(InternalError.wrap(e))

    return app


def too_large(settings: Mapping[str, Any]) -> str:
    """Why a request was refused as too large: its size, or (werkzeug's form parser) too many form fields."""
    limit, size = request.max_content_length, request.content_length
    if size is not None and limit is not None and size <= limit:
        return (
            f"The upload has too many parts: at most {request.max_form_parts:,} form fields and files, "
            "or form fields larger than their limit."
        )
    if request.path != UPLOAD_ENDPOINT:
        return f"The request is larger than {limit:,} bytes; check long texts in parts."
    return f"The upload is larger than {settings['MAX_UPLOAD_MB']} MB."
