"""A page that re-renders its message (new nodes, same text) keeps or re-finds the marks; a
sentence that disappears is listed as no longer found."""

import pytest
from browser_helpers import HIGHLIGHTS_JS, ShadowUI, wait_until

pytestmark = pytest.mark.browser

CONTRADICTED = ["The editor model was fine-tuned from Llama2-Chat 13B on the synthetic data."]
UNSUPPORTED = [
    "The authors also released a mobile app for birdwatchers in Zürich.",
    "Café owners liked it très much 🚀.",
]

CONNECTED_JS = (
    """() => [...CSS.highlights].every(([n, h]) => [...h].every(r => r.startContainer.isConnected && !r.collapsed))"""
)


def marks(page):
    m = page.evaluate(HIGHLIGHTS_JS)
    return sorted(m.get("sourcecheck-contradicted", [])), sorted(m.get("sourcecheck-unsupported", []))


def test_marks_follow_a_rerender_and_missing_sentences_are_listed(ext, chat, artifacts):
    # Select from inside the bold "FAVA" to the end of the answer: the selection starts mid-element.
    chat.evaluate("""() => {
        const strong = document.querySelector('#answer strong');
        const last = document.querySelector('#answer p:last-child');
        getSelection().setBaseAndExtent(strong.previousSibling, 0, last, last.childNodes.length);
    }""")
    ext.check_tab(chat)
    wait_until(lambda: (lc := ext.last_check()) and lc["status"] == "done", what="the check")
    assert marks(chat) == (sorted(CONTRADICTED), sorted(UNSUPPORTED))
    assert len(ext.last_check()["sentences"]) == 7  # the greeting was not selected

    # The app re-renders the message with a new first line: every node is replaced.
    chat.evaluate("() => render('prepend')")
    wait_until(
        lambda: chat.evaluate(CONNECTED_JS) and marks(chat) == (sorted(CONTRADICTED), sorted(UNSUPPORTED)),
        what="the marks to be re-anchored on the new nodes",
    )
    assert chat.evaluate("() => renderCount") == 2  # the page's own state was not touched
    chat.screenshot(path=str(artifacts / "rerender-kept.png"))

    # A re-render without one of the flagged sentences: it is reported as no longer found.
    chat.evaluate("() => render('drop')")
    wait_until(
        lambda: marks(chat) == (sorted(CONTRADICTED), ["Café owners liked it très much 🚀."]),
        what="the dropped sentence's mark to go",
    )
    lc = wait_until(
        lambda: (lc := ext.last_check()) and any(s["missing"] for s in lc["sentences"]) and lc,
        what="the side panel's state to list the missing sentence",
    )
    assert [s["text"] for s in lc["sentences"] if s["missing"]] == [UNSUPPORTED[0]]
    ui = ShadowUI(chat)
    toast = wait_until(
        lambda: (t := ui.shown("toast")) and "1 marked sentence is no longer on this page" in ShadowUI.text(t) and t,
        what="the toast listing the missing sentence",
    )
    assert "birdwatchers" in ShadowUI.text(toast)
    panel = ext.open_panel()
    panel.wait_for_selector("#result-list li.missing")
    assert "birdwatchers" in panel.locator("#result-list li.missing").inner_text()
    chat.screenshot(path=str(artifacts / "rerender-missing.png"))

    # And when it comes back, it is found again.
    chat.evaluate("() => render('initial')")
    wait_until(lambda: marks(chat) == (sorted(CONTRADICTED), sorted(UNSUPPORTED)), what="the mark to come back")
