"""The marks with the keyboard alone, as a grammar checker's: Alt+Shift+N / Alt+Shift+P select the next / previous
marked sentence, Enter opens its card with the focus in it, J / K move the card, A applies the revision in place
where the text is editable (copies it elsewhere), D is "I know" (the mark goes and is remembered), Esc closes."""

import re

import pytest
from browser_helpers import HIGHLIGHTS_JS, ShadowUI, wait_until

pytestmark = pytest.mark.browser

S = [
    "The FAVA model was trained on 35,074 training instances.",
    "The retrieval component uses Contriever to find relevant passages.",
    "The editor model was fine-tuned from Llama2-Chat 13B on the synthetic data.",
    "The authors also released a mobile app for birdwatchers in Zürich.",
    "Errors are grouped into six types, from entity errors to unverifiable statements.",
    "We generated a total of 53,074 training instances for FAVA.",
    "FAVA improves fine-grained detection over ChatGPT on the annotated benchmark.",
    "Café owners liked it très much.",
    "Errors are grouped into nine types, from entity errors to unverifiable statements.",
    "The editor model was fine-tuned on the synthetic data.",
]
FIXED = {
    2: "The editor model was fine-tuned from Llama2-Chat 7B on the synthetic data.",
    5: "We generated a total of 35,074 training instances for FAVA.",
    8: "Errors are grouped into six types, from entity errors to unverifiable statements.",
}
STATE_JS = """() => {
    const editor = document.getElementById('editor');
    const sel = getSelection();
    let before = null;
    if (sel.rangeCount && sel.isCollapsed && editor.contains(sel.anchorNode)) {
        const r = document.createRange();
        r.selectNodeContents(editor);
        r.setEnd(sel.anchorNode, sel.anchorOffset);
        before = r.toString().replace(/\\s+/g, ' ').trim();
    }
    const a = document.activeElement;
    return {focus: a.id || a.tagName, caretAfter: before, text: editor.textContent.replace(/\\s+/g, ' ').trim()};
}"""


def marks(page):
    m = page.evaluate(HIGHLIGHTS_JS)
    return {k.removeprefix("sourcecheck-"): v for k, v in m.items() if k != "sourcecheck-focus"}


def state(page):
    return page.evaluate(STATE_JS)


def open_page(ext, site, name):
    page = ext.ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{site}/{name}")
    ping = (
        "(url) => chrome.tabs.query({}).then(ts => ts.find(t => t.url === url))"
        ".then(t => t && chrome.tabs.sendMessage(t.id, {type: 'ping'})).then(r => !!(r && r.ok)).catch(() => false)"
    )
    wait_until(lambda: ext.sw.evaluate(ping, page.url), what="the content script")
    return page, errors


def checked_draft(ext, site):
    """editor.html with its whole draft checked: (page, its errors, ShadowUI)."""
    page, errors = open_page(ext, site, "editor.html")
    page.focus("#editor")
    page.keyboard.press("Control+A")
    ext.check_tab(page)  # the shortcut's and the menu's path (their keys cannot be pressed headless)
    wait_until(lambda: (lc := ext.last_check()) and lc["status"] == "done", what="the check")
    return page, errors, ShadowUI(page)


def focused(page):
    return page.evaluate("() => document.activeElement.tagName")


def check_answer(ext, chat):
    """chat.html's answer checked, the selection cleared: its ShadowUI. The page is brought to the front first, as
    the page a person reads and clicks in is: in a browser with other tabs open (a whole run opens and closes many)
    a page behind them has no focus to give a card."""
    chat.bring_to_front()
    chat.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")
    ext.check_tab(chat)
    wait_until(lambda: (lc := ext.last_check()) and lc["status"] == "done", what="the check")
    chat.evaluate("() => getSelection().removeAllRanges()")
    return ShadowUI(chat)


def first_mark(page, label):
    """A point inside the first mark of label (viewport coordinates)."""
    return page.evaluate(
        "(label) => { const b = [...CSS.highlights.get('sourcecheck-' + label)][0].getClientRects()[0];"
        " return [b.left + 20, (b.top + b.bottom) / 2]; }",
        label,
    )


def card_text(ui):
    card = ui.shown("card")
    return ShadowUI.text(card) if card is not None else None


