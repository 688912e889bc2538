"""GET /health and POST /pair."""

from flask import Blueprint, current_app, request

from sourcecheck import __version__
from sourcecheck.api import get_services
from sourcecheck.errors import BadRequest

bp = Blueprint("meta", __name__)


@bp.get("/health")
def health():
    svc = get_services()
    guard = current_app.extensions["sourcecheck_guard"]
    model = svc.model()
    return {"ok": True, "version": __version__, "paired": guard.is_valid(request.headers.get("Authorization")),
            "model": model.info(), "library": svc.library().counts()}


@bp.post("/pair")
def pair():
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or not isinstance(body.get("code"), str):
        raise BadRequest('Send {"code": "123-456"}, the code the server printed.')
    return {"ok": True, "token": current_app.extensions["sourcecheck_guard"].pair(body["code"])}
