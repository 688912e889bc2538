"""Marks and the page's URL as chat apps change it in-page (history.pushState): a check's marks stay with the URL it
started on, and the marks kept for the URL the app moves to are drawn; evidence opens in one viewer tab however
quickly it is clicked."""

import pytest
from browser_helpers import HIGHLIGHTS_JS, ShadowUI, wait_until

pytestmark = pytest.mark.browser

CONTRADICTED = ["The editor model was fine-tuned from Llama2-Chat 13B on the synthetic data."]
UNSUPPORTED = sorted(
    ["The authors also released a mobile app for birdwatchers in Zürich.", "Café owners liked it très much 🚀."]
)
PING = (
    "(url) => chrome.tabs.query({}).then(ts => ts.find(t => t.url === url))"
    ".then(t => t && chrome.tabs.sendMessage(t.id, {type: 'ping'})).then(r => !!(r && r.ok)).catch(() => false)"
)


def marks(page):
    m = page.evaluate(HIGHLIGHTS_JS)
    return sorted(m.get("sourcecheck-contradicted", [])), sorted(m.get("sourcecheck-unsupported", []))


def checked(ext, page):
    page.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")
    ext.check_tab(page)
    wait_until(lambda: (lc := ext.last_check()) and lc["status"] == "done", what="the check")
    page.evaluate("() => getSelection().removeAllRanges()")


def test_marks_stay_with_the_url_checked_and_follow_in_page_navigation(ext, chat, site):
    checked(ext, chat)
    assert marks(chat) == (CONTRADICTED, UNSUPPORTED)
    page_key = "marks:" + site + "/chat.html"
    kept = wait_until(lambda: ext.stored().get(page_key), what="the page's marks kept")

    # The app moves to another conversation in-page; "I know" on a mark of the check made before goes to its page.
    chat.evaluate("() => history.pushState({}, '', 'chat.html?c=2')")
    ui = ShadowUI(chat)
    rect = chat.evaluate(
        "() => { const b = [...CSS.highlights.get('sourcecheck-contradicted')][0].getClientRects()[0];"
        " return [b.left + 20, (b.top + b.bottom) / 2]; }"
    )
    chat.mouse.click(*rect)
    wait_until(lambda: ui.shown("card"), what="the card")
    chat.keyboard.press("d")
    wait_until(lambda: CONTRADICTED[0] in (ext.stored().get(page_key) or {}).get("dismissed", []), what="the dismissal")
    stored = ext.stored()
    assert "marks:" + site + "/chat.html?c=2" not in stored, "nothing kept under the URL the app moved to"
    assert [e["key"] for e in stored[page_key]["entries"]] == [
        e["key"] for e in kept["entries"] if e["text"] != CONTRADICTED[0]
    ]

    # The marks kept for a URL are drawn when the app moves there in-page.
    entries = [dict(e, key="seed:" + str(e["index"]), checkId="seed") for e in kept["entries"]]
    ext.sw.evaluate(
        "(items) => chrome.storage.local.set(items)",
        {"marks:" + site + "/chat.html?c=3": {"at": 1, "entries": entries, "dismissed": []}},
    )
    other = ext.ctx.new_page()
    other.goto(site + "/chat.html?c=1")
    wait_until(lambda: ext.sw.evaluate(PING, other.url), what="the content script")
    other.wait_for_timeout(500)
    assert marks(other) == ([], [])
    other.evaluate("() => history.pushState({}, '', 'chat.html?c=3')")
    wait_until(lambda: marks(other) == (CONTRADICTED, UNSUPPORTED), what="the marks kept for the new URL")


def test_two_quick_evidence_clicks_open_one_viewer_tab(ext, site):
    panel = ext.open_panel()  # an extension page, to send what a card's evidence button sends
    tab_ids = panel.evaluate(
        """() => {
        const open = (page) => chrome.runtime.sendMessage(
            {type: 'open-viewer', documentId: 'nope', page, quote: 'q', filename: 'a.pdf'});
        return Promise.all([open(1), open(2)]).then(rs => rs.map(r => r.tabId));
    }"""
    )
    assert tab_ids[0] == tab_ids[1], tab_ids
    panel.wait_for_timeout(500)
    viewers = [p.url for p in ext.ctx.pages if "/viewer/index.html" in p.url]
    assert len(viewers) == 1 and "page=2" in viewers[0], viewers
