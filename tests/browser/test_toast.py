"""The progress toast on a chat page: a time left from the first second of a first-ever check (a guess, said to be
one), and a place that covers neither the selection nor the person's own message above it."""

import json
import re
import threading
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from browser_helpers import ShadowUI, wait_until

pytestmark = pytest.mark.browser


class _SlowStart(BaseHTTPRequestHandler):
    """A backend that names the sentences at once and then thinks (a model loading): no verdict comes."""

    def __init__(self, release, *args, **kwargs):
        self.release = release
        super().__init__(*args, **kwargs)

    def log_message(self, *args):
        pass

    def _json(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._json({"ok": True, "documents": [], "library": {"documents": 1, "chunks": 3}})

    def do_POST(self):
        text = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["text"]
        found = [m for m in re.finditer(r"\S[^.!?]*[.!?]", text)]
        sentences = [
            {"index": i, "start": m.start(), "end": m.end(), "text": m.group(0), "checkable": True}
            for i, m in enumerate(found)
        ]
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.end_headers()
        self.wfile.write((json.dumps({"type": "sentences", "sentences": sentences}) + "\n").encode())
        self.wfile.flush()
        self.release.wait(30)


@pytest.fixture
def slow_start(ext):
    release = threading.Event()
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_SlowStart, release))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    ext.storage({"backendUrl": f"http://127.0.0.1:{server.server_address[1]}", "token": "t"})  # no pace kept
    yield
    release.set()
    server.shutdown()


def select_answer(page):
    page.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")


def progress(ui):
    t = ui.shown("toast")
    return t is not None and "sentences checked" in ShadowUI.text(t) and ShadowUI.text(t)


def test_a_first_ever_check_has_an_estimate_from_its_first_second(ext, chat, slow_start, artifacts):
    ui = ShadowUI(chat)
    select_answer(chat)
    ext.check_tab(chat)
    text = wait_until(lambda: progress(ui), what="the progress toast")
    # Before any verdict, with no pace kept: 5 s a sentence, said to be a guess, from the first tick on.
    text = wait_until(lambda: "left" in (t := progress(ui) or "") and t, timeout=2.5, what="an estimate")
    assert re.search(
        r"^0 of \d+ sentences checked · [01] s · about [\d a-z]+ left \(a first guess\)$",
        text.split("PDFs… ")[-1].removesuffix(" Cancel"),
    ), text
    chat.wait_for_timeout(1200)
    chat.screenshot(path=str(artifacts / "progress-first-guess.png"))  # extension/docs/progress-first-guess.png


def rect(ui, node):
    quad = ui.cdp.send("DOM.getBoxModel", {"backendNodeId": node["backendNodeId"]})["model"]["border"]
    return quad[0], quad[1], quad[4], quad[5]


def overlaps(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_the_toast_covers_neither_the_selection_nor_the_message_above_it(ext, chat):
    ui = ShadowUI(chat)
    select_answer(chat)
    ext.check_tab(chat)
    toast = wait_until(lambda: ui.shown("toast"), what="the toast")
    # (drawn once its stylesheet is in: until then it has no place)
    box = wait_until(lambda: (b := rect(ui, toast)) and b[2] - b[0] > 300 and b, what="the toast in place")
    bubble = chat.evaluate(
        "() => { const r = document.querySelector('.bubble').getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom]; }"
    )
    lines = chat.evaluate(
        "() => [...document.getElementById('answer').querySelectorAll('p, li')].map(e => e.getBoundingClientRect())"
        ".map(r => [r.left, r.top, r.right, r.bottom])"
    )
    assert not overlaps(box, bubble), (box, bubble)
    assert not any(overlaps(box, line) for line in lines), (box, lines)
    assert 0 <= box[0] and box[2] <= 1100 and 0 <= box[1] and box[3] <= 760, box
