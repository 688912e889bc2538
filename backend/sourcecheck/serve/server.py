"""The waitress server `sourcecheck serve` runs, set so that idle, trickling or refused connections cannot lock
clients out.

waitress serves at most `connection_limit` sockets and closes one only after `channel_timeout` seconds without
traffic while no request runs on it. Its defaults (100 sockets, 120 s) let about 98 silent sockets, or requests
refused with a 403 whose connections stay open, shut every other client out for two minutes; and any byte resets
the timeout, so sockets that each send a byte of a request every few seconds shut them out for good. Here:

- idle connections close after CHANNEL_TIMEOUT seconds (waitress's maintenance() skips a connection whose request
  is running, so a check that streams nothing while the model thinks keeps its connection however long it takes);
- a request being read has a deadline of its own, which a byte now and then does not move: REQUEST_GRACE seconds
  from its first byte, plus a second for every MIN_REQUEST_RATE bytes of it that have come;
- one place below the limit is kept free: when the connections reach it, the one nearest to being closed anyway
  (the longest idle, or the request furthest behind) is closed, so a new client is let in at once, not when some
  deadline passes; and every client waiting is let in at each turn of the loop, not one;
- up to MAX_CONNECTIONS sockets are served (the open-files limit is raised to allow them, and poll() is used, which,
  unlike select(), takes descriptors past 1023);
- a request answered 4xx (refused: bad Host or Origin, no token, malformed) closes its connection after the answer;
- waitress's own errors (a malformed request line, headers too large, a bad chunked body) answer in the API's
  one JSON error shape, like every error of the app.
"""

from __future__ import annotations

import json
import sys
import time
from typing import TYPE_CHECKING, Any

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import MultiSocketServer, TcpWSGIServer
from waitress.task import ErrorTask, ThreadedTaskDispatcher, WSGITask

from sourcecheck.errors import SourcecheckError, error_body

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication
    from waitress.utilities import Error

CHANNEL_TIMEOUT = 10  # s a connection with no request running may stay silent (the panel polls every 5 s)
CLEANUP_INTERVAL = 1  # s between waitress's sweeps for such connections (it also wakes at least once a second)
REQUEST_GRACE = 10  # s a request may take from its first byte to its last, however slowly it comes, plus:
MIN_REQUEST_RATE = 64 * 1024  # bytes/s: each this many of it received add a second (100 MB on loopback: < 1 s)
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
    request_began = 0.0  # time.time() of the first byte of the request being read (waitress's clock)
    request_bytes = 0  # bytes received since then

    def received(self, data: bytes) -> bool:
        reading = self.request  # waitress's parser of the request being read, None between requests
        done = super().received(data)
        if self.request is not reading:  # a request began in data (maybe after the end of another)
            self.request_began, self.request_bytes = time.time(), 0
        self.request_bytes += len(data)
        return bool(done)

    def waiting(self) -> bool:
        """Whether the connection waits for its client: no request of it runs (a running one keeps it)."""
        return not self.requests

    def lateness(self, now: float) -> float:
        """Seconds the connection has held its place without its client doing its part: how long it has been idle
        (closed at CHANNEL_TIMEOUT), or how far the request being read is behind MIN_REQUEST_RATE (closed at
        REQUEST_GRACE)."""
        if self.request is None:
            return now - self.last_activity
        return now - self.request_began - self.request_bytes / MIN_REQUEST_RATE


class Server(TcpWSGIServer):
    channel_class = Channel

    def maintenance(self, now: float) -> None:
        super().maintenance(now)  # idle connections
        for channel in self.active_channels.values():
            if channel.request is not None and channel.waiting() and channel.lateness(now) > REQUEST_GRACE:
                channel.will_close = True

    def readable(self) -> bool:
        """waitress's: maintenance, then accept unless at the limit; with a place made first when the connections
        are one short of it, so that waitress never stops accepting while a connection only waits."""
        if self.accepting and len(self._map) >= self.adj.connection_limit - 1:
            self.make_room()
        return bool(super().readable())

    def handle_accept(self) -> None:
        """Every client waiting to be let in, up to the place kept free: waitress takes one a turn of its loop, and a
        turn asks every connection, so behind a burst of a thousand (tricklers closed at their deadline, coming
        back) a client waited seconds."""
        while True:
            before = len(self._map)
            super().handle_accept()
            if len(self._map) == before or len(self._map) >= self.adj.connection_limit - 1:
                return  # none waiting (or one refused on accept: waitress logs it), or no place left

    def make_room(self) -> None:
        """Close the waiting connection nearest to being closed anyway (unless one is closing already). It closes in
        this turn of the loop, in which the next client is accepted: a channel marked will_close is writable, and
        the loop asks the channels after the listening socket, which was in its map before them."""
        channels = [c for c in self._map.values() if isinstance(c, Channel)]
        if any(c.will_close for c in channels):
            return
        now = time.time()
        waiting = [c for c in channels if c.waiting()]
        if waiting:
            max(waiting, key=lambda c: c.lateness(now)).will_close = True


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


def build_server(app: WSGIApplication, host: str, port: int, threads: int) -> Server | MultiSocketServer:
    """The waitress server for app, listening but not yet running (call .run(), then .close()): what waitress's
    create_server builds, with Server for each address."""
    # channel_request_lookahead: the socket is watched while a request runs, so a cancelled check is seen at once
    adj = Adjustments(
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
    dispatcher = ThreadedTaskDispatcher()
    dispatcher.set_thread_count(threads)
    sockets: dict[int, Any] = {}
    # a host like "localhost" has one address per family: a server for each, in one map, run by one loop
    servers = [Server(app, sockets, dispatcher=dispatcher, adj=adj, sockinfo=info) for info in adj.listen]
    if len(servers) == 1:
        return servers[0]
    listening = [(s.effective_host, s.effective_port) for s in servers]
    return MultiSocketServer(sockets, adj, listening, dispatcher, servers[0].log_info)
