"""The judge's calibration over HTTP: start it, follow it, cancel it (calibrate.py does the work)."""

from typing import Any

from flask import Blueprint, request

from sourcecheck.errors import BadRequest
from sourcecheck.serve.services import get_services

bp = Blueprint("calibrate", __name__)


@bp.post("/calibrate")
def start() -> tuple[dict[str, Any], int]:
    body = request.get_json(silent=True) if request.content_length else {}
    if not isinstance(body, dict):
        raise BadRequest('Send no body, or a JSON object such as {"limit": 2}.')
    limit = body.get("limit")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise BadRequest("'limit' is the number of answers of each kind to calibrate on: a whole number from 1.")
    if not isinstance(body.get("replace", False), bool):
        raise BadRequest("'replace' is true or false: whether a coarser calibration may replace a finer one.")
    svc = get_services()
    svc.model().prepare()  # a missing or broken model: its error now, not a failed calibration later
    svc.start_calibration(limit, replace=body.get("replace", False))
    return {"ok": True, "calibration": svc.calibration_status()}, 202


@bp.get("/calibrate")
def status() -> dict[str, Any]:
    return {"ok": True, "calibration": get_services().calibration_status()}


@bp.delete("/calibrate")
def cancel() -> dict[str, Any]:
    svc = get_services()
    svc.cancel_calibration()
    return {"ok": True, "calibration": svc.calibration_status()}
