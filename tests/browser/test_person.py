"""The extension as a person meets it: the card beside (never over) its sentence, no false alarm while an app
re-renders, the selection out of the way, results kept when a re-check fails, and a check that can be cancelled."""

import pytest
from browser_helpers import HIGHLIGHTS_JS, ShadowUI, slow_backend, wait_until

pytestmark = pytest.mark.browser

CONTRADICTED = "The editor model was fine-tuned from Llama2-Chat 13B on the synthetic data."
MARK_RECTS_JS = """(text) => {
    const r = [...CSS.highlights.get('sourcecheck-contradicted')]
        .find(r => r.toString().replace(/\\s+/g, ' ').trim() === text);
    return [...r.getClientRects()].map(b => [b.left, b.top, b.right, b.bottom]);
}"""


def select_answer(page):
    page.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")


def check_done(ext, page):
    ext.check_tab(page)
    return wait_until(lambda: (lc := ext.last_check()) and lc["status"] in ("done", "error") and lc, what="the check")


def box(ui, node):
    quad = ui.cdp.send("DOM.getBoxModel", {"backendNodeId": node["backendNodeId"]})["model"]["border"]
    return min(quad[0::2]), min(quad[1::2]), max(quad[0::2]), max(quad[1::2])


def overlaps(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_the_card_never_covers_its_sentence(ext, chat, artifacts):
    # Room to scroll: the answer can sit at the top, the middle or the bottom of the window.
    chat.evaluate("""() => {
        for (const where of ['prepend', 'append']) {
            const pad = document.createElement('div'); pad.style.height = '1400px'; document.body[where](pad);
        }
    }""")
    select_answer(chat)
    assert check_done(ext, chat)["status"] == "done"
    assert chat.evaluate("() => getSelection().isCollapsed"), "the selection is collapsed after Check"
    ui = ShadowUI(chat)
    height = chat.evaluate("() => innerHeight")
    for i, target in enumerate((40, height // 2, height - 60)):
        chat.mouse.click(5, 5)  # closes a pinned card
        wait_until(lambda: not ui.shown("card"), what="the card to close")
        chat.evaluate(
            """([text, y]) => {
            const r = [...CSS.highlights.get('sourcecheck-contradicted')][0].getBoundingClientRect();
            scrollBy(0, r.top - y);
        }""",
            [CONTRADICTED, target],
        )
        rects = chat.evaluate(MARK_RECTS_JS, CONTRADICTED)
        left, top, right, bottom = rects[0]
        chat.mouse.click(left + 20, (top + bottom) / 2)
        card = wait_until(lambda: ui.shown("card"), what=f"the card at scroll position {i}")
        b = box(ui, card)
        assert not any(overlaps(b, r) for r in chat.evaluate(MARK_RECTS_JS, CONTRADICTED)), (target, b, rects)
        assert b[1] >= 0 and b[3] <= height, "the card is inside the window"
        if more := ui.find_all("more"):  # "related passages" opened: the card grows, and still leaves the sentence
            summary = next(c for c in more[0]["children"] if c.get("nodeName") == "SUMMARY")
            ui.click(summary)
            chat.wait_for_timeout(300)
            b = box(ui, ui.shown("card"))
            assert not any(overlaps(b, r) for r in chat.evaluate(MARK_RECTS_JS, CONTRADICTED))
            assert b[1] >= 0 and b[3] <= height
        chat.screenshot(path=str(artifacts / f"card-placed-{i}.png"))


def test_blanking_and_refilling_the_answer_reports_nothing_missing(ext, chat):
    select_answer(chat)
    assert check_done(ext, chat)["status"] == "done"
    ui = ShadowUI(chat)
    # What chat apps do while streaming: the message is emptied and filled again 300 ms later.
    chat.evaluate("""() => {
        const answer = document.getElementById('answer');
        answer.innerHTML = '';
        setTimeout(() => render('initial'), 300);
    }""")
    chat.wait_for_timeout(3500)  # past the grace period
    toast = ui.shown("toast")
    assert not (toast and "no longer on this page" in ShadowUI.text(toast))
    assert not any(s["missing"] for s in ext.last_check()["sentences"])
    assert chat.evaluate(HIGHLIGHTS_JS).get("sourcecheck-contradicted") == [CONTRADICTED]


def test_a_failed_recheck_keeps_the_marks_and_the_results(ext, chat, backend):
    select_answer(chat)
    first = check_done(ext, chat)
    assert first["status"] == "done"
    marks = chat.evaluate(HIGHLIGHTS_JS)
    # The backend is gone (a wrong address here): the re-check fails before it finds its sentences.
    ext.sw.evaluate("() => chrome.storage.local.set({backendUrl: 'http://127.0.0.1:9'})")
    select_answer(chat)
    ext.check_tab(chat)
    ui = ShadowUI(chat)
    toast = wait_until(lambda: ui.shown("toast", "error"), what="the error toast")
    assert "not running" in ShadowUI.text(toast)
    assert chat.evaluate(HIGHLIGHTS_JS) == marks
    kept = wait_until(lambda: (lc := ext.last_check()) and lc.get("recheckError") and lc, what="the failure noted")
    assert kept["checkId"] == first["checkId"] and kept["sentences"] == first["sentences"]
    assert "FAVA model was trained" in chat.evaluate("() => getSelection().toString()"), "kept for a retry"
    panel = ext.open_panel()
    summary = panel.wait_for_selector("#results-summary")
    wait_until(lambda: "results are kept" in summary.inner_text(), what="the panel to say the results were kept")
    ext.storage({"backendUrl": backend.url, "token": backend.token})


def test_cancel_stops_the_check_and_the_next_one_runs(ext, chat, pdf_dir, tmp_path, artifacts):
    from browser_pdfs import write_fava

    # 2 s a critique: 3 critiques to write
    with slow_backend(ext, tmp_path / "index", write_fava(pdf_dir / "fava-cancel.pdf"), 2) as slow:
        ui = ShadowUI(chat)
        select_answer(chat)
        ext.check_tab(chat)
        toast = wait_until(
            lambda: (t := ui.shown("toast")) and "sentences checked" in ShadowUI.text(t) and t,
            what="the progress toast",
        )
        text = ShadowUI.text(toast)
        assert " s" in text.split("·")[1], text  # the time so far
        chat.screenshot(path=str(artifacts / "progress-toast.png"))

        def flagged_now():
            lc = ext.last_check() or {}
            return [s for s in lc.get("sentences") or [] if s["label"] in ("contradicted", "unsupported")]

        # every verdict in, critiques under way (2 s each): on a loaded machine the scoring can still be running when
        # the toast first shows, and a cancel then stops it before the third flagged verdict (CI beside a model run)
        wait_until(lambda: len(flagged_now()) == 3, what="the three flagged verdicts")
        ui.click(ui.find("action")[0])
        wait_until(lambda: (t := ui.shown("toast")) and "cancelled" in ShadowUI.text(t), what="the cancelled toast")
        cancelled = wait_until(
            lambda: (lc := ext.last_check()) and lc["status"] == "cancelled" and lc, what="the check to be cancelled"
        )
        wait_until(lambda: any("stopped" in line for line in slow.lines), what="the backend to stop the check")
        flagged = [s for s in cancelled["sentences"] if s["label"] in ("contradicted", "unsupported")]
        assert len(flagged) == 3 and len([s for s in flagged if s["critique"]]) < 3, flagged  # not all were written
        # The next check starts and finishes: the model was freed.
        select_answer(chat)
        ext.check_tab(chat)
        done = wait_until(
            lambda: (lc := ext.last_check()) and lc["status"] == "done" and lc, timeout=40, what="the next check"
        )
        assert done["checkId"] != cancelled["checkId"]


def test_a_card_names_a_cited_paper_that_is_not_in_the_library(ext, chat):
    chat.evaluate("""() => {
        const p = document.createElement('p'); p.id = 'cited';
        p.textContent = 'Jones et al. (2020) showed that the FAVA editor runs on bicycles.';
        document.querySelector('main').append(p);
        getSelection().selectAllChildren(p);
    }""")
    assert check_done(ext, chat)["status"] == "done"
    marked = wait_until(lambda: chat.evaluate(HIGHLIGHTS_JS).get("sourcecheck-unsupported"), what="the mark")
    assert marked == ["Jones et al. (2020) showed that the FAVA editor runs on bicycles."]
    box = chat.evaluate(
        "() => { const r = [...CSS.highlights.get('sourcecheck-unsupported')][0].getClientRects()[0];"
        " return [r.left + 10, (r.top + r.bottom) / 2]; }"
    )
    chat.mouse.click(*box)
    ui = ShadowUI(chat)
    card = wait_until(lambda: ui.shown("card"), what="the card")
    assert "Cites Jones et al. (2020), which is not in your library." in ShadowUI.text(card)


def test_a_card_names_the_authors_of_a_cited_paper_when_the_sentence_names_another(ext, chat, backend, pdf_dir):
    """A new user's answer named a co-author the paper does not have and was shown supported: the PDF's own authors
    settle it, on the card."""
    from pdfs import make_pdf

    otters = make_pdf(
        pdf_dir / "otters.pdf",
        ["Counting Otters. © 2023 Coast Press. Sea otters were counted from boats: 412 otters in 2021."],
        title="Counting Otters",
        author="Ann Fisher, Bo Lind",
    )
    doc = backend.upload(otters)
    try:
        backend.wait_ready(doc["id"])
        chat.evaluate("""() => {
            const p = document.createElement('p'); p.id = 'coauthor';
            p.textContent = 'Sea otters were counted from boats: 412 otters in 2021 (Fisher & Moss, 2023).';
            document.querySelector('main').append(p);
            getSelection().selectAllChildren(p);
        }""")
        assert check_done(ext, chat)["status"] == "done"
        text = "Sea otters were counted from boats: 412 otters in 2021 (Fisher & Moss, 2023)."
        wait_until(lambda: chat.evaluate(HIGHLIGHTS_JS).get("sourcecheck-unsupported") == [text], what="the mark")
        at = chat.evaluate(
            "() => { const r = [...CSS.highlights.get('sourcecheck-unsupported')][0].getClientRects()[0];"
            " return [r.left + 10, (r.top + r.bottom) / 2]; }"
        )
        chat.mouse.click(*at)
        card = wait_until(lambda: ShadowUI(chat).shown("card"), what="the card")
        words = ShadowUI.text(card)
        assert (
            "Cites Fisher & Moss, 2023, but that paper is by Ann Fisher and Bo Lind: Moss is not among them." in words
        )
        assert "overruled: the cited paper has other authors" in words
    finally:
        backend.request("DELETE", f"/documents/{doc['id']}")  # the session's library as the other tests expect it


def test_a_scanned_pdf_is_read_and_the_viewer_says_why_it_cannot_highlight(ext, backend, pdf_dir):
    import urllib.parse

    from pdfs import BRIDGE_PAGES, make_scan
    from sourcecheck.pdf.layout import tessdata

    if tessdata() is None:
        pytest.skip("Tesseract is not installed (scripts/setup installs it where it can)")
    doc = backend.wait_ready(backend.upload(make_scan(pdf_dir / "scanned bridge.pdf", BRIDGE_PAGES))["id"])
    assert doc["pages"] == 2 and doc["chunks"] >= 2
    quote = "The Golden Gate Bridge opened to traffic on May 27, 1937."
    viewer = ext.ctx.new_page()
    viewer.goto(ext.url("viewer/index.html?" + urllib.parse.urlencode({"doc": doc["id"], "page": 1, "q": quote})))
    status = viewer.wait_for_selector("#status[data-found]", timeout=20000)
    assert status.get_attribute("data-found") == "false" and status.get_attribute("data-scanned") == "true"
    assert "is a scan" in status.inner_text() and quote in status.inner_text()
    backend.request("DELETE", f"/documents/{doc['id']}")


def test_the_viewer_shows_page_and_quote_for_a_pdf_this_backend_does_not_hold(ext, backend, pdf_dir):
    """A shared library's document another member added: its passages are checked here, its PDF is elsewhere. (The
    PDF copy is removed here to stand for that; tests/integration/test_chroma_server.py has the two backends.)"""
    import urllib.parse

    from pdfs import BRIDGE_PAGES, make_pdf

    doc = backend.wait_ready(backend.upload(make_pdf(pdf_dir / "bridge elsewhere.pdf", BRIDGE_PAGES))["id"])
    (backend.index_dir / "files" / f"{doc['id']}.pdf").unlink()
    quote = "The Golden Gate Bridge opened to traffic on May 27, 1937."
    viewer = ext.ctx.new_page()
    viewer.goto(ext.url("viewer/index.html?" + urllib.parse.urlencode({"doc": doc["id"], "page": 2, "q": quote})))
    error = viewer.wait_for_selector("#error:not([hidden])", timeout=20000)
    assert "not on this computer" in error.inner_text() and error.inner_text().count("add the PDF here") == 1
    assert viewer.inner_text("#status") == f"Page 2: “{quote}”"
    assert not viewer.is_visible("#canvas")
    backend.request("DELETE", f"/documents/{doc['id']}")
