"""Select an answer on a chat-like page, check it, and read the marks and the card."""

import pytest
from browser_helpers import HIGHLIGHTS_JS, ShadowUI, mark_center, select_answer, slow_backend, wait_done, wait_until
from sourcecheck.judging.judge import Judge
from sourcecheck.llm.fake import FakeModel

pytestmark = pytest.mark.browser

CONTRADICTED = ["The editor model was fine-tuned from Llama2-Chat 13B on the synthetic data."]
UNSUPPORTED = [
    "The authors also released a mobile app for birdwatchers in Zürich.",
    "Café owners liked it très much 🚀.",
]
SUPPORTED = [
    "The FAVA model was trained on 35,074 training instances.",
    "The retrieval component uses Contriever to find relevant passages.",
    "Errors are grouped into six types, from entity errors to unverifiable statements.",
]


def test_button_check_marks_exactly_the_flagged_sentences(ext, chat, artifacts):
    ui = ShadowUI(chat)
    select_answer(chat)
    button = wait_until(lambda: ui.shown("btn"), what="the check button next to the selection")
    ui.click(button)
    lc = wait_done(ext)
    assert lc["status"] == "done", lc
    marks = chat.evaluate(HIGHLIGHTS_JS)
    assert sorted(marks.get("sourcecheck-contradicted", [])) == sorted(CONTRADICTED)
    assert sorted(marks.get("sourcecheck-unsupported", [])) == sorted(UNSUPPORTED)
    assert "sourcecheck-supported" not in marks  # off by default
    # The selection is collapsed once the check is under way: the marks are not hidden under its blue.
    assert chat.evaluate("() => getSelection().isCollapsed")
    labels = {s["text"]: s["label"] for s in lc["sentences"]}
    assert labels["Do you want more details?"] == "skipped"
    # This machine's pace is kept for the next check's time-left estimate (lib/pace.js): 3 of 6 sentences flagged;
    # the judge reads unsure sentences twice (the shipped calibration has a second read) and none of these was unsure
    pace = wait_until(lambda: ext.stored().get("pace"), what="the kept pace")
    assert set(pace) == {"verdictMs", "critiqueMs", "flaggedShare", "rereadShare"}, pace
    assert pace["flaggedShare"] == 0.5 and pace["rereadShare"] == 0, pace
    chat.screenshot(path=str(artifacts / "check-marks.png"))


def test_card_shows_critique_and_evidence_and_opens_the_pdf(ext, chat, artifacts):
    ui = ShadowUI(chat)
    select_answer(chat)
    ext.check_tab(chat)  # the context-menu / shortcut path
    wait_done(ext)
    chat.evaluate("() => getSelection().removeAllRanges()")
    x, y = mark_center(chat, "sourcecheck-contradicted", CONTRADICTED[0])
    chat.mouse.move(x, y)
    card = wait_until(lambda: ui.shown("card"), what="the card on hover")
    text = ShadowUI.text(card)
    assert "Contradicted by your sources" in text
    # The fake judge's raw P(Yes) for a contradicted sentence is 0.1; the card shows it calibrated.
    expected = Judge(FakeModel()).calibrate(0.1)
    assert f"P(supported) {round(100 * expected)}%" in text
    assert "a wrong number or name" in text
    # the conflict is stated from the data, both values, not by the model
    assert "The sentence says 13B; fava.pdf, page 2 says 7B" in text
    assert "The editor model was fine-tuned from Llama2-Chat 7B on the synthetic data." in text
    assert "fava.pdf · p. 2" in text
    chat.screenshot(path=str(artifacts / "card.png"))

    evidence = ui.find_all("evidence")[0]
    with ext.ctx.expect_page() as info:
        ui.click(evidence)
    viewer = info.value
    viewer.wait_for_selector("#status[data-found]", timeout=20000)
    status = viewer.locator("#status")
    assert status.get_attribute("data-found") == "true", status.inner_text()
    assert status.get_attribute("data-page") == "2"
    quote = viewer.evaluate("() => [...CSS.highlights.get('sourcecheck-quote')].map(r => r.toString()).join(' ')")
    assert "Llama2-Chat 7B" in quote
    viewer.screenshot(path=str(artifacts / "viewer.png"))


