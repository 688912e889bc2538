"""One end-to-end run with the real default model (llama.cpp GGUF) and the real embeddings: a wrong figure is
marked red with both values in its card, a sentence with the exact figure is left unmarked. Slow (seconds per
sentence), so it checks two sentences only."""

import pytest
from browser_helpers import HIGHLIGHTS_JS, Backend, ShadowUI, wait_until
from browser_pdfs import write_fava
from support import require_model

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.model]

WRONG = "The editor model was fine-tuned from Llama2-Chat 13B on the synthetic data."
RIGHT = "Errors are grouped into six types, from entity errors to unverifiable statements."


@pytest.fixture(scope="module")
def real_backend(tmp_path_factory, request):
    require_model(request.config)
    b = Backend(tmp_path_factory.mktemp("real-index"), {"SOURCECHECK_N_THREADS": "2"})
    yield b
    b.stop()


def test_real_model_marks_the_wrong_number(browser, real_backend, site, tmp_path, artifacts):
    real_backend.wait_ready(real_backend.upload(write_fava(tmp_path / "fava.pdf"))["id"], timeout=180)
    browser.storage({"backendUrl": real_backend.url, "token": real_backend.token})
    page = browser.ctx.new_page()
    try:
        page.goto(site + "/chat.html")
        # From the last list item to the end of the next paragraph: a wrong claim and a right one.
        page.evaluate("""() => {
            const li = document.querySelector('#answer li:last-child');
            const p = document.querySelectorAll('#answer p')[2];
            getSelection().setBaseAndExtent(li, 0, p, p.childNodes.length);
        }""")
        browser.check_tab(page)
        lc = wait_until(
            lambda: (lc := browser.last_check()) and lc["status"] in ("done", "error") and lc,
            timeout=420,
            interval=1,
            what="the real model's check",
        )
        assert lc["status"] == "done", lc.get("error")
        labels = {s["text"]: s["label"] for s in lc["sentences"]}
        assert len(labels) == 2 and all(
            label in ("supported", "contradicted", "unsupported") for label in labels.values()
        )
        # The wrong figure is red (the PDF gives another for the same thing); the exact one is left unmarked.
        assert labels == {WRONG: "contradicted", RIGHT: "supported"}, labels
        # The page shows exactly the flagged sentences.
        marks = page.evaluate(HIGHLIGHTS_JS)
        marked = sorted(marks.get("sourcecheck-contradicted", []) + marks.get("sourcecheck-unsupported", []))
        assert marked == sorted(t for t, label in labels.items() if label != "supported")
        page.evaluate("() => getSelection().removeAllRanges()")
        page.evaluate("() => { document.querySelector('.composer').style.display = 'none'; }")
        name = "sourcecheck-" + labels[WRONG]
        x, y = page.evaluate(
            """([name, text]) => {
            const r = [...CSS.highlights.get(name)].find(r => r.toString().replace(/\\s+/g, ' ').trim() === text);
            const b = r.getClientRects()[0];
            return [b.left + 30, b.top + b.height / 2];
        }""",
            [name, WRONG],
        )
        page.mouse.move(x, y)
        ui = ShadowUI(page)
        card = wait_until(lambda: ui.shown("card"), what="the card")
        text = ShadowUI.text(card)
        assert "fava.pdf" in text and "13B" in text and "7B" in text, text  # both values, from the data
        page.screenshot(path=str(artifacts / "real-model-card.png"))
    finally:
        page.close()
