"""Errors a person understands: backend not running, not paired, model missing. The selection and
the page survive each of them."""

import pytest
from browser_helpers import HIGHLIGHTS_JS, Backend, ShadowUI, free_port, wait_until
from browser_pdfs import write_fava

pytestmark = pytest.mark.browser


def check_and_read_error(ext, page):
    ui = ShadowUI(page)
    page.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")
    ext.check_tab(page)
    toast = wait_until(lambda: ui.shown("toast", "error"), what="the error toast")
    assert "FAVA model was trained" in page.evaluate("() => getSelection().toString()"), "the selection was lost"
    assert page.evaluate(HIGHLIGHTS_JS) == {}
    return ShadowUI.text(toast)


def test_backend_not_running(ext, site, artifacts):
    url = f"http://127.0.0.1:{free_port()}"
    ext.storage({"backendUrl": url, "token": "whatever"})
    panel = ext.open_panel()
    panel.wait_for_selector("#banner[data-code=backend_unreachable]")
    assert f"not running at {url}" in panel.locator("#banner-message").inner_text()
    assert panel.locator("#banner-command").inner_text() == "scripts/serve"
    assert panel.locator("#status-backend").get_attribute("data-reachable") == "false"
    panel.screenshot(path=str(artifacts / "panel-backend-down.png"))

    page = ext.ctx.new_page()
    page.goto(site + "/chat.html")
    text = check_and_read_error(ext, page)
    assert "not running" in text and "scripts/serve" in text
    page.screenshot(path=str(artifacts / "error-backend-down.png"))


def test_not_paired(ext, backend, site):
    ext.storage({"backendUrl": backend.url, "token": "not-the-token"})
    panel = ext.open_panel()
    panel.wait_for_selector("#banner[data-code=not_paired]")
    panel.wait_for_selector("#pairing:not([hidden])")
    page = ext.ctx.new_page()
    page.goto(site + "/chat.html")
    text = check_and_read_error(ext, page)
    assert "not paired" in text and "pairing code" in text


def test_model_missing(browser, site, tmp_path, artifacts):
    """The real backend with its default (llama.cpp) judge but no model file."""
    b = Backend(
        tmp_path / "index", {"SOURCECHECK_EMBEDDINGS": "hash", "SOURCECHECK_MODELS_DIR": str(tmp_path / "no-models")}
    )
    try:
        b.wait_ready(b.upload(write_fava(tmp_path / "fava.pdf"))["id"])
        browser.storage({"backendUrl": b.url, "token": b.token})
        page = browser.ctx.new_page()
        page.goto(site + "/chat.html")
        text = check_and_read_error(browser, page)
        assert "model" in text.lower() and "scripts/setup" in text
        page.screenshot(path=str(artifacts / "error-model-missing.png"))
        page.close()
    finally:
        b.stop()