def test_walk_a_ten_sentence_draft_with_the_keyboard_alone(ext, site, fava_doc, artifacts):
    page, errors = open_page(ext, site, "editor.html")
    ui = ShadowUI(page)
    page.focus("#editor")
    page.keyboard.press("Control+A")  # the draft, selected in its editor
    ext.check_tab(page)  # the shortcut's and the menu's path (their keys cannot be pressed headless)
    lc = wait_until(lambda: (lc := ext.last_check()) and lc["status"] == "done" and lc, what="the check")
    assert [s["text"] for s in lc["sentences"]] == S
    assert marks(page) == {"contradicted": [S[2], S[5], S[8]], "unsupported": [S[3], S[7]]}
    assert state(page)["focus"] == "editor"

    def select_next(expected):
        page.keyboard.press("Alt+Shift+N")
        wait_until(lambda: marks(page).get("active") == [expected], what=f"{expected!r} selected")
        assert card_text(ui) is None and state(page)["focus"] == "editor"

    def open_card(words):
        before = state(page)["text"]
        page.keyboard.press("Enter")
        text = wait_until(lambda: card_text(ui), what="the card")
        assert words in text
        now = state(page)
        assert now["focus"] == "SOURCECHECK-UI" and now["text"] == before, "Enter opened the card, typed nothing"

    def apply(i):
        page.keyboard.press("a")
        wait_until(lambda: FIXED[i] in state(page)["text"], what=f"revision {i} in place")
        now = state(page)
        assert now["focus"] == "editor" and now["caretAfter"].endswith(FIXED[i]), now
        assert card_text(ui) is None and S[i] not in now["text"]

    # 1. The wrong figure: replaced exactly, in the editor, as if typed.
    select_next(S[2])
    open_card("Contradicted by your sources")
    page.screenshot(path=str(artifacts / "keyboard-card.png"))
    apply(2)
    assert marks(page) == {"contradicted": [S[5], S[8]], "unsupported": [S[3], S[7]]}

    # 2. An unsupported sentence the person knows about: "I know" removes the mark, for this page.
    select_next(S[3])
    open_card("Not supported by your sources")
    assert "Apply" not in card_text(ui), "nothing to apply without a revision"
    page.keyboard.press("d")
    wait_until(lambda: card_text(ui) is None, what="the card to close")
    assert marks(page) == {"contradicted": [S[5], S[8]], "unsupported": [S[7]]}
    assert state(page)["focus"] == "editor" and S[3] in state(page)["text"], "the text stays; the focus comes back"
    kept = wait_until(
        lambda: (r := ext.stored().get("marks:" + site + "/editor.html")) and S[3] in r["dismissed"] and r,
        what="the dismissal kept",
    )
    assert S[3] not in [e["text"] for e in kept["entries"]]

    # 3. J and K move the open card; the focus stays in it.
    select_next(S[5])
    open_card("Contradicted by your sources")
    page.keyboard.press("j")
    wait_until(lambda: marks(page).get("active") == [S[7]], what="the card on the next mark")
    assert "Not supported" in card_text(ui) and state(page)["focus"] == "SOURCECHECK-UI"
    page.keyboard.press("k")
    wait_until(lambda: marks(page).get("active") == [S[5]], what="the card back on the previous mark")
    assert "Contradicted" in card_text(ui) and state(page)["focus"] == "SOURCECHECK-UI"
    page.keyboard.press("ArrowRight")  # → and ← too, in a card that has the focus
    wait_until(lambda: marks(page).get("active") == [S[7]], what="the card on the next mark (ArrowRight)")
    page.keyboard.press("ArrowLeft")
    wait_until(lambda: marks(page).get("active") == [S[5]], what="the card back on the previous mark (ArrowLeft)")
    page.keyboard.press("ArrowDown")  # ↓ is the card's own (it scrolls a long card): no other mark
    page.wait_for_timeout(300)
    assert marks(page).get("active") == [S[5]]
    assert "Contradicted" in card_text(ui) and state(page)["focus"] == "SOURCECHECK-UI"
    apply(5)

    # 4. Esc closes a card and leaves its mark.
    select_next(S[7])
    open_card("Not supported by your sources")
    page.keyboard.press("Escape")
    wait_until(lambda: card_text(ui) is None, what="the card to close")
    assert state(page)["focus"] == "editor" and marks(page)["unsupported"] == [S[7]]

    # 5. The last wrong figure; then Alt+Shift+P goes back to the one mark left.
    select_next(S[8])
    open_card("Contradicted by your sources")
    apply(8)
    page.keyboard.press("Alt+Shift+P")
    wait_until(lambda: marks(page).get("active") == [S[7]], what="the previous mark")
    assert marks(page) == {"unsupported": [S[7]], "active": [S[7]]}
    expected = " ".join(FIXED.get(i, s) for i, s in enumerate(S))
    assert state(page)["text"] == expected
    page.screenshot(path=str(artifacts / "keyboard-done.png"))
    assert errors == []


def test_where_the_text_cannot_be_edited_a_copies_the_revision(ext, chat, site):
    chat.bring_to_front()  # the card Enter opens takes the focus, which a page behind other tabs cannot give
    chat.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")
    ext.check_tab(chat)
    wait_until(lambda: (lc := ext.last_check()) and lc["status"] == "done", what="the check")
    ui = ShadowUI(chat)
    before = chat.evaluate("() => document.getElementById('answer').textContent")
    chat.keyboard.press("Alt+Shift+N")  # the first mark in the page: the birdwatchers (unsupported)
    chat.keyboard.press("Alt+Shift+N")
    chat.keyboard.press("Alt+Shift+N")  # the contradicted sentence, third in the page
    wait_until(lambda: "Llama2-Chat" in " ".join(marks(chat).get("active", [])), what="the contradicted mark")
    chat.keyboard.press("Enter")
    text = wait_until(lambda: card_text(ui), what="the card")
    assert "Copy" in text and "Apply" not in text
    chat.keyboard.press("a")
    wait_until(lambda: re.search(r"Copied", card_text(ui) or ""), what="Copied")
    ext.ctx.grant_permissions(["clipboard-read"], origin=site)
    assert chat.evaluate("() => navigator.clipboard.readText()") == FIXED[2]
    assert chat.evaluate("() => document.getElementById('answer').textContent") == before


