"""Helpers for the browser tests: the real backend as a subprocess, polling, and reading the
extension's closed shadow root through the DevTools protocol."""

import contextlib
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def wait_until(fn, timeout=15.0, interval=0.1, what="condition"):
    """Poll fn until it returns something truthy; fail with `what` after timeout seconds."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = fn()
        except Exception as e:  # a page mid-navigation, a port not open yet
            last = e
        else:
            if last:
                return last
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ------------------------------------------------------------------ the real backend


class Backend:
    """`python -m sourcecheck serve` in a subprocess, with its own index folder and port."""

    def __init__(self, index_dir, env=None, token=None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token = token or secrets.token_hex(16)
        self.index_dir = Path(index_dir)
        self.index_dir.mkdir(parents=True, exist_ok=True)
        self.lines = []
        self.pairing_code = None
        full_env = dict(os.environ)
        full_env.update(
            {
                "SOURCECHECK_TOKEN": self.token,
                "SOURCECHECK_INDEX_DIR": str(self.index_dir),
                "SOURCECHECK_PORT": str(self.port),
                "PYTHONUNBUFFERED": "1",
            }
        )
        full_env.update(env or {})
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sourcecheck", "serve"],
            cwd=ROOT,
            env=full_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            encoding="utf-8",
        )
        threading.Thread(target=self._read, daemon=True).start()
        wait_until(self._healthy, timeout=90, interval=0.2, what=f"the backend on {self.url}")

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            m = re.search(r"Pairing code: (\d{3}-\d{3})", line)
            if m and not self.pairing_code:
                self.pairing_code = m.group(1)

    def _healthy(self):
        if self.proc.poll() is not None:
            raise RuntimeError("backend exited:\n" + "\n".join(self.lines[-30:]))
        try:
            return self.request("GET", "/health", auth=False)["ok"] and self.pairing_code
        except (urllib.error.URLError, ConnectionError, OSError):
            return False

    def request(self, method, path, body=None, auth=True, headers=None):
        """A JSON API call; returns the decoded body (raises HTTPError for 4xx/5xx)."""
        h = dict(headers or {})
        data = None
        if auth:
            h["Authorization"] = "Bearer " + self.token
        if isinstance(body, (dict, list)):
            data = json.dumps(body).encode()
            h["Content-Type"] = "application/json"
        elif body is not None:
            data = body
        req = urllib.request.Request(self.url + "/api/v1" + path, data=data, method=method, headers=h)
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read() or b"{}")

    def upload(self, path):
        """POST /documents with one PDF; returns the Document."""
        boundary = uuid.uuid4().hex
        payload = (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{Path(path).name}"\r\n'
                f"Content-Type: application/pdf\r\n\r\n"
            ).encode()
            + Path(path).read_bytes()
            + f"\r\n--{boundary}--\r\n".encode()
        )
        res = self.request(
            "POST", "/documents", payload, headers={"Content-Type": f"multipart/form-data; boundary={boundary}"}
        )
        return res["documents"][0]

    def wait_ready(self, doc_id, timeout=60):
        def ready():
            d = self.request("GET", f"/documents/{doc_id}")["document"]
            if d["status"] == "failed":
                raise AssertionError(f"ingestion failed: {d['error']}")
            return d if d["status"] == "ready" else None

        return wait_until(ready, timeout=timeout, what=f"document {doc_id} to be ready")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


@contextlib.contextmanager
def slow_backend(ext, index_dir, pdf, delay):
    """A second backend whose fake judge takes `delay` s per critique, with `pdf` ready and the extension paired
    with it; stopped afterwards."""
    b = Backend(
        index_dir,
        {"SOURCECHECK_BACKEND": "fake", "SOURCECHECK_EMBEDDINGS": "hash", "SOURCECHECK_FAKE_DELAY": str(delay)},
    )
    try:
        b.wait_ready(b.upload(pdf)["id"])
        ext.storage({"backendUrl": b.url, "token": b.token})
        yield b
    finally:
        b.stop()


# ------------------------------------------------------------------ the closed shadow root, via CDP


class ShadowUI:
    """Reads the extension's closed shadow root in a page through the DevTools protocol (page
    scripts and Playwright selectors cannot enter a closed root; CDP's pierce can)."""

    def __init__(self, page):
        self.page = page
        self.cdp = page.context.new_cdp_session(page)

    def _root(self):
        doc = self.cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"]
        stack = [doc]
        while stack:
            n = stack.pop()
            if n.get("nodeName") == "SOURCECHECK-UI":
                roots = n.get("shadowRoots") or []
                return roots[0] if roots else None
            stack.extend(n.get("children", []))
            stack.extend(n.get("shadowRoots", []))
            if n.get("contentDocument"):
                stack.append(n["contentDocument"])
        return None

    @staticmethod
    def _classes(n):
        attrs = n.get("attributes", [])
        d = dict(zip(attrs[::2], attrs[1::2]))
        return d.get("class", "").split(), d

    def find(self, cls, under=None):
        """The first element with class cls (below the node `under`, when given): (node, attributes) or (None, {})."""
        if under is not None:
            stack = list(under.get("children", []))
        else:
            root = self._root()
            stack = [root] if root else []
        while stack:
            n = stack.pop(0)
            classes, attrs = self._classes(n)
            if cls in classes:
                return n, attrs
            stack.extend(n.get("children", []))
        return None, {}

    def find_all(self, cls):
        root = self._root()
        out, stack = [], [root] if root else []
        while stack:
            n = stack.pop(0)
            if cls in self._classes(n)[0]:
                out.append(n)
            stack.extend(n.get("children", []))
        return out

    @staticmethod
    def text(node):
        if node is None:
            return ""
        if node.get("nodeType") == 3:
            return node.get("nodeValue", "")
        return " ".join(t for t in (ShadowUI.text(c) for c in node.get("children", [])) if t)

    def shown(self, cls, *also):
        """The element with class cls if it is shown (and has the classes in `also`), else None."""
        node, attrs = self.find(cls)
        classes = attrs.get("class", "").split()
        return node if node is not None and all(c in classes for c in ("show",) + also) else None

    def center(self, node):
        quad = self.cdp.send("DOM.getBoxModel", {"backendNodeId": node["backendNodeId"]})["model"]["content"]
        xs, ys = quad[0::2], quad[1::2]
        return sum(xs) / 4, sum(ys) / 4

    def click(self, node):
        x, y = self.center(node)
        self.page.mouse.click(x, y)


HIGHLIGHTS_JS = """() => {
  const out = {};
  for (const [name, h] of CSS.highlights) out[name] = [...h].map(r => r.toString().replace(/\\s+/g, ' ').trim());
  return out;
}"""


def select_answer(page):
    page.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")


def wait_done(ext):
    return wait_until(
        lambda: (lc := ext.last_check()) and lc["status"] in ("done", "error") and lc, what="the check to finish"
    )


def mark_center(page, name, text):
    """Viewport centre of the first line of the marked range whose text is `text`."""
    return page.evaluate(
        """([name, text]) => {
        const r = [...CSS.highlights.get(name)].find(r => r.toString().replace(/\\s+/g, ' ').trim() === text);
        const b = r.getClientRects()[0];
        return [b.left + Math.min(b.width / 2, 40), b.top + b.height / 2];
    }""",
        [name, text],
    )
