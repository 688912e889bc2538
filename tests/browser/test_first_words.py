"""What a first user reads: the side panel speaks as the side panel, counts one PDF as one, and the empty library's
notice on the page has no raw Markdown in it."""

import pytest
from browser_helpers import Backend, ShadowUI, wait_until
from browser_pdfs import write_other

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def empty_backend(tmp_path_factory):
    b = Backend(
        tmp_path_factory.mktemp("first-words-index"), {"SOURCECHECK_BACKEND": "fake", "SOURCECHECK_EMBEDDINGS": "hash"}
    )
    yield b
    b.stop()


def test_the_not_paired_banner_in_the_panel_does_not_send_you_to_the_panel(browser, empty_backend):
    browser.storage({"backendUrl": empty_backend.url})
    panel = browser.open_panel()
    panel.wait_for_selector("#banner[data-code=not_paired]")
    hint = panel.inner_text("#banner-hint")
    assert "side panel" not in hint and "pairing code" in hint and "below" in hint.lower(), hint
    panel.close()


def test_the_empty_library_notice_has_no_backticks(browser, empty_backend, site):
    browser.storage({"backendUrl": empty_backend.url, "token": empty_backend.token})
    page = browser.ctx.new_page()
    page.goto(site + "/chat.html")
    ui = ShadowUI(page)
    page.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")
    ui.click(wait_until(lambda: ui.shown("btn"), what="the check button"))
    text = ShadowUI.text(wait_until(lambda: ui.shown("toast", "error"), what="the error toast"))
    assert "library" in text and "`" not in text, text
    assert "sourcecheck ingest FILE.pdf" in text
    page.close()


def test_one_pdf_is_one_pdf(browser, empty_backend, pdf_dir):
    doc = empty_backend.wait_ready(empty_backend.upload(write_other(pdf_dir / "goats.pdf", "mountain goats"))["id"])
    try:
        browser.storage({"backendUrl": empty_backend.url, "token": empty_backend.token})
        panel = browser.open_panel()
        panel.wait_for_selector("li.doc[data-status=ready]")
        wait_until(lambda: panel.inner_text("#status-library").startswith("1 PDF,"), what="the library line")
        assert (
            panel.inner_text("#status-library") == f"1 PDF, {doc['chunks']} passage{'' if doc['chunks'] == 1 else 's'}"
        )
        panel.close()
    finally:
        empty_backend.request("DELETE", f"/documents/{doc['id']}")
