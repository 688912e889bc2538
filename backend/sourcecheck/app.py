"""create_app(): settings layers, services on the app, blueprints, security checks, one error shape."""

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from sourcecheck.config import load_settings
from sourcecheck.errors import SourcecheckError, error_body
from sourcecheck.security import EXTENSION_SCHEMES, Guard
from sourcecheck.services import Services

OPEN_ENDPOINTS = {"/api/v1/health", "/api/v1/pair"}


def create_app(config=None):
    """The Flask app: defaults → SOURCECHECK_* environment → config (a dict of setting overrides)."""
    settings = load_settings(config)
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = settings["MAX_UPLOAD_MB"] * 1024 * 1024
    app.config["SOURCECHECK"] = settings
    app.extensions["sourcecheck"] = Services(settings)
    guard = app.extensions["sourcecheck_guard"] = Guard(settings)

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
        if origin.startswith(EXTENSION_SCHEMES):
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Access-Control-Allow-Headers"] = "Authorization, Content-Type, Accept"
            response.headers["Access-Control-Allow-Methods"] = "GET, POST, DELETE, OPTIONS"
            response.headers["Vary"] = "Origin"
        return response

    @app.errorhandler(SourcecheckError)
    def domain_error(e):
        return jsonify(error_body(e.code, e.message, e.status)), e.status

    @app.errorhandler(HTTPException)
    def http_error(e):
        code = {413: "too_large"}.get(e.code, (e.name or "error").lower().replace(" ", "_"))
        message = {413: f"The upload is larger than {settings['MAX_UPLOAD_MB']} MB."}.get(e.code, e.description)
        return jsonify(error_body(code, message, e.code)), e.code

    @app.errorhandler(Exception)
    def internal_error(e):
        app.logger.exception("unhandled error")
        return jsonify(error_body("internal_error", f"Something went wrong inside sourcecheck: {e}", 500)), 500

    return app


def services(app):
    return app.extensions["sourcecheck"]