SHADOW_BOX_JS = """() => {
    // A composer as web-component apps build it: the text field inside an open shadow root.
    const host = document.createElement('x-composer');
    host.attachShadow({mode: 'open'}).innerHTML = '<input id="box" placeholder="Message">';
    document.querySelector('.composer').replaceChildren(host);
}"""


def test_letters_typed_in_a_field_inside_a_shadow_root_are_typed_while_a_card_is_pinned(ext, chat):
    chat.evaluate(SHADOW_BOX_JS)
    ui = check_answer(ext, chat)
    contradicted = marks(chat)["contradicted"]
    chat.mouse.click(*first_mark(chat, "contradicted"))  # a pinned card
    wait_until(lambda: card_text(ui), what="the pinned card")
    chat.evaluate("() => document.querySelector('x-composer').shadowRoot.getElementById('box').focus()")
    chat.keyboard.type("ad")
    chat.wait_for_timeout(300)
    typed = chat.evaluate("() => document.querySelector('x-composer').shadowRoot.getElementById('box').value")
    assert typed == "ad", "the letters went into the field"
    assert card_text(ui) is not None and "Copied" not in card_text(ui), "A did not apply (copy) the revision"
    assert marks(chat)["contradicted"] == contradicted, "D did not dismiss the mark"


def test_a_click_on_a_mark_in_an_editor_gives_the_card_the_keys_and_nothing_is_typed(ext, site, fava_doc):
    """In a draft, a click on a mark puts the caret in the text: the card takes the focus, so D is the card's
    ("I know"), not a letter in the draft; and a card whose sentence was edited away closes."""
    page, errors, ui = checked_draft(ext, site)
    page.evaluate("() => getSelection().rangeCount && getSelection().collapseToEnd()")
    before = state(page)["text"]
    point = page.evaluate(
        "() => { const b = [...CSS.highlights.get('sourcecheck-unsupported')][0].getClientRects()[0];"
        " return [b.left + 20, (b.top + b.bottom) / 2]; }"
    )
    page.mouse.click(*point)
    wait_until(lambda: card_text(ui), what="the card")
    wait_until(lambda: state(page)["focus"] == "SOURCECHECK-UI", what="the card has the focus")
    page.keyboard.press("d")
    wait_until(lambda: S[3] not in marks(page).get("unsupported", []), what="D dismissed the mark")
    assert state(page)["text"] == before, "nothing was typed into the draft"
    assert card_text(ui) is None and state(page)["focus"] == "editor"
    # the next card: its sentence edited away while it is open, the card goes too
    page.mouse.click(
        *page.evaluate(
            "() => { const b = [...CSS.highlights.get('sourcecheck-unsupported')][0].getClientRects()[0];"
            " return [b.left + 20, (b.top + b.bottom) / 2]; }"
        )
    )
    wait_until(lambda: card_text(ui), what="the second card")
    page.evaluate(
        "(s) => { const e = document.getElementById('editor'); e.innerHTML = e.innerHTML.replace(s, 'Gone.'); }",
        S[7],
    )
    wait_until(lambda: card_text(ui) is None, what="the card of the edited sentence closed")
    assert errors == []


def test_a_cards_keys_act_only_while_it_has_the_focus(ext, chat):
    """Issue 50: a click on a mark gives its card the focus, and D there is "I know"; once the focus has left the card
    (it stays pinned), D is the page's again: the mark stays."""
    ui = check_answer(ext, chat)
    unsupported = marks(chat)["unsupported"]
    point = first_mark(chat, "unsupported")
    chat.mouse.click(*point)
    wait_until(lambda: card_text(ui), what="the card")
    wait_until(lambda: focused(chat) == "SOURCECHECK-UI", what="the card has the focus")
    chat.evaluate("() => document.activeElement.blur()")  # the focus leaves; the card stays pinned
    chat.keyboard.press("d")
    chat.wait_for_timeout(300)
    assert card_text(ui) is not None, "the pinned card stays open"
    assert marks(chat)["unsupported"] == unsupported, "D without the focus in the card did not dismiss the mark"
    chat.mouse.click(*point)
    wait_until(lambda: focused(chat) == "SOURCECHECK-UI", what="the card has the focus again")
    chat.keyboard.press("d")
    wait_until(lambda: marks(chat).get("unsupported", []) != unsupported, what="D in the focused card: I know")
