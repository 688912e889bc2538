"""Issue 28 in the page, where it needs real layout: which sentence a card belongs to, no hover cards while
dragging a selection, a pinned card clear of a new selection's ✓ Check button, the card's × on its first row,
error types in words, and evidence opening in one viewer tab."""

import pytest
from browser_helpers import HIGHLIGHTS_JS, ShadowUI, wait_until

pytestmark = pytest.mark.browser

CONTRADICTED = "The editor model was fine-tuned from Llama2-Chat 13B on the synthetic data."
UNSUPPORTED = [
    "The authors also released a mobile app for birdwatchers in Zürich.",
    "Café owners liked it très much 🚀.",
]
RECTS_JS = """([name, text]) => {
    const r = [...CSS.highlights.get(name)].find(r => r.toString().replace(/\\s+/g, ' ').trim() === text);
    return [...r.getClientRects()].map(b => [b.left, b.top, b.right, b.bottom]);
}"""


def checked(ext, page):
    page.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")
    ext.check_tab(page)
    lc = wait_until(lambda: (lc := ext.last_check()) and lc["status"] in ("done", "error") and lc, what="the check")
    assert lc["status"] == "done", lc
    page.evaluate("() => getSelection().removeAllRanges()")


def mark_point(page, text, name="sourcecheck-contradicted"):
    left, top, right, bottom = page.evaluate(RECTS_JS, [name, text])[0]
    return left + min((right - left) / 2, 40), (top + bottom) / 2


def box(ui, node):
    quad = ui.cdp.send("DOM.getBoxModel", {"backendNodeId": node["backendNodeId"]})["model"]["border"]
    return min(quad[0::2]), min(quad[1::2]), max(quad[0::2]), max(quad[1::2])


