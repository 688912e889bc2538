"""Issue 36, item 4: a card is visibly tied to its sentence. Its pointer reaches the mark wherever the card goes, a
tall card keeps off the chat's sidebar while there is room elsewhere, and its actions (Copy, I know) are in view
even when the card is capped and scrolls. On the ChatGPT-shaped page (a left sidebar <nav>)."""

import pytest
from browser_helpers import ShadowUI, wait_until
from test_card_layout import box, overlaps
from test_chat_markup import FIXTURES, check_answer, open_fixture

pytestmark = pytest.mark.browser

CONTRADICTED = "The editor model was fine-tuned from Llama2-Chat 13B on the synthetic data."
FIND_JS = """const r = [...CSS.highlights.get('sourcecheck-contradicted')]
    .find(r => r.toString().replace(/\\s+/g, ' ').trim() === text);"""
RECTS_JS = (
    "(text) => {"
    + FIND_JS
    + "return [...r.getClientRects()].filter(b => b.width > 0).map(b => [b.left, b.top, b.right, b.bottom]); }"
)
# Put the sentence's first line at a height in the window (a fraction of it).
SCROLL_JS = "([text, at]) => {" + FIND_JS + "window.scrollBy(0, r.getBoundingClientRect().top - innerHeight * at); }"
SIDEBAR_JS = """() => {
    const r = document.querySelector('nav').getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
}"""
HEIGHTS_JS = "function () { return [this.scrollHeight, this.clientHeight]; }"


@pytest.fixture
def chatgpt(ext, site, fava_doc):
    page, errors = open_fixture(ext, site, "chatgpt")
    yield page
    assert errors == [], f"the page threw: {errors}"


def open_card(page, at):
    """Scroll the red sentence to `at` of the window's height and click it: (ShadowUI, card node, mark rects)."""
    page.evaluate("() => { document.querySelector('.thread').style.paddingTop = '800px'; }")  # room to scroll it down
    page.evaluate(SCROLL_JS, [CONTRADICTED, at])
    page.wait_for_timeout(100)
    rects = page.evaluate(RECTS_JS, CONTRADICTED)
    left, top, right, bottom = rects[0]
    page.mouse.click(left + min((right - left) / 2, 40), (top + bottom) / 2)
    ui = ShadowUI(page)
    card = wait_until(lambda: ui.shown("card"), what="the card")
    page.wait_for_timeout(150)  # placed in the next frame
    return ui, card, page.evaluate(RECTS_JS, CONTRADICTED)


def tip(ui, node):
    """The pointer's outermost corner: the one on the side it points to (its box is turned 45°)."""
    quad = ui.cdp.send("DOM.getBoxModel", {"backendNodeId": node["backendNodeId"]})["model"]["border"]
    corners = list(zip(quad[0::2], quad[1::2]))
    side = ui.find("pointer")[1].get("data-side")
    pick = {"top": lambda c: c[1], "bottom": lambda c: -c[1], "left": lambda c: c[0], "right": lambda c: -c[0]}[side]
    return min(corners, key=pick), side


def distance(point, rect):
    x, y = point
    dx = max(rect[0] - x, 0, x - rect[2])
    dy = max(rect[1] - y, 0, y - rect[3])
    return (dx * dx + dy * dy) ** 0.5


# Where the card goes: below, above, below capped (a short, wide window), beside (no room above or below).
@pytest.mark.parametrize(
    "size,at",
    [((1100, 760), 0.2), ((1100, 760), 0.85), ((1440, 600), 0.45), ((1440, 420), 0.45)],
    ids=["below", "above", "capped", "beside"],
)
def test_the_cards_pointer_reaches_its_sentence(ext, chatgpt, size, at):
    chatgpt.set_viewport_size({"width": size[0], "height": size[1]})
    check_answer(ext, chatgpt, FIXTURES["chatgpt"])
    ui, card, rects = open_card(chatgpt, at)
    pointer, _ = ui.find("pointer")
    assert pointer is not None, "the card has no pointer"
    point, side = tip(ui, pointer)
    near = min(distance(point, r) for r in rects)
    assert near <= 3, f"the pointer ({side}) ends at {point}, {near:.1f} px from the sentence {rects}"
    assert not any(overlaps(box(ui, card), r) for r in rects)


def test_a_tall_card_keeps_off_the_sidebar_when_there_is_room_elsewhere(ext, chatgpt, artifacts):
    chatgpt.set_viewport_size({"width": 1440, "height": 600})
    check_answer(ext, chatgpt, FIXTURES["chatgpt"])
    ui, card, rects = open_card(chatgpt, 0.45)
    sidebar = chatgpt.evaluate(SIDEBAR_JS)
    placed = box(ui, card)
    chatgpt.screenshot(path=str(artifacts / "card-tall.png"))
    assert not overlaps(placed, sidebar), f"the card {placed} covers the sidebar {sidebar}"
    assert not any(overlaps(placed, r) for r in rects), "the card covers its sentence"


def test_the_cards_actions_are_in_view_when_it_is_capped(ext, chatgpt):
    chatgpt.set_viewport_size({"width": 1100, "height": 420})
    check_answer(ext, chatgpt, FIXTURES["chatgpt"])
    ui, _, _ = open_card(chatgpt, 0.45)

    def measure():
        """The card's box, its heights and its actions' boxes, read from one fresh look at the page: the card is
        filled again when a late event of its sentence arrives (run.js), and nodes read before that are gone."""
        card = ui.shown("card")
        obj = ui.cdp.send("DOM.resolveNode", {"backendNodeId": card["backendNodeId"]})["object"]["objectId"]
        heights = ui.cdp.send(
            "Runtime.callFunctionOn", {"objectId": obj, "functionDeclaration": HEIGHTS_JS, "returnByValue": True}
        )["result"]["value"]
        actions = {cls: ui.find(cls, card)[0] for cls in ("copy", "dismiss")}
        assert all(actions.values()), f"an action is missing from the card: {actions}"
        return box(ui, card), heights, {cls: box(ui, node) for cls, node in actions.items()}

    seen = []

    def at_rest():  # two looks in a row agree
        seen.append(measure())
        return len(seen) > 1 and seen[-1] == seen[-2] and seen[-1]

    placed, heights, actions = wait_until(at_rest, what="the card at rest")
    assert heights[0] > heights[1], f"the card is not capped here {heights}: the test needs a card that scrolls"
    for cls, b in actions.items():
        assert 0 <= b[1] and b[3] <= 420, f".{cls} {b} is outside the window"
        assert placed[1] <= b[1] and b[3] <= placed[3], f".{cls} {b} is below the card's fold {placed}"
