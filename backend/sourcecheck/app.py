"""create_app(): settings layers, services on the app, blueprints, security checks, one error shape."""

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from sourcecheck.config import load_settings
from sourcecheck.errors import InternalError, SourcecheckError, error_body
from sourcecheck.services import EXTENSION, Services

OPEN_ENDPOINTS = {"/api/v1/health", "/api/v1/pair", "/api/v1/openapi.json"}
# The codes of the framework's own errors (unknown route, wrong method, upload too large, bad Range);
# the contract lists every code, so any other HTTP error gets one generic code rather than a new one.
HTTP_ERROR_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 413: "too_large",
                    416: "range_not_satisfiable"}
OTHER_HTTP_ERROR = "http_error"


def create_app(config=None):
    """The Flask app: defaults → SOURCECHECK_* environment → config (a dict of setting overrides)."""
    settings = load_settings(config)
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = settings["MAX_UPLOAD_MB"] * 1024 * 1024
    services = app.extensions[EXTENSION] = Services(settings)
    guard = services.guard()  # now, so that the token exists before the first request

    from sourcecheck.api import check, documents, meta

    for bp in (meta.bp, documents.bp, check.bp):
        app.register_blueprint(bp, url_prefix="/api/v1")

    @app.before_request
    def trust():
        guard.check_host(request.host)
        guard.check_origin(request.headers.get("Origin"))
        if request.method == "OPTIONS":
            return app.make_default_options_response()  # a CORS preflight carries no token
        if request.path not in OPEN_ENDPOINTS:
            guard.check_token(request.headers.get("Authorization"))
        return None

    @app.after_request
    def cors(response):
        origin = request.headers.get("Origin", "")
        if guard.extension_origin(origin):
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Access-Control-Allow-Headers"] = "Authorization, Content-Type, Accept"
            response.headers["Access-Control-Allow-Methods"] = "GET, POST, DELETE, OPTIONS"
            response.headers["Vary"] = "Origin"
        return response

    @app.errorhandler(SourcecheckError)
    def domain_error(e):
        return jsonify(error_body(e)), e.status

    @app.errorhandler(HTTPException)
    def http_error(e):
        message = {413: f"The upload is larger than {settings['MAX_UPLOAD_MB']} MB."}.get(e.code, e.description)
        code = HTTP_ERROR_CODES.get(e.code, OTHER_HTTP_ERROR)
        return domain_error(SourcecheckError(message, code=code, status=e.code))

    @app.errorhandler(Exception)
    def internal_error(e):
        app.logger.exception("unhandled error")
        return domain_error(InternalError.wrap(e))

    return app
