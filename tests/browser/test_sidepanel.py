"""The side panel, opened as a tab: pairing with the printed code, uploads by file picker and by
drop, the document list, and the last check's results."""

import pytest
from browser_helpers import HIGHLIGHTS_JS, Backend, ShadowUI, wait_until
from browser_pdfs import write_other

pytestmark = pytest.mark.browser

FAKE_ENV = {"SOURCECHECK_BACKEND": "fake", "SOURCECHECK_EMBEDDINGS": "hash"}


@pytest.fixture(scope="module")
def fresh_backend(tmp_path_factory):
    """A second backend with an empty library, not paired with the browser yet."""
    b = Backend(tmp_path_factory.mktemp("fresh-index"), FAKE_ENV)
    yield b
    b.stop()


def test_pairing_then_the_empty_library_is_explained(browser, fresh_backend, site, artifacts):
    browser.storage({"backendUrl": fresh_backend.url})
    panel = browser.open_panel()
    panel.wait_for_selector("#status-backend[data-reachable=true]")
    panel.wait_for_selector("#pairing:not([hidden])")
    assert panel.locator("#banner").get_attribute("data-code") == "not_paired"
    assert "not paired" in panel.locator("#banner-message").inner_text()

    panel.fill("#pair-code", "000-000")
    panel.click("#pair-button")
    wait_until(
        lambda: (
            "not accepted" in panel.locator("#pair-result").inner_text()
            or "code" in panel.locator("#pair-result").inner_text().lower()
        ),
        what="a refused code",
    )
    panel.fill("#pair-code", fresh_backend.pairing_code)
    panel.click("#pair-button")
    panel.wait_for_selector("#status-paired[data-paired=true]")
    panel.wait_for_selector("#pairing[hidden]", state="attached")
    token = browser.stored()["token"]
    assert token == fresh_backend.token
    panel.screenshot(path=str(artifacts / "panel-paired.png"))

    # A check now fails with a message a person understands, in the page and in the panel.
    page = browser.ctx.new_page()
    page.goto(site + "/chat.html")
    ui = ShadowUI(page)
    page.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")
    ui.click(wait_until(lambda: ui.shown("btn"), what="the check button"))
    toast = wait_until(lambda: ui.shown("toast", "error"), what="the error toast")
    text = ShadowUI.text(toast)
    assert "library" in text.lower() and "side panel" in text
    panel.wait_for_selector("#results-summary[data-status=error]")
    assert "library" in panel.locator("#results-summary").inner_text().lower()
    assert page.evaluate(HIGHLIGHTS_JS) == {}
    page.screenshot(path=str(artifacts / "error-empty-library.png"))
    panel.close()
    page.close()


def drop_file(panel, selector, path):
    """A browser-level file drop over CDP (what a person dragging from the file manager does)."""
    box = panel.locator(selector).bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = panel.context.new_cdp_session(panel)
    data = {"items": [], "files": [str(path)], "dragOperationsMask": 1}
    for kind in ("dragEnter", "dragOver", "drop"):
        cdp.send("Input.dispatchDragEvent", {"type": kind, "x": x, "y": y, "data": data})


def test_upload_by_picker_and_by_drop_then_delete(ext, backend, pdf_dir, artifacts):
    picked = write_other(pdf_dir / "picked report.pdf", "river otters")
    dropped = write_other(pdf_dir / "dropped.pdf", "mountain goats")
    panel = ext.open_panel()
    panel.wait_for_selector("#status-paired[data-paired=true]")

    panel.set_input_files("#file-input", str(picked))
    panel.wait_for_selector("li.doc[data-status=ready] >> text=Notes on river otters", timeout=30000)
    drop_file(panel, "#drop-zone", dropped)
    panel.wait_for_selector("li.doc[data-status=ready] >> text=Notes on mountain goats", timeout=30000)
    # Each upload leaves exactly one row: its document's.
    assert panel.locator("li.upload").count() == 0
    rows = panel.locator("li.doc").all_inner_texts()
    assert sum("river otters" in r for r in rows) == 1 and sum("mountain goats" in r for r in rows) == 1
    assert all(" ready · " in r for r in rows if "otters" in r or "goats" in r), rows  # as the README says
    names = {d["filename"]: d for d in backend.request("GET", "/documents")["documents"]}
    assert names["picked report.pdf"]["status"] == "ready" and names["dropped.pdf"]["status"] == "ready"
    panel.screenshot(path=str(artifacts / "panel-uploads.png"), full_page=True)

    doc_id = names["dropped.pdf"]["id"]
    panel.click(f"li.doc[data-id='{doc_id}'] button.delete")
    panel.wait_for_selector(f"li.doc[data-id='{doc_id}']", state="detached")
    assert doc_id not in {d["id"] for d in backend.request("GET", "/documents")["documents"]}


def test_not_a_pdf_is_refused_in_the_panel(ext, pdf_dir):
    txt = pdf_dir / "notes.txt"
    txt.write_text("not a pdf")
    panel = ext.open_panel()
    panel.set_input_files("#file-input", str(txt))
    row = panel.wait_for_selector("li.upload[data-name='notes.txt'][data-status=failed]")
    assert "not a PDF" in row.inner_text()
    row.query_selector("button.dismiss").click()  # a failed row can be dismissed
    panel.wait_for_selector("li.upload[data-name='notes.txt']", state="detached")


def test_a_damaged_pdf_says_what_to_do_not_try_again(ext, pdf_dir):
    bad = pdf_dir / "damaged.pdf"
    bad.write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 200)
    panel = ext.open_panel()
    panel.wait_for_selector("#status-paired[data-paired=true]")
    panel.set_input_files("#file-input", str(bad))
    row = panel.wait_for_selector("li.upload[data-name='damaged.pdf'][data-status=failed]")
    assert "Try again" not in row.inner_text() and "again" in row.inner_text().lower(), row.inner_text()


