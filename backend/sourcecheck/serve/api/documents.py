"""The library over HTTP: upload (ingested in the background), list, get, file, delete."""

from typing import Any

from flask import Blueprint, Response, request, send_file

from sourcecheck.errors import BadRequest, SourcecheckError
from sourcecheck.library.filenames import clean_filename
from sourcecheck.serve.services import get_services

bp = Blueprint("documents", __name__)


@bp.post("/documents")
def upload() -> tuple[dict[str, Any], int]:
    files = request.files.getlist("file")
    if not files:
        # a part whose file name has a line break in it, or bytes that are not UTF-8, is not read as a file (werkzeug)
        raise BadRequest(
            "Send one or more PDFs as multipart form fields named 'file', each with a file name; a name with a line "
            "break in it or bytes that are not UTF-8 is not read as a file name.",
            code="no_file",
        )
    svc = get_services()
    library = svc.library()
    rejected: list[dict[str, Any]]
    added, rejected, queued_any = [], [], False
    for f in files:
        name = clean_filename(f.filename)  # the client's name, sent back in a header: no control characters
        try:
            doc, queued = library.add_pdf(f.read(), name)
        except SourcecheckError as e:
            if len(files) == 1:
                raise
            rejected.append({"filename": name, "error": e.to_dict()})
            continue
        if queued:  # a repeat of a document still queued or being read is not queued twice (one parse)
            svc.queue_ingest(doc["id"])
            queued_any = True
        added.append(doc)
    if not added:  # every file was refused: report the first reason in the one error shape
        first = rejected[0]["error"]
        raise SourcecheckError(
            f"No file was added. {rejected[0]['filename']}: {first['message']}", code=first["code"], status=422
        )
    body: dict[str, Any] = {"ok": True, "documents": added}
    if rejected:
        body["rejected"] = rejected
    return body, 202 if queued_any else 200


@bp.get("/documents")
def list_documents() -> dict[str, Any]:
    return {"ok": True, "documents": get_services().library().list()}


@bp.get("/documents/<doc_id>")
def get_document(doc_id: str) -> dict[str, Any]:
    return {"ok": True, "document": get_services().library().get(doc_id)}


@bp.get("/documents/<doc_id>/file")
def get_file(doc_id: str) -> Response:
    library = get_services().library()
    doc = library.get(doc_id)
    # cleaned here too: the library may hold a name that was not (from an older version, or another backend)
    download_name = clean_filename(doc["filename"])
    return send_file(library.file_path(doc_id), mimetype="application/pdf", download_name=download_name)


@bp.delete("/documents/<doc_id>")
def delete_document(doc_id: str) -> dict[str, bool]:
    get_services().library().delete(doc_id)
    return {"ok": True}
