"""The keyboard shortcut (Alt+Shift+K, the commands API) and the context menu, end to end. Headless Chromium has no
window for the browser's own accelerators or menus, and this machine has no Xvfb for a headed one, so the events are
dispatched in the service worker the way the browser delivers them (chrome.commands.onCommand /
chrome.contextMenus.onClicked, with the arguments Chromium passes): everything from the worker's listener on is real."""

import pytest
from browser_helpers import HIGHLIGHTS_JS, ShadowUI, wait_until

pytestmark = pytest.mark.browser

CONTRADICTED = ["The editor model was fine-tuned from Llama2-Chat 13B on the synthetic data."]
UNSUPPORTED = sorted(
    ["The authors also released a mobile app for birdwatchers in Zürich.", "Café owners liked it très much 🚀."]
)
DISPATCH_COMMAND = """async ([url, name, withTab]) => {
    const [tab] = await chrome.tabs.query({url});
    await chrome.tabs.update(tab.id, {active: true});
    chrome.commands.onCommand.dispatch(name, withTab ? tab : undefined);
}"""
DISPATCH_MENU = """async ([url, menuItemId, selectionText]) => {
    const [tab] = await chrome.tabs.query({url});
    chrome.contextMenus.onClicked.dispatch(
        {menuItemId, selectionText, editable: false, pageUrl: tab.url, frameId: 0}, tab);
}"""


def marks(page):
    m = page.evaluate(HIGHLIGHTS_JS)
    return sorted(m.get("sourcecheck-contradicted", [])), sorted(m.get("sourcecheck-unsupported", []))


def test_the_manifest_shortcut_and_the_menu_item_are_registered(ext):
    commands = {c["name"]: c for c in ext.sw.evaluate("() => chrome.commands.getAll()")}
    assert commands["check-selection"]["shortcut"] == "Alt+Shift+K"
    assert ext.sw.evaluate(
        "() => chrome.commands.onCommand.hasListeners() && chrome.contextMenus.onClicked.hasListeners()"
    )
    # The item exists (update() fails for an unknown id) and shows only on a selection.
    err = ext.sw.evaluate(
        """() => new Promise(r => chrome.contextMenus.update('sourcecheck-check-selection', {contexts: ['selection']},
        () => r(chrome.runtime.lastError ? chrome.runtime.lastError.message : null)))"""
    )
    assert err is None


@pytest.mark.parametrize("with_tab", [True, False], ids=["tab-given", "active-tab"])
def test_alt_shift_k_checks_the_selection(ext, chat, with_tab):
    chat.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")
    ext.sw.evaluate(DISPATCH_COMMAND, [chat.url, "check-selection", with_tab])
    lc = wait_until(lambda: (lc := ext.last_check()) and lc["status"] == "done" and lc, what="the check")
    assert lc["url"] == chat.url and len(lc["sentences"]) == 9
    assert marks(chat) == (CONTRADICTED, UNSUPPORTED)


def test_another_command_or_menu_item_does_nothing(ext, chat):
    chat.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")
    ext.sw.evaluate(DISPATCH_COMMAND, [chat.url, "something-else", True])
    ext.sw.evaluate(DISPATCH_MENU, [chat.url, "another-extension-item", "The authors also released a mobile app."])
    chat.wait_for_timeout(1500)
    assert ext.last_check() is None and marks(chat) == ([], [])


def test_the_shortcut_without_a_selection_says_what_to_do(ext, chat):
    ext.sw.evaluate(DISPATCH_COMMAND, [chat.url, "check-selection", True])
    toast = wait_until(lambda: ShadowUI(chat).shown("toast", "error"), what="the error toast")
    assert "Select some text on the page first." in ShadowUI.text(toast)
    assert ext.last_check() is None


def test_the_context_menu_checks_the_text_it_was_opened_on(ext, chat):
    # Right-click collapses nothing, but the menu hands over the selected text: it is found in the page even when
    # the page's selection has gone by then (a chat app re-rendering, a click elsewhere).
    chat.evaluate("() => getSelection().removeAllRanges()")
    ext.sw.evaluate(DISPATCH_MENU, [chat.url, "sourcecheck-check-selection", UNSUPPORTED[1]])
    lc = wait_until(lambda: (lc := ext.last_check()) and lc["status"] == "done" and lc, what="the check")
    assert lc["text"] == UNSUPPORTED[1]
    assert [(s["text"], s["label"]) for s in lc["sentences"]] == [(UNSUPPORTED[1], "unsupported")]
    assert marks(chat) == ([], [UNSUPPORTED[1]])