def test_backend_address_without_http_a_switch_clears_the_list_and_each_backend_keeps_its_token(
    ext, backend, fresh_backend
):
    panel = ext.open_panel()
    panel.wait_for_selector("li.doc")  # the session backend's library is listed
    # The fresh backend, typed without http://, was never paired: no rows of the other library stay.
    panel.fill("#backend-url", fresh_backend.url.removeprefix("http://"))
    panel.click("#save-settings")
    panel.wait_for_selector("#status-backend[data-reachable=true] >> text=" + fresh_backend.url)
    assert ext.stored()["backendUrl"] == fresh_backend.url
    panel.wait_for_selector("#status-paired[data-paired=false]")
    assert panel.locator("li.doc").count() == 0 and panel.locator("li.upload").count() == 0
    panel.fill("#backend-url", "x")
    assert panel.locator("#settings-msg").inner_text() == "", "an old 'Saved.' goes when the address is edited"
    # Back to the first: its token was kept, no pairing needed.
    panel.fill("#backend-url", backend.url)
    panel.click("#save-settings")
    panel.wait_for_selector("#status-paired[data-paired=true]")
    assert ext.stored()["token"] == backend.token
    panel.wait_for_selector("li.doc")


def test_results_list_scrolls_to_the_sentence(ext, chat, artifacts):
    chat.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")
    ext.check_tab(chat)
    wait_until(lambda: (lc := ext.last_check()) and lc["status"] == "done", what="the check")
    chat.evaluate("() => getSelection().removeAllRanges()")
    panel = ext.open_panel()
    panel.wait_for_selector("#result-list li[data-label=unsupported]")
    assert panel.locator("#result-list li").count() == 9  # 3 skipped: "Great question! 🙂", "Here is…", the question
    assert panel.locator("#result-list li[data-label=contradicted]").count() == 1
    assert panel.locator("#result-list li[data-label=unsupported]").count() == 2
    assert "1 contradicted, 2 not supported, 3 supported" in panel.locator("#results-summary").inner_text()
    panel.screenshot(path=str(artifacts / "panel-results.png"), full_page=True)

    panel.click("#result-list li[data-label=contradicted]")
    ui = ShadowUI(chat)
    wait_until(lambda: "sourcecheck-focus" in chat.evaluate(HIGHLIGHTS_JS), what="the focused sentence")
    assert chat.evaluate(HIGHLIGHTS_JS)["sourcecheck-focus"] == [
        "The editor model was fine-tuned from Llama2-Chat 13B on the synthetic data."
    ]
    card = wait_until(lambda: ui.shown("card"), what="the pinned card")
    assert "Contradicted" in ShadowUI.text(card)


def test_show_supported_setting_marks_supported_sentences(ext, chat):
    chat.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")
    ext.check_tab(chat)
    wait_until(lambda: (lc := ext.last_check()) and lc["status"] == "done", what="the check")
    assert "sourcecheck-supported" not in chat.evaluate(HIGHLIGHTS_JS)
    panel = ext.open_panel()
    panel.check("#show-supported")
    marks = wait_until(lambda: chat.evaluate(HIGHLIGHTS_JS).get("sourcecheck-supported"), what="supported marks")
    assert len(marks) == 3
    panel.uncheck("#show-supported")
    wait_until(lambda: "sourcecheck-supported" not in chat.evaluate(HIGHLIGHTS_JS), what="supported marks gone")


def test_the_sensitivity_setting_goes_with_each_check(ext, chat, backend):
    panel = ext.open_panel()
    wait_until(lambda: panel.locator("#sensitivity").input_value() == "balanced", what="the default sensitivity")
    assert panel.locator("label[for=sensitivity]").inner_text() == "Sensitivity"  # the README's and docs' word
    panel.select_option("#sensitivity", "strict")
    wait_until(lambda: ext.stored().get("sensitivity") == "strict", what="the stored sensitivity")
    # The check sends it: a value the backend does not know comes back as its clear 400, shown on the page.
    ext.storage({"backendUrl": backend.url, "token": backend.token, "sensitivity": "paranoid"})
    chat.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")
    ext.check_tab(chat)
    toast = wait_until(lambda: ShadowUI(chat).shown("toast", "error"), what="the error toast")
    assert "sensitivity" in ShadowUI.text(toast).lower()


def test_finished_checks_are_kept_and_export_as_markdown(ext, chat):
    chat.evaluate("() => getSelection().selectAllChildren(document.getElementById('answer'))")
    ext.check_tab(chat)
    wait_until(lambda: (lc := ext.last_check()) and lc["status"] == "done", what="the check")
    history = wait_until(lambda: ext.stored().get("history"), what="the kept check")
    assert history[0]["url"] == chat.url and history[0]["title"] == "Chat — assistant answer"
    panel = ext.open_panel()
    row = panel.wait_for_selector("#history-list li.history")
    assert "1 contradicted, 2 not supported, 3 supported" in row.inner_text()
    with panel.expect_download() as info:
        row.query_selector("button.export").click()
    md = open(info.value.path(), encoding="utf-8").read()
    assert info.value.suggested_filename.startswith("sourcecheck-") and info.value.suggested_filename.endswith(".md")
    assert md.startswith("# sourcecheck report") and f"({chat.url})" in md
    assert "## " in md and "> The editor model was fine-tuned from Llama2-Chat 13B on the synthetic data." in md
    assert "Contradicted by your sources" in md and "fava.pdf, p. 2 (refutes)" in md
    # It outlives the browser session: kept in local storage, not session storage.
    assert ext.sw.evaluate("() => chrome.storage.local.get('history').then(r => r.history.length)") >= 1
