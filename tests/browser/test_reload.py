"""Marks survive a reload: the last check of a page is kept per URL with text-quote selectors and drawn again when
the page loads; sentences no longer on the page are named in a notice, and the side panel's rows say so."""

import pytest
from browser_helpers import HIGHLIGHTS_JS, ShadowUI, wait_until

pytestmark = pytest.mark.browser

CONTRADICTED = ["The editor model was fine-tuned from Llama2-Chat 13B on the synthetic data."]
UNSUPPORTED = sorted(
    ["The authors also released a mobile app for birdwatchers in Zürich.", "Café owners liked it très much 🚀."]
)
CONNECTED_JS = "() => [...CSS.highlights].every(([n, h]) => [...h].every(r => r.startContainer.isConnected))"


def marks(page):
    m = page.evaluate(HIGHLIGHTS_JS)
    return sorted(m.get("sourcecheck-contradicted", [])), sorted(m.get("sourcecheck-unsupported", []))


def reload(ext, page):
    """Reload the page and wait until the content script answers again."""
    page.reload()
    ping = (
        "(url) => chrome.tabs.query({}).then(ts => ts.find(t => t.url === url))"
        ".then(t => t && chrome.tabs.sendMessage(t.id, {type: 'ping'})).then(r => !!(r && r.ok)).catch(() => false)"
    )
    wait_until(lambda: ext.sw.evaluate(ping, page.url), what="the content script after the reload")


def focused(page):
    return page.evaluate(HIGHLIGHTS_JS).get("sourcecheck-focus")


def test_marks_come_back_after_a_reload_and_missing_ones_are_named(ext, chat, site, artifacts):
    chat.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")
    ext.check_tab(chat)
    wait_until(lambda: (lc := ext.last_check()) and lc["status"] == "done", what="the check")
    assert marks(chat) == (CONTRADICTED, UNSUPPORTED)
    kept = wait_until(lambda: ext.stored().get("marks:" + site + "/chat.html"), what="the page's marks kept")
    assert len([e for e in kept["entries"] if e["label"] in ("contradicted", "unsupported")]) == 3

    reload(ext, chat)
    wait_until(lambda: marks(chat) == (CONTRADICTED, UNSUPPORTED), what="the marks to come back")
    assert chat.evaluate(CONNECTED_JS)
    ui = ShadowUI(chat)
    chat.wait_for_timeout(2500)  # past the grace period for sentences a page renders late
    toast = ui.shown("toast")
    assert not (toast and "no longer on this page" in ShadowUI.text(toast))

    # A row of the panel scrolls to its sentence and flashes it, on the reloaded page.
    panel = ext.open_panel()
    panel.click("#result-list li[data-label=contradicted]")
    wait_until(lambda: focused(chat) == CONTRADICTED, what="the flashed sentence")

    # The page's text changed since the check: the two sentences gone are named, the one still there is marked.
    chat.evaluate("() => { location.hash = 'short'; }")
    reload(ext, chat)
    toast = wait_until(
        lambda: (t := ui.shown("toast")) and "no longer on this page" in ShadowUI.text(t) and t,
        what="the notice",
    )
    text = ShadowUI.text(toast)
    assert "2 marked sentences are no longer on this page" in text
    assert "birdwatchers" in text and "Café owners" in text and "Llama2-Chat" not in text
    assert marks(chat) == (CONTRADICTED, [])
    chat.screenshot(path=str(artifacts / "reload-missing.png"))

    # The panel lists them as gone, and a click on one says so instead of doing nothing.
    panel.wait_for_selector("#result-list li.missing")
    assert panel.locator("#result-list li.missing").count() == 2
    row = panel.locator("#result-list li[data-label=unsupported]").first
    row.click()
    wait_until(lambda: "not on this page" in row.locator(".where").inner_text(), what="the row to say so")
    chat.evaluate("() => CSS.highlights.delete('sourcecheck-focus')")
    panel.click("#result-list li[data-label=contradicted]")
    wait_until(lambda: focused(chat) == CONTRADICTED, what="the flashed sentence after the change")
    assert panel.locator("#result-list li[data-label=contradicted] .where").inner_text() == ""
