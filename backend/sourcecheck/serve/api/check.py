"""POST /check: NDJSON events as verdicts are known, or one JSON object with Accept: application/json."""

import json
import logging
from collections.abc import Callable, Generator, Iterator, Mapping
from typing import Any

from flask import Blueprint, Response, request

from sourcecheck.check import CheckOptions, check_text, collect
from sourcecheck.errors import BadRequest, InternalError, InvalidOption, SourcecheckError
from sourcecheck.serve.machine import Load
from sourcecheck.serve.services import get_services
from sourcecheck.zotero.view import limit_to_collection

bp = Blueprint("check", __name__)
log = logging.getLogger(__name__)


@bp.post("/check")
def check() -> Response | dict[str, Any]:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise BadRequest('Send a JSON object like {"text": "..."}.')
    text, documents, raw = body.get("text"), body.get("documents"), body.get("options") or {}
    if not isinstance(text, str):
        raise BadRequest("'text' must be a string.")
    if documents is not None and not (isinstance(documents, list) and all(isinstance(d, str) for d in documents)):
        raise BadRequest("'documents' must be a list of document ids.")
    if not isinstance(raw, dict):
        raise BadRequest("'options' must be an object.")
    svc = get_services()
    judge = svc.judge()
    for name in ("revise", "decompose"):  # bool("false") is True: a string must not switch an option on
        if raw.get(name) is not None and not isinstance(raw[name], bool):
            raise InvalidOption(f"'options.{name}' must be true or false, not {json.dumps(raw[name])[:40]}.")
    sensitivity = raw.get("sensitivity")
    if sensitivity is not None and (not isinstance(sensitivity, str) or sensitivity not in judge.bands):
        raise InvalidOption(
            f"'options.sensitivity' must be one of {', '.join(judge.bands)}, not {json.dumps(sensitivity)[:40]}."
        )
    options = CheckOptions(
        revise=raw.get("revise") is True,
        decompose=raw.get("decompose") is True,
        top_k=svc.settings["TOP_K"],
        sensitivity=sensitivity,
    )
    library = svc.library()
    events = check_text(
        text,
        library,
        judge,
        limit_to_collection(body.get("collection"), documents or None, library, svc.settings["INDEX_DIR"]),
        options,
        max_chars=svc.settings["MAX_TEXT_CHARS"],
        max_sentences=svc.settings["MAX_SENTENCES"],
    )
    judge.prepare()  # a missing or broken model is a clear 503 now rather than an error mid-stream
    if request.accept_mimetypes.best == "application/json":
        return collect(events)
    if local_judge(svc.settings):
        events = with_machine(events, svc.load())
    # waitress watches the socket while the check runs (channel_request_lookahead) and says when the client left
    disconnected = request.environ.get("waitress.client_disconnected", lambda: False)
    return Response(stream(events, disconnected), mimetype="application/x-ndjson", headers={"X-Accel-Buffering": "no"})


def local_judge(settings: Mapping[str, Any]) -> bool:
    """Whether the judge runs in this process (llama.cpp): only then is other work on the machine what slows it, and
    its own work this process's. A judge server, even on 127.0.0.1, does its work in another process (counted as
    another's) and may not be slowed by the CPU at all (a GPU)."""
    return bool(settings["BACKEND"] != "openai")


def with_machine(events: Generator[dict[str, Any], None, None], load: Load) -> Generator[dict[str, Any], None, None]:
    """The events, the first (sentences) with how busy the machine is: {"cores", "others_busy"} (docs/api.md)."""
    try:
        for event in events:
            if event["type"] == "sentences":
                try:
                    busy = load.others_busy()
                except Exception:  # an estimate's input: never worth a check
                    log.exception("reading the machine's load failed")
                    busy = None
                if busy is not None:
                    event = {**event, "machine": {"cores": load.cores, "others_busy": busy}}
            yield event
    finally:
        events.close()  # a client that left stops the check (stream closes this generator)


def stream(
    events: Generator[dict[str, Any], None, None], disconnected: Callable[[], bool] = lambda: False
) -> Iterator[str]:
    verdicts = 0
    try:
        for event in events:
            yield json.dumps(event) + "\n"
            verdicts += event["type"] == "verdict"
            if disconnected():  # a cancelled check: stop before the next model call, not a few writes later
                events.close()
                log.info(STOPPED, verdicts)
                return
    except GeneratorExit:  # the client went away and a write failed: no more model calls
        events.close()
        log.info(STOPPED, verdicts)
        raise
    except SourcecheckError as e:
        yield error_event(e)
    except Exception as e:  # the stream has started: the status is sent, so the error goes in the stream
        log.exception("check failed")
        yield error_event(InternalError.wrap(e))


STOPPED = "check stopped after %d verdict events: the client disconnected"


def error_event(e: SourcecheckError) -> str:
    """The stream's last line when a check fails after the response has started."""
    return json.dumps({"type": "error", "error": e.to_dict()}) + "\n"
