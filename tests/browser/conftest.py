"""Fixtures for the extension's end-to-end tests: the real backend (fake model, hash embeddings),
a chat-like page served from 127.0.0.1, and Debian's Chromium with the unpacked extension,
driven by Python Playwright through executable_path (scripts/setup_browser installs both; never
`playwright install`, which downloads its own browser)."""

import http.server
import os
import sys
import threading
from functools import partial
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXT = ROOT / "extension"
PAGES = Path(__file__).resolve().parent / "pages"
CHROMIUM = Path(os.environ.get("SOURCECHECK_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = ROOT / "tmp" / "artifacts" / "browser"

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser_helpers import Backend, wait_until  # noqa: E402


def pytest_collection_modifyitems(config, items):
    """Browser tests need Debian's Chromium: skip them, saying why, when it is missing."""
    if CHROMIUM.exists():
        return
    skip = pytest.mark.skip(reason=f"{CHROMIUM} is missing: run scripts/setup_browser")
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(skip)


# ------------------------------------------------------------------ the real backend


FAKE_ENV = {"SOURCECHECK_BACKEND": "fake", "SOURCECHECK_EMBEDDINGS": "hash"}


@pytest.fixture(scope="session")
def artifacts():
    """Screenshots of the run (git-ignored); stale failure shots from an earlier run are removed."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob("FAILED-*.png"):
        old.unlink()
    return ARTIFACTS


@pytest.fixture(scope="session")
def backend(tmp_path_factory):
    """The real backend with the fake judge: deterministic and fast."""
    b = Backend(tmp_path_factory.mktemp("index"), FAKE_ENV)
    yield b
    b.stop()


@pytest.fixture(scope="session")
def pdf_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("pdfs")


@pytest.fixture(scope="session")
def fava_doc(backend, pdf_dir):
    """The FAVA paper in the session backend's library (added through the API), ready."""
    from browser_pdfs import write_fava

    doc = backend.upload(write_fava(pdf_dir / "fava.pdf"))
    return backend.wait_ready(doc["id"])


# ------------------------------------------------------------------ a chat-like site on 127.0.0.1


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def site():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(PAGES)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


# ------------------------------------------------------------------ Chromium with the extension


class Browser:
    """A persistent Chromium context with the unpacked extension loaded, and helpers to reach it."""

    def __init__(self, ctx, sw):
        self.ctx = ctx
        self.sw = sw
        self.ext_id = sw.url.split("/")[2]

    def url(self, path):
        return f"chrome-extension://{self.ext_id}/{path}"

    def storage(self, items):
        """Replace the extension's settings (local storage) and forget the last check."""
        self.sw.evaluate(
            """async (items) => {
            await chrome.storage.local.clear();
            await chrome.storage.local.set(items);
            await chrome.storage.session.clear();
        }""",
            items,
        )

    def stored(self):
        return self.sw.evaluate("() => chrome.storage.local.get(null)")

    def last_check(self):
        return self.sw.evaluate("() => chrome.storage.session.get('lastCheck').then(r => r.lastCheck || null)")

    def tab_id(self, url):
        return self.sw.evaluate(
            "(url) => chrome.tabs.query({}).then(ts => (ts.find(t => t.url === url) || {}).id)", url
        )

    def check_tab(self, page):
        """Trigger a check the way the context menu and the shortcut do (they cannot fire headless)."""
        tab = wait_until(lambda: self.tab_id(page.url), what="the tab id")
        return self.sw.evaluate("(id) => globalThis.sourcecheck.checkTab(id)", tab)

    def open_panel(self):
        page = self.ctx.new_page()
        page.set_viewport_size({"width": 400, "height": 900})  # a side panel's width
        page.goto(self.url("sidepanel/index.html"))
        return page


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: run scripts/setup_browser")
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            headless=True,
            ignore_default_args=["--disable-extensions"],
            viewport={"width": 1100, "height": 760},
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--disable-extensions-except={EXT}",
                f"--load-extension={EXT}",
            ],
        )
        sw = ctx.service_workers[0] if ctx.service_workers else ctx.wait_for_event("serviceworker", timeout=20000)
        yield Browser(ctx, sw)
        ctx.close()


@pytest.fixture
def ext(browser, backend, request, artifacts):
    """The extension configured for the session backend and paired with its token; closes the
    test's pages afterwards (with a screenshot of each when the test failed)."""
    browser.storage({"backendUrl": backend.url, "token": backend.token})
    yield browser
    failed = getattr(request.node, "rep_call", None) is not None and request.node.rep_call.failed
    for i, page in enumerate(list(browser.ctx.pages)):
        if failed:
            try:
                page.screenshot(path=str(artifacts / f"FAILED-{request.node.name}-{i}.png"))
            except Exception:
                pass
        page.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)


@pytest.fixture
def chat(ext, site, fava_doc):
    """The chat page, loaded, with the content script ready."""
    page = ext.ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site + "/chat.html")
    ext_ready = lambda: ext.sw.evaluate(  # noqa: E731
        "(url) => chrome.tabs.query({}).then(ts => ts.find(t => t.url === url))"
        ".then(t => t && chrome.tabs.sendMessage(t.id, {type: 'ping'})).then(r => !!(r && r.ok)).catch(() => false)",
        page.url,
    )
    wait_until(ext_ready, what="the content script")
    yield page
    assert errors == [], f"the page threw: {errors}"  # the extension must never break the page
