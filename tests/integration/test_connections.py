"""Connections on the real server (waitress): idle, half-sent or refused sockets cannot lock a client out, a refused
request's connection closes, an idle one closes after CHANNEL_TIMEOUT, a check silent for longer still streams whole,
and waitress's own errors (malformed request, headers too large, bad chunked body) come in the API's JSON shape."""

import json
import socket
import subprocess
import time
from contextlib import contextmanager

import httpx
import pytest
from sourcecheck.serve.server import CHANNEL_TIMEOUT, CLEANUP_INTERVAL
from waitress.adjustments import Adjustments

from integration.conftest import PYTHON, free_port, sourcecheck_env, stop, wait_for
from integration.test_load import AUTH, TOKEN, in_order, upload_ready

pytestmark = pytest.mark.integration
IDLE = 200
TEXT = "The Golden Gate Bridge opened to traffic on May 27, 1937. The bridge was painted by robots."
# waitress looks for idle connections every CLEANUP_INTERVAL, and its loop wakes at least once a second
CLOSES_WITHIN = CHANNEL_TIMEOUT + CLEANUP_INTERVAL + 1 + 3  # + 3 s of margin for a loaded machine
# A client locked out behind the idle sockets would wait until the server closes one, CHANNEL_TIMEOUT after it fell
# silent; one served beside them answers before that, whatever the machine's load.
PROMPT = CHANNEL_TIMEOUT / 2  # the oldest idle socket fell silent a second or two before the probe
MAX_HEADER = Adjustments.max_request_header_size  # waitress's default, which serve keeps


