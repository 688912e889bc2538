"""Revise all in the side panel: the checked text with each flagged sentence replaced by its verified revision,
shown as only what changed, a note for each flagged sentence left as written, and Copy of the whole revised text."""

import pytest
from browser_helpers import wait_until

pytestmark = pytest.mark.browser

SUPPORTED = "The FAVA model was trained on 35,074 training instances."
WRONG = "The editor model was fine-tuned from Llama2-Chat 13B on the synthetic data."
UNSUPPORTED = "The authors also released a mobile app for birdwatchers in Zürich."
ANSWER = " ".join([SUPPORTED, WRONG, UNSUPPORTED])
NOTE = "left as written: no revision your PDFs support"


def check_answer(ext, page, text):
    page.evaluate(
        """(t) => { const a = document.getElementById('answer'); a.innerHTML = '<p>' + t + '</p>';
        getSelection().selectAllChildren(a); }""",
        text,
    )
    ext.check_tab(page)
    return wait_until(lambda: (lc := ext.last_check()) and lc["status"] == "done" and lc, what="the check")


def test_revise_all_shows_only_what_changed_notes_what_was_left_and_copies_the_revised_text(
    ext, chat, backend, site, artifacts
):
    check_answer(ext, chat, ANSWER)
    expected = backend.request(
        "POST", "/check", {"text": ANSWER, "options": {"revise": True}}, headers={"Accept": "application/json"}
    )["summary"]
    assert expected["unrevised"] == [2] and "Llama2-Chat 7B" in expected["revised_text"]
    panel = ext.open_panel()
    panel.click("#revise-all")
    panel.wait_for_selector("#revision:not([hidden])", timeout=30000)

    # Only the replaced figure is marked as changed, inside its own sentence; the supported one is not shown.
    assert panel.locator("#revision-diff del").all_inner_texts() == ["13B"]
    assert panel.locator("#revision-diff ins").all_inner_texts() == ["7B"]
    changed = panel.locator("#revision-diff li.changed")
    assert changed.count() == 1
    parts = changed.evaluate("li => [...li.childNodes].map(n => [n.nodeName, n.textContent])")
    assert parts == [
        ["#text", "The editor model was fine-tuned from Llama2-Chat "],
        ["DEL", "13B"],
        ["INS", "7B"],
        ["#text", " on the synthetic data."],
    ]
    shown = panel.locator("#revision").inner_text()
    assert SUPPORTED not in shown
    # The sentence no revision held for: named once, with its note.
    left = panel.locator("#revision-diff li.unrevised")
    assert left.count() == 1
    assert left.locator(".text").inner_text() == UNSUPPORTED
    assert left.locator(".note").inner_text() == NOTE
    # Never the text twice: each flagged sentence appears once in the revision.
    assert shown.count("birdwatchers") == 1 and shown.count("fine-tuned from Llama2-Chat") == 1
    assert (
        panel.locator("#revise-msg").inner_text() == "1 sentence revised, 1 left as written; the rest as you wrote it."
    )

    panel.click("#revision-copy")
    wait_until(lambda: panel.locator("#revision-copy").inner_text() == "Copied", what="Copied")
    # The clipboard is the browser's: read it back from a web page allowed to (an extension page cannot be granted).
    ext.ctx.grant_permissions(["clipboard-read"], origin=site)
    chat.bring_to_front()
    assert chat.evaluate("() => navigator.clipboard.readText()") == expected["revised_text"]
    panel.screenshot(path=str(artifacts / "panel-revision.png"), full_page=True)


def test_revise_all_says_so_when_nothing_could_be_revised(ext, chat):
    check_answer(ext, chat, SUPPORTED + " " + UNSUPPORTED)
    panel = ext.open_panel()
    panel.click("#revise-all")
    panel.wait_for_selector("#revision:not([hidden])", timeout=30000)
    assert panel.locator("#revision-diff li.changed").count() == 0
    assert panel.locator("#revision-diff li.unrevised .text").all_inner_texts() == [UNSUPPORTED]
    assert panel.locator("#revise-msg").inner_text() == (
        "No sentence could be revised from your PDFs; the text stays as you wrote it."
    )
