"""The waitress server `sourcecheck serve` runs, set so that idle or refused connections cannot lock clients out.

waitress serves at most `connection_limit` sockets and closes one only after `channel_timeout` seconds without
traffic while no request runs on it. Its defaults (100 sockets, 120 s) let about 98 silent sockets, or requests
refused with a 403 whose connections stay open, shut every other client out for two minutes. Here:

- idle connections close after CHANNEL_TIMEOUT seconds (waitress's maintenance() skips a connection whose request
  is running, so a check that streams nothing while the model thinks keeps its connection however long it takes);
- up to MAX_CONNECTIONS sockets are served (the open-files limit is raised to allow them, and poll() is used, which,
  unlike select(), takes descriptors past 1023);
- a request answered 4xx (refused: bad Host or Origin, no token, malformed) closes its connection after the answer;
- waitress's own errors (a malformed request line, headers too large, a bad chunked body) answer in the API's
  one JSON error shape, like every error of the app.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer, create_server
from waitress.task import ErrorTask, WSGITask

from sourcecheck.errors import SourcecheckError, error_body

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication
    from waitress.adjustments import Adjustments
    from waitress.server import MultiSocketServer
    from waitress.utilities import Error

CHANNEL_TIMEOUT = 10  # s a connection with no request running may stay silent (the panel polls every 5 s)
CLEANUP_INTERVAL = 1  # s between waitress's sweeps for such connections (it also wakes at least once a second)
MAX_CONNECTIONS = 1000  # sockets served at once; silent ones are closed within about CHANNEL_TIMEOUT + 2 s
MIN_CONNECTIONS = 100  # waitress's default, kept when the open-files limit cannot be raised
FD_RESERVE = 256  # open files kept for everything else: the index's files, the PDF reader, the model, logs
SELECT_CONNECTIONS = 400  # without poll() (Windows), select() watches at most 512 sockets
# waitress's own errors, coded as the app codes the framework's (docs/api.md): any other status is http_error
WAITRESS_ERROR_CODES = {400: "bad_request", 413: "too_large", 431: "too_large", 500: "internal_error"}
OTHER_HTTP_ERROR = "http_error"


class ClosingTask(WSGITask):
    """A request of the app; one answered 4xx closes its connection once the answer is sent.

    A WSGI app may not send `Connection: close` itself (a hop-by-hop header: PEP 3333, and waitress asserts on
    it), so the server adds it here, from the status, just before the response's headers are written."""

    def build_response_header(self) -> bytes:
        if self.status.startswith("4"):
            self.set_close_on_finish()  # adds `Connection: close`; the channel closes once the answer is flushed
        return super().build_response_header()


class JSONErrorTask(ErrorTask):
    """waitress's answer to a request it could not parse (or an app that failed before answering), in the API's
    JSON error shape rather than plain text. The connection closes after it, as waitress's own does."""

    def execute(self) -> None:
        e = self.request.error
        code = WAITRESS_ERROR_CODES.get(e.code, OTHER_HTTP_ERROR)
        error = SourcecheckError(_message(e, self.channel.adj), code=code, status=e.code)
        body = (json.dumps(error_body(error), separators=(",", ":"), sort_keys=True) + "\n").encode("utf-8")
        self.status = f"{e.code} {e.reason}"
        self.response_headers.append(("Content-Type", "application/json"))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


def _message(e: Error, adj: Adjustments) -> str:
    if e.code == 431:
        return f"The request's headers are larger than {adj.max_request_header_size:,} bytes."
    if e.code == 413:
        return f"The request is larger than {adj.max_request_body_size:,} bytes."
    if e.code == 500:
        return "Something went wrong inside sourcecheck: the server could not answer the request."
    detail = " ".join(str(e.body).split())[:200].rstrip(".")  # waitress's reason, on one line, not a whole header
    return f"The request is malformed: {detail}." if e.code == 400 else f"{e.reason}: {detail}."


class Channel(HTTPChannel):
    task_class = ClosingTask
    error_task_class = JSONErrorTask


def connection_limit() -> int:
    """How many sockets to serve: MAX_CONNECTIONS if the open-files limit allows it (its soft limit is raised to the
    hard one when it is lower than needed), else what the limit leaves after FD_RESERVE, but at least
    waitress's default."""
    try:
        import resource
    except ImportError:  # Windows: no such limit, but select() and at most 512 sockets
        return SELECT_CONNECTIONS
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = MAX_CONNECTIONS + FD_RESERVE
    if soft != resource.RLIM_INFINITY and soft < wanted:
        # macOS reports an unlimited hard limit but refuses a soft one past OPEN_MAX (10240)
        for target in (wanted, hard, 10240):  # no more than needed: children inherit the limit
            if hard != resource.RLIM_INFINITY and target > hard:
                continue
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
                soft = target
                break
            except (ValueError, OSError):
                continue
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(MIN_CONNECTIONS, min(MAX_CONNECTIONS, soft - FD_RESERVE))


def build_server(app: WSGIApplication, host: str, port: int, threads: int) -> BaseWSGIServer | MultiSocketServer:
    """The waitress server for app, listening but not yet running (call .run(), then .close())."""
    # channel_request_lookahead: the socket is watched while a request runs, so a cancelled check is seen at once
    server = create_server(
        app,
        host=host,
        port=port,
        threads=threads,
        ident="sourcecheck",
        clear_untrusted_proxy_headers=True,
        channel_request_lookahead=1,
        channel_timeout=CHANNEL_TIMEOUT,
        cleanup_interval=CLEANUP_INTERVAL,
        connection_limit=connection_limit(),
        asyncore_use_poll=sys.platform != "win32",
    )
    # a host like "localhost" gives one listening server per address, all in the map of the one returned
    for listener in {server, *getattr(server, "map", {}).values()}:
        if isinstance(listener, BaseWSGIServer):
            listener.channel_class = Channel  # read at each accept()
    return server