@contextmanager
def serving(index_dir, **settings):
    port = free_port()
    env = sourcecheck_env(index_dir, BACKEND="fake", EMBEDDINGS="hash", PORT=port, TOKEN=TOKEN, **settings)
    proc = subprocess.Popen(
        [PYTHON, "-m", "sourcecheck", "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_for(f"http://127.0.0.1:{port}/api/v1/health", proc)
        yield port
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def port(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("connections") / "index") as port:
        yield port


def request(port, method, path, headers=(), body=b""):
    head = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", *headers]
    if body:
        head.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


def read_response(sock, timeout=10.0):
    """(status, headers with lower-case names, body) of one response with a Content-Length."""
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"connection closed before a whole response: {data!r}"
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    headers = dict((k.strip().lower(), v.strip()) for k, v in (line.split(":", 1) for line in lines[1:]))
    while len(body) < int(headers["content-length"]):
        chunk = sock.recv(65536)
        assert chunk, "connection closed inside the body"
        body += chunk
    return int(lines[0].split()[1]), headers, body


def closed_within(sock, seconds):
    """Seconds until the server closed sock (recv gives b'' or a reset), or None if it is still open then."""
    start = time.monotonic()
    sock.settimeout(max(seconds, 0.01))
    try:
        while True:
            if sock.recv(4096) == b"":
                return time.monotonic() - start
    except ConnectionResetError:
        return time.monotonic() - start
    except TimeoutError:
        return None


def connect(port):
    return socket.create_connection(("127.0.0.1", port), timeout=10)


def test_two_hundred_idle_sockets_do_not_lock_a_client_out(port, bridge_pdf):
    api = f"http://127.0.0.1:{port}/api/v1"
    assert upload_ready(api, bridge_pdf)["status"] == "ready"
    refused = [
        request(port, "GET", "/api/v1/health", ["Origin: https://evil.example"]),
        request(port, "GET", "/api/v1/health").replace(b"127.0.0.1", b"rebind.evil.example"),
    ]
    sockets = []
    try:
        for i in range(IDLE):  # a third refused with 403 and left open, a third half a request line, a third silent
            sock = connect(port)
            sockets.append(sock)
            if i < IDLE // 3:  # first, so that even a server with a low connection limit answers them
                sock.sendall(refused[i % 2])
                assert read_response(sock)[0] == 403
            elif i < 2 * IDLE // 3:
                sock.sendall(b"GET /api/v1/hea")
        time.sleep(0.5)  # the server has accepted what it will accept

        start = time.monotonic()
        health = httpx.get(f"{api}/health", timeout=30)
        health_s = time.monotonic() - start
        start = time.monotonic()
        check = httpx.post(
            f"{api}/check", json={"text": TEXT}, headers={**AUTH, "Accept": "application/json"}, timeout=30
        )
        check_s = time.monotonic() - start
        print(f"\nbehind {IDLE} idle sockets: GET /health {health_s:.3f} s, POST /check {check_s:.3f} s")
        assert health.status_code == 200 and health.json()["ok"]
        assert check.status_code == 200 and len(check.json()["verdicts"]) == 2
        assert health_s < PROMPT and check_s < PROMPT
        # Served beside them, not after them: the silent sockets still hold their places.
        silent = sockets[2 * IDLE // 3 :]
        assert all(closed_within(sock, 0) is None for sock in silent), "the server dropped idle sockets to answer"
    finally:
        for sock in sockets:
            sock.close()


def test_a_refused_request_closes_its_connection(port):
    for raw, status in (
        (request(port, "GET", "/api/v1/health", ["Origin: https://evil.example"]), 403),
        (request(port, "GET", "/api/v1/health").replace(b"127.0.0.1", b"evil.example"), 403),
        (request(port, "GET", "/api/v1/documents"), 401),
        (request(port, "GET", "/api/v1/documents", ["Authorization: Bearer wrong"]), 401),
    ):
        with connect(port) as sock:
            sock.sendall(raw)
            got, headers, body = read_response(sock)
            assert got == status and json.loads(body)["status"] == status
            assert headers.get("connection") == "close"
            closed = closed_within(sock, 2.0)
            assert closed is not None, f"the connection of a {status} stayed open"
            print(f"\n{status}: connection closed {closed * 1000:.1f} ms after the response")
    with connect(port) as sock:  # an accepted request keeps its connection for the next one
        for _ in range(2):
            sock.sendall(request(port, "GET", "/api/v1/health", [f"Authorization: Bearer {TOKEN}"]))
            got, headers, _ = read_response(sock)
            assert got == 200 and "connection" not in headers


def test_an_idle_connection_is_closed_after_the_channel_timeout(port):
    silent, half = connect(port), connect(port)
    half.sendall(b"POST /api/v1/check HTTP/1.1\r\nHost: 127.0.0.1")
    with silent, half:
        silent_s = closed_within(silent, CLOSES_WITHIN)
        half_s = closed_within(half, 2.0)
        print(
            f"\nidle connections closed after {silent_s} s (silent), +{half_s} s (half a request); "
            f"channel_timeout {CHANNEL_TIMEOUT} s, cleanup_interval {CLEANUP_INTERVAL} s"
        )
        assert silent_s is not None and half_s is not None
        assert silent_s >= CHANNEL_TIMEOUT - 0.5  # not before its time


def test_a_check_silent_for_longer_than_the_channel_timeout_streams_whole(index_dir, bridge_pdf):
    """The one critique takes longer than an idle connection may last: the stream is silent that long, and an idle
    socket opened with it is closed meanwhile, but the check's own connection is not."""
    delay = CHANNEL_TIMEOUT + CLEANUP_INTERVAL + 3
    with serving(index_dir, FAKE_DELAY=delay) as port:
        api = f"http://127.0.0.1:{port}/api/v1"
        upload_ready(api, bridge_pdf)
        with connect(port) as idle:
            events, times = [], [time.monotonic()]
            with httpx.stream(
                "POST",
                f"{api}/check",
                json={"text": "The bridge was painted by two robots from Mars."},
                headers=AUTH,
                timeout=3 * delay,
            ) as resp:
                for line in resp.iter_lines():
                    if line:
                        events.append(json.loads(line))
                        times.append(time.monotonic())
            idle_closed = closed_within(idle, 0.01) is not None
        silence = max(b - a for a, b in zip(times, times[1:]))
        print(
            f"\nstream: {[e['type'] for e in events]}, longest silence {silence:.1f} s; idle socket closed "
            f"meanwhile: {idle_closed}"
        )
        assert resp.status_code == 200 and in_order(events)
        assert events[-1]["type"] == "summary" and "error" not in events[-1]
        assert silence > CHANNEL_TIMEOUT + CLEANUP_INTERVAL + 1
        assert idle_closed  # the short timeout was in force while the stream was silent


@pytest.mark.parametrize(
    "raw, status, code",
    [
        (b"GARBAGE\r\n\r\n", 400, "bad_request"),
        (b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * MAX_HEADER, 431, "too_large"),
        (
            b"POST /api/v1/pair HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n",
            400,
            "bad_request",
        ),
        (b"POST /api/v1/pair HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 99999999999\r\n\r\n", 413, "too_large"),
        (b"POST /api/v1/pair HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "http_error"),
    ],
    ids=["malformed request line", "headers too large", "bad chunked body", "body too large", "unknown encoding"],
)
def test_waitress_errors_come_in_the_json_error_shape(port, raw, status, code):
    with connect(port) as sock:
        if status == 431:  # exactly the limit, unfinished: the server has read all of it when it answers
            raw = raw[:MAX_HEADER]
        sock.sendall(raw)
        got, headers, body = read_response(sock)
        assert got == status
        assert headers["content-type"] == "application/json"
        error = json.loads(body)
        assert error == {"ok": False, "error": {"code": code, "message": error["error"]["message"]}, "status": status}
        assert error["error"]["message"].endswith(".")
        assert closed_within(sock, 2.0) is not None
