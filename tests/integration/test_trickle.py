"""Trickling sockets cannot lock clients out (issue 37). 1,010 connections that each send a few bytes of a request
every few seconds (any byte restarts waitress's channel_timeout) held every place of the real server, and 8 of 8
requests waited the whole 45 s. Now /health and a check answer within 1 s behind them, again and again; each
trickling request is closed REQUEST_GRACE s after its first byte, however it trickles; and an upload slower than any
loopback client, but steady, outlives that grace and arrives whole."""

import socket
import threading
import time

import httpx
import pytest
from sourcecheck.serve.server import CLEANUP_INTERVAL, MAX_CONNECTIONS, MIN_REQUEST_RATE, REQUEST_GRACE

from integration.test_connections import TEXT, connect, read_response, request, serving
from integration.test_load import AUTH, TOKEN, upload_ready

pytestmark = pytest.mark.integration
TRICKLERS = MAX_CONNECTIONS + 10  # the tester's 1,010: more than the server serves at once
EVERY = 4.0  # s between two sends of a trickler
# A client locked out behind the tricklers would wait until the server drops one, REQUEST_GRACE after its first byte;
# one served beside them answers well before that: half of it, whatever the machine's load.
PROMPT = REQUEST_GRACE / 2
PROBES = 7  # rounds of /health and a check, one every 2 s: before REQUEST_GRACE, and while the tricklers closed
RUN = 14  # then come back
CLOSED_WITHIN = REQUEST_GRACE + CLEANUP_INTERVAL + 2  # s after its first byte; + 2 s of margin for a loaded machine
SLOW = 12  # s the slow upload takes, at twice MIN_REQUEST_RATE


class Trickler:
    """A socket that sends a request a few bytes at a time: the head 8 bytes at a time, or (body=True) the whole
    head, then a 10 MB body 1 byte at a time. Opened again when the server closes it, as an attacker would;
    `closed_after` is how long its first connection lived (as far as its sends tell: up to EVERY s more)."""

    def __init__(self, port, body):
        head = f"POST /api/v1/check HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode()
        if body:
            self.first, self.rest, self.step = head + b"Content-Length: 10000000\r\n\r\n", b"{" * 1000, 1
        else:
            self.first, self.rest, self.step = head[:8], head[8:] + b"X-Padding: " + b"a" * 1000, 8
        self.port, self.began, self.closed_after = port, time.monotonic(), None
        self.sock = self.open()

    def open(self):
        self.at = 0
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
        sock.sendall(self.first)
        sock.setblocking(False)  # a socket with a timeout waits for data before it looks, even with MSG_DONTWAIT
        return sock

    def closed(self):
        """Whether the server closed the socket; the first time, when."""
        try:
            closed = self.sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except BlockingIOError:  # open, nothing to read
            closed = False
        except OSError:  # reset
            closed = True
        if closed and self.closed_after is None:
            self.closed_after = time.monotonic() - self.began
        return closed

    def send(self):
        if self.closed():
            self.sock.close()
            self.sock = self.open()
            return
        try:
            self.sock.send(self.rest[self.at : self.at + self.step])
            self.at += self.step
        except OSError:
            pass  # closed meanwhile: the next send opens it again


def trickle(tricklers, stop):
    """Each trickler sends every EVERY s, an eighth of them at a time."""
    eighths = [tricklers[i::8] for i in range(8)]
    while True:
        for part in eighths:
            if stop.wait(EVERY / 8):
                return
            for t in part:
                t.send()


def slow_upload(port, pdf, result):
    """POST /documents of pdf padded to SLOW s at twice MIN_REQUEST_RATE, sent at that rate; (status, seconds) or
    what went wrong in result."""
    data = pdf + b"\n%" + b"x" * (2 * MIN_REQUEST_RATE * SLOW) + b"\n"  # a comment after the end: still a PDF
    part = b'--b\r\nContent-Disposition: form-data; name="file"; filename="slow.pdf"\r\n\r\n' + data + b"\r\n--b--\r\n"
    headers = [f"Authorization: Bearer {TOKEN}", "Content-Type: multipart/form-data; boundary=b"]
    raw = request(port, "POST", "/api/v1/documents", headers, part)
    step = MIN_REQUEST_RATE // 4  # 8 pieces a second
    start = time.monotonic()
    try:
        with connect(port) as sock:
            for at in range(0, len(raw), step):
                sock.sendall(raw[at : at + step])
                time.sleep(max(0.0, start + (at + step) / (2 * MIN_REQUEST_RATE) - time.monotonic()))
            result.append((read_response(sock, timeout=30)[0], time.monotonic() - start))
    except OSError as e:
        result.append((repr(e), time.monotonic() - start))


def timed(call):
    """(seconds, response) of call(), or (inf, None) when it had no answer in time."""
    start = time.monotonic()
    try:
        resp = call()
    except httpx.TimeoutException:
        return float("inf"), None
    return time.monotonic() - start, resp


def test_trickling_sockets_do_not_lock_clients_out(index_dir, bridge_pdf, fava_pdf):
    with serving(index_dir) as port:
        api = f"http://127.0.0.1:{port}/api/v1"
        assert upload_ready(api, bridge_pdf)["status"] == "ready"
        tricklers = [Trickler(port, body=i % 2 == 1) for i in range(TRICKLERS)]
        stop = threading.Event()
        sender = threading.Thread(target=trickle, args=(tricklers, stop), daemon=True)
        sender.start()
        uploaded = []
        uploader = threading.Thread(target=slow_upload, args=(port, fava_pdf.read_bytes(), uploaded), daemon=True)
        uploader.start()
        try:
            time.sleep(0.5)  # the server has accepted what it will accept
            start = time.monotonic()
            for probe in range(PROBES):
                time.sleep(max(0.0, start + probe * RUN / PROBES - time.monotonic()))
                health_s, health = timed(lambda: httpx.get(f"{api}/health", timeout=5))
                check_s, check = timed(
                    lambda: httpx.post(
                        f"{api}/check", json={"text": TEXT}, headers={**AUTH, "Accept": "application/json"}, timeout=5
                    )
                )
                print(f"\n{time.monotonic() - start:4.1f} s: GET /health {health_s:.3f} s, POST /check {check_s:.3f} s")
                assert health_s < PROMPT and check_s < PROMPT, f"behind {TRICKLERS} trickling sockets"
                assert health.status_code == 200 and check.status_code == 200
                assert len(check.json()["verdicts"]) == 2
            time.sleep(max(0.0, max(t.began for t in tricklers) + CLOSED_WITHIN - time.monotonic()))
        finally:
            stop.set()
            sender.join()
            uploader.join()
        open_still = [t for t in tricklers if not t.closed() and t.closed_after is None]
        for t in tricklers:
            t.sock.close()
        lived = sorted(t.closed_after or float("inf") for t in tricklers)
        early = sum(s < REQUEST_GRACE for s in lived)
        print(f"first connections closed after {lived[0]:.1f} to {lived[-1]:.1f} s; {early} to make room")
        assert open_still == [], f"{len(open_still)} trickling requests open {CLOSED_WITHIN} s after their first byte"
        print(f"a slow upload: {uploaded}")
        ((status, took),) = uploaded
        assert status == 202 and took > REQUEST_GRACE