def test_works_on_a_page_with_a_strict_csp(ext, site, fava_doc):
    page = ext.ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site + "/strict-csp.html")
    ui = ShadowUI(page)
    page.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")
    button = wait_until(lambda: ui.shown("btn"), what="the check button")
    # Our styles apply although the page forbids inline styles.
    ui.cdp.send("CSS.enable")
    ui.cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})
    node_id = ui.cdp.send("DOM.pushNodesByBackendIdsToFrontend", {"backendNodeIds": [button["backendNodeId"]]})[
        "nodeIds"
    ][0]
    style = {
        p["name"]: p["value"] for p in ui.cdp.send("CSS.getComputedStyleForNode", {"nodeId": node_id})["computedStyle"]
    }
    assert style["border-top-left-radius"] == "14px" and style["position"] == "fixed"
    ui.click(button)
    wait_until(lambda: (lc := ext.last_check()) and lc["status"] == "done", what="the check")
    marks = page.evaluate(HIGHLIGHTS_JS)
    assert marks["sourcecheck-unsupported"] == ["The authors also released a mobile app for birdwatchers in Zürich."]
    assert errors == []


def test_marks_come_before_critiques_and_an_open_card_fills_in(ext, chat, pdf_dir, tmp_path, artifacts):
    """Verdicts stream before any critique is written: the mark and its card appear at once, and the
    card shows the critique when it arrives (a second, final verdict for the same sentence)."""
    from browser_pdfs import write_fava

    # the fake takes 3 s a critique
    with slow_backend(ext, tmp_path / "index", write_fava(pdf_dir / "fava-slow.pdf"), 3):
        ui = ShadowUI(chat)
        select_answer(chat)
        ext.check_tab(chat)
        # critiques are written most doubtful first (red first): the last amber one waits for the others
        last = UNSUPPORTED[-1]
        wait_until(
            lambda: last in chat.evaluate(HIGHLIGHTS_JS).get("sourcecheck-unsupported", []),
            what="the amber mark, before its critique is written",
        )
        chat.evaluate("() => getSelection().removeAllRanges()")
        x, y = mark_center(chat, "sourcecheck-unsupported", last)
        chat.mouse.click(x, y)  # a pinned card
        card = wait_until(lambda: ui.shown("card"), what="the card")
        assert "Writing the critique…" in ShadowUI.text(card)
        assert ext.last_check()["status"] == "checking"
        chat.screenshot(path=str(artifacts / "card-pending.png"))
        card = wait_until(
            lambda: (c := ui.shown("card")) and "Writing the critique" not in ShadowUI.text(c) and c,
            what="the critique in the open card",
            timeout=30,
        )
        assert "Not supported by your sources" in ShadowUI.text(card)
        # The click gave the card the focus, and filling it in kept it there: its keys still act (issue 50).
        assert chat.evaluate("() => document.activeElement.tagName") == "SOURCECHECK-UI"
        chat.screenshot(path=str(artifacts / "card-final.png"))
        assert wait_done(ext)["status"] == "done"


def test_a_double_clicked_word_gets_no_check_button(ext, chat):
    ui = ShadowUI(chat)
    chat.evaluate("""() => {
        const walker = document.createTreeWalker(document.getElementById('answer'), NodeFilter.SHOW_TEXT);
        let node = walker.nextNode();
        while (node && !/\\w{5,}/.test(node.textContent)) node = walker.nextNode();
        const m = node.textContent.match(/\\w{5,}/);
        const r = document.createRange();
        r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
        getSelection().removeAllRanges(); getSelection().addRange(r);
    }""")
    chat.wait_for_timeout(600)  # the button follows selectionchange at once when it shows at all
    assert not ui.shown("btn")
    select_answer(chat)
    wait_until(lambda: ui.shown("btn"), what="the check button for a real selection")