def overlaps(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def within(ui, node, cls):
    """The first element with class cls under node (the card's ×, not the toast's)."""
    found, attrs = ui.find(cls, node)
    assert found is not None, f"no .{cls} in the card"
    return found, attrs


def test_the_open_cards_sentence_is_drawn_stronger_until_the_card_closes(ext, chat):
    checked(ext, chat)
    ui = ShadowUI(chat)
    assert "sourcecheck-active" not in chat.evaluate(HIGHLIGHTS_JS)
    chat.mouse.move(*mark_point(chat, CONTRADICTED))
    wait_until(lambda: ui.shown("card"), what="the card on hover")
    assert chat.evaluate(HIGHLIGHTS_JS)["sourcecheck-active"] == [CONTRADICTED]
    chat.mouse.move(*mark_point(chat, UNSUPPORTED[0], "sourcecheck-unsupported"))
    wait_until(
        lambda: chat.evaluate(HIGHLIGHTS_JS).get("sourcecheck-active") == [UNSUPPORTED[0]], what="the next card's"
    )
    chat.keyboard.press("Escape")
    wait_until(lambda: not ui.shown("card"), what="the card to close")
    assert "sourcecheck-active" not in chat.evaluate(HIGHLIGHTS_JS)


def test_no_hover_card_while_dragging_a_selection(ext, chat):
    checked(ext, chat)
    ui = ShadowUI(chat)
    start = chat.evaluate("""() => { const b = document.querySelector('#answer p').getBoundingClientRect();
        return [b.left + 2, b.top + b.height / 2]; }""")
    x, y = mark_point(chat, CONTRADICTED)
    chat.mouse.move(*start)
    chat.mouse.down()
    chat.mouse.move(x, y, steps=8)
    chat.mouse.move(x + 6, y, steps=2)
    chat.wait_for_timeout(700)  # well past the hover delay (120 ms)
    assert not chat.evaluate("() => getSelection().isCollapsed"), "the drag made a selection"
    assert not ui.shown("card"), "a hover card opened while the button was down"
    chat.mouse.up()
    chat.mouse.move(x + 12, y, steps=2)
    wait_until(lambda: ui.shown("card"), what="the hover card once the button is up")


def test_a_card_pinned_from_the_panel_never_covers_a_new_selections_check_button(ext, chat):
    checked(ext, chat)
    ui = ShadowUI(chat)
    panel = ext.open_panel()
    panel.click("#result-list li[data-label=contradicted]")
    wait_until(lambda: ui.shown("card"), what="the card pinned from the panel")
    # A new selection just under the sentence, ending where the card opened: its ✓ Check button comes up there.
    chat.evaluate("""() => {
        const p = [...document.querySelectorAll('#answer p')].find(p => p.textContent.startsWith('Errors'));
        getSelection().setBaseAndExtent(p.firstChild, 0, p.querySelector('strong').firstChild, 9);
    }""")
    button = wait_until(lambda: ui.shown("btn"), what="the check button")
    chat.wait_for_timeout(300)
    card, b = box(ui, ui.shown("card")), box(ui, button)
    assert not overlaps(card, b), (card, b)
    selection = chat.evaluate(
        "() => [...getSelection().getRangeAt(0).getClientRects()].map(r => [r.left, r.top, r.right, r.bottom])"
    )
    assert not any(overlaps(card, r) for r in selection), (card, selection)
    assert not any(overlaps(card, r) for r in chat.evaluate(RECTS_JS, ["sourcecheck-contradicted", CONTRADICTED]))
    # Clicking the button checks the selection (the card did not swallow it).
    ui.click(button)
    wait_until(lambda: (lc := ext.last_check()) and len(lc["sentences"]) == 1, what="the check of the new selection")


def test_the_cards_close_button_stays_on_its_first_row_and_error_types_are_words(ext, chat):
    checked(ext, chat)
    ui = ShadowUI(chat)
    chat.set_viewport_size({"width": 1100, "height": 760})
    chat.mouse.click(*mark_point(chat, CONTRADICTED))
    card = wait_until(lambda: ui.shown("card"), what="the card")

    def first_row():  # the card as laid out once placed (on a loaded machine a measure can fall before it moves)
        chip, close = box(ui, within(ui, card, "chip")[0]), box(ui, within(ui, card, "close")[0])
        return (chip, close) if close[1] < chip[3] and chip[1] < close[3] else None

    chip, close = wait_until(first_row, what="the × on the chip's row (not wrapped)")
    assert close[2] <= box(ui, card)[2]
    etype, attrs = within(ui, card, "etype")
    assert ShadowUI.text(etype) == "a wrong number or name"
    assert attrs.get("title") == "FAVA error type: entity"


def test_evidence_opens_in_one_viewer_tab(ext, chat):
    checked(ext, chat)
    ui = ShadowUI(chat)
    chat.mouse.click(*mark_point(chat, CONTRADICTED))
    wait_until(lambda: ui.shown("card"), what="the card")
    with ext.ctx.expect_page() as info:
        ui.click(ui.find_all("evidence")[0])
    viewer = info.value
    viewer.wait_for_selector("#status[data-found]", timeout=20000)
    chat.bring_to_front()
    with viewer.expect_event("load", timeout=10000):  # the same tab loads the next passage
        ui.click(ui.find_all("evidence")[0])
    viewer.wait_for_selector("#status[data-found]", timeout=20000)
    viewers = [p for p in ext.ctx.pages if "/viewer/index.html" in p.url]
    assert viewers == [viewer], [p.url for p in ext.ctx.pages]


def background(page, rect):
    """The colour most of a mark's first line is painted in (its background: glyphs are the minority)."""
    import pymupdf

    left, top, right, bottom = rect
    clip = {"x": left + 1, "y": top + 1, "width": min(right - left - 2, 120), "height": bottom - top - 2}
    pix = pymupdf.Pixmap(page.screenshot(clip=clip))
    counts = {}
    for x in range(pix.width):
        for y in range(pix.height):
            c = tuple(pix.pixel(x, y)[:3])
            counts[c] = counts.get(c, 0) + 1
    return max(counts, key=counts.get)


def test_two_neighbouring_unsupported_sentences_are_drawn_apart(ext, chat):
    checked(ext, chat)
    first, second = (chat.evaluate(RECTS_JS, ["sourcecheck-unsupported", t])[0] for t in UNSUPPORTED)
    assert first[3] <= second[1] + 1, "the two sentences are neighbours, one under the other"
    a, b = background(chat, first), background(chat, second)
    assert a != (255, 255, 255) and b != (255, 255, 255), (a, b)
    assert a != b, f"both painted {a}: they read as one mark"
