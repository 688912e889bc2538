"""A Zotero library as a source over HTTP: GET /zotero (where, counts, collections, the sync) and POST /zotero/sync."""

from typing import Any

from flask import Blueprint, request

from sourcecheck.errors import BadRequest
from sourcecheck.serve.services import get_services
from sourcecheck.zotero.view import status as source_status

bp = Blueprint("zotero", __name__)


def state() -> dict[str, Any]:
    svc = get_services()
    return {**source_status(svc.settings["INDEX_DIR"], svc.library()), "sync": svc.syncer().state()}


@bp.get("/zotero")
def status() -> dict[str, Any]:
    return {"ok": True, "zotero": state()}


@bp.post("/zotero/sync")
def sync() -> tuple[dict[str, Any], int]:
    body = request.get_json(silent=True) if request.get_data() else {}
    if (
        not isinstance(body, dict)
        or not isinstance(body.get("data_dir") or "", str)
        or not isinstance(body.get("replace", False), bool)
    ):
        raise BadRequest(
            'Send no body, or {"data_dir": "/path/to/Zotero"} (Zotero\'s data directory), with "replace": true to '
            "sync a different library than the last one."
        )
    # Zotero is read now: not found, busy, too new, another library answer here
    get_services().syncer().start(body.get("data_dir") or None, replace=body.get("replace", False))
    return {"ok": True, "zotero": state()}, 202
