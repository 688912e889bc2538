"""Issue 28 in the side panel: the Backend URL field as wide as the others, "Saved." going after a few seconds,
result chips of one width, error types in words, and a first-run banner that says the address can be changed."""

import pytest
from browser_helpers import free_port, wait_until

pytestmark = pytest.mark.browser

WIDTHS_JS = "(sel) => [...document.querySelectorAll(sel)].map(e => e.getBoundingClientRect().width)"


def test_the_backend_url_field_is_as_wide_as_the_form(ext):
    panel = ext.open_panel()
    panel.wait_for_selector("#status-paired[data-paired=true]")
    url, marks = panel.evaluate(WIDTHS_JS, "#backend-url")[0], panel.evaluate(WIDTHS_JS, "#sensitivity")[0]
    form = panel.evaluate("() => document.getElementById('settings-form').clientWidth")
    assert url == marks == form, (url, marks, form)


def test_saved_goes_after_a_few_seconds(ext, backend):
    panel = ext.open_panel()
    panel.wait_for_selector("#status-paired[data-paired=true]")
    # The page's own clock times the message (a loaded machine only makes the test's clock run late): shown, then
    # cleared by the page's timer no sooner than 1.5 s after.
    panel.evaluate(
        """() => { const m = document.getElementById('settings-msg'); window.__saved = [];
        new MutationObserver(() => window.__saved.push([m.textContent, performance.now()]))
            .observe(m, {childList: true, characterData: true, subtree: true}); }"""
    )
    panel.click("#save-settings")
    wait_until(lambda: panel.locator("#settings-msg").inner_text() == "Saved.", what="Saved.")
    wait_until(lambda: panel.locator("#settings-msg").inner_text() == "", timeout=30, what="Saved. to go")
    changes = panel.evaluate("() => window.__saved")
    shown = next(t for text, t in changes if text == "Saved.")
    gone = next(t for text, t in changes if text == "" and t > shown)
    assert 1500 <= gone - shown <= 6000, "long enough to read, gone soon after"


def test_result_chips_have_one_width_and_error_types_are_words(ext, chat):
    chat.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")
    ext.check_tab(chat)
    wait_until(lambda: (lc := ext.last_check()) and lc["status"] == "done", what="the check")
    panel = ext.open_panel()
    panel.wait_for_selector("#result-list li[data-label=contradicted]")
    labels = set(panel.evaluate("() => [...document.querySelectorAll('#result-list .chip')].map(c => c.textContent)"))
    assert labels == {"contradicted", "not supported", "supported", "skipped"}
    widths = panel.evaluate(WIDTHS_JS, "#result-list .chip")
    assert len(widths) == 9 and len(set(widths)) == 1, widths
    # each label fits its chip
    assert panel.evaluate(
        "() => [...document.querySelectorAll('#result-list .chip')].every(c => c.scrollWidth <= c.clientWidth)"
    )
    etype = panel.locator("#result-list li[data-label=contradicted] .etype")
    assert etype.inner_text() == "a wrong number or name"
    assert etype.get_attribute("title") == "FAVA error type: entity"


def test_the_first_run_banner_says_the_backend_url_can_be_changed(browser, backend):
    browser.storage({"backendUrl": f"http://127.0.0.1:{free_port()}"})  # nothing listens there
    panel = browser.open_panel()
    panel.wait_for_selector("#banner[data-code=backend_unreachable]")
    note = panel.locator("#banner-url")
    assert note.is_visible()
    assert note.inner_text() == "Running at another address? Change the Backend URL under Settings."
    panel.click("#banner-url button")
    assert panel.evaluate("() => document.activeElement.id") == "backend-url"
    # Not paired yet is a first run too; an error of a paired backend says nothing about the address.
    browser.storage({"backendUrl": backend.url})
    panel.reload()
    panel.wait_for_selector("#banner[data-code=not_paired]")
    assert panel.locator("#banner-url").is_visible()
    panel.close()
