"""Apply puts a revision in place as typing would; the editor's undo takes it back, and the sentence that comes back is
marked again (redo: the revision, unmarked, and nothing reported missing)."""

import pytest
from browser_helpers import ShadowUI, wait_until
from test_keyboard import FIXED, S, checked_draft, marks, state

pytestmark = pytest.mark.browser


def test_undo_after_apply_brings_the_sentence_back_marked(ext, site, fava_doc):
    page, errors, ui = checked_draft(ext, site)
    before = marks(page)
    assert S[2] in before["contradicted"]

    page.keyboard.press("Alt+Shift+N")
    wait_until(lambda: marks(page).get("active") == [S[2]], what="the first mark selected")
    page.keyboard.press("Enter")
    wait_until(lambda: ui.shown("card"), what="its card")
    page.keyboard.press("a")
    wait_until(lambda: FIXED[2] in state(page)["text"], what="the revision in place")
    assert S[2] not in marks(page)["contradicted"]

    page.keyboard.press("Control+z")
    wait_until(lambda: S[2] in state(page)["text"], what="the sentence back")
    wait_until(lambda: marks(page) == before, what="its mark back")

    page.keyboard.press("Control+Shift+z")
    wait_until(lambda: FIXED[2] in state(page)["text"], what="the revision again")
    wait_until(lambda: S[2] not in marks(page)["contradicted"], what="the mark gone again")
    page.wait_for_timeout(2500)  # past the grace for sentences gone from the page
    toast = ui.shown("toast")
    assert toast is None or "no longer on this page" not in ShadowUI.text(toast)
    assert errors == []
