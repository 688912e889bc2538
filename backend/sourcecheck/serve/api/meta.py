"""GET /health, POST /pair and GET /openapi.json (the contract, docs/api.md in machine form)."""

from importlib import resources
from typing import Any

from flask import Blueprint, Response, request

from sourcecheck import __version__
from sourcecheck.errors import BadRequest
from sourcecheck.serve.services import get_services

bp = Blueprint("meta", __name__)


@bp.get("/health")
def health() -> dict[str, Any]:
    svc = get_services()
    paired = svc.guard().is_valid(request.headers.get("Authorization"))
    scale, calibrated = svc.calibration()
    band = scale["bands"][svc.settings["SENSITIVITY"]]
    return {
        "ok": True,
        "version": __version__,
        "paired": paired,
        "model": {
            **svc.model().info(),
            "calibrated": calibrated,
            "calibration": {"judge": scale.get("judge"), "fitted_on": scale.get("fitted_on"), "band": band}
            if calibrated
            else None,
        },
        "library": svc.library().counts(),
    }


@bp.post("/pair")
def pair() -> dict[str, Any]:
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or not isinstance(body.get("code"), str):
        raise BadRequest('Send {"code": "123-456"}, the code the server printed.')
    return {"ok": True, "token": get_services().guard().pair(body["code"], request.headers.get("Origin"))}


@bp.get("/openapi.json")
def openapi() -> Response:
    # A static file shipped with the package: tests/unit/test_openapi.py keeps it equal to the routes.
    return Response(
        resources.files("sourcecheck.serve.api").joinpath("openapi.json").read_bytes(), mimetype="application/json"
    )
