"""A Zotero library as the source, in Chromium: a card's evidence from a Zotero PDF offers "Open in Zotero at page N"
(a zotero:// link beside the viewer's button), and the side panel's Settings → Zotero syncs, counts and limits the
checks to a collection."""

import pytest
from browser_helpers import Backend, ShadowUI, mark_center, select_answer, wait_done, wait_until
from zotero_library import standard_library

pytestmark = pytest.mark.browser
# The chat page's sentence that FAVA's page 2 contradicts (7B, not 13B).
CONTRADICTED = "The editor model was fine-tuned from Llama2-Chat 13B on the synthetic data."


@pytest.fixture(scope="module")
def zotero_backend(tmp_path_factory):
    """A backend of its own (fake judge) and a Zotero data directory built from Zotero's schema."""
    root = tmp_path_factory.mktemp("zotero")
    z, ids = standard_library(root / "Zotero", root / "made")
    b = Backend(root / "index", {"SOURCECHECK_BACKEND": "fake", "SOURCECHECK_EMBEDDINGS": "hash"})
    yield b, z, ids
    b.stop()


def synced(b, pdfs):
    def done():
        s = b.request("GET", "/zotero")["zotero"]
        return not s["sync"]["running"] and s["documents"] == s["ready"] == pdfs and s

    return wait_until(done, timeout=90, what=f"{pdfs} Zotero PDFs ready")


def test_a_cards_evidence_from_zotero_opens_in_zotero_at_its_page(ext, chat, zotero_backend, artifacts):
    b, z, ids = zotero_backend
    b.request("POST", "/zotero/sync", {"data_dir": str(z.root)})
    synced(b, 2)
    ext.storage({"backendUrl": b.url, "token": b.token})
    ui = ShadowUI(chat)
    select_answer(chat)
    ext.check_tab(chat)
    assert wait_done(ext)["status"] == "done"
    chat.evaluate("() => getSelection().removeAllRanges()")
    x, y = mark_center(chat, "sourcecheck-contradicted", CONTRADICTED)
    chat.mouse.move(x, y)
    card = wait_until(lambda: ui.shown("card"), what="the card on hover")
    text = ShadowUI.text(card)
    assert "Mishra et al. (2024) · p. 2" in text  # the passage named as the item is cited, not by its file name
    link, attrs = ui.find("zotero", under=card)
    assert link is not None, text
    assert attrs["href"] == f"zotero://open-pdf/library/items/{ids['fava_pdf']}?page=2"
    assert ShadowUI.text(link) == "Open in Zotero at page 2"
    # beside the viewer's button of the same passage: just below it
    first = ui.find_all("evidence")[0]
    assert "p. 2" in ShadowUI.text(first) and 0 < ui.center(link)[1] - ui.center(first)[1] < 60
    chat.screenshot(path=str(artifacts / "card-zotero.png"))
    url = chat.url
    ui.click(link)  # handed to the system's zotero:// handler: the page itself stays
    chat.wait_for_timeout(500)
    assert chat.url == url


def test_the_side_panel_syncs_zotero_shows_it_and_limits_checks_to_a_collection(ext, chat, zotero_backend, artifacts):
    b, z, ids = zotero_backend
    otters = z.item("Otters of the Northern Coast", [("Ann", "Fisher")], "2023-00-00 2023")
    z.stored_pdf(otters, "otters.pdf", ["Sea otters were counted from boats: 412 otters along the shore."], z.root)
    z.add_to(ids["bridges"], otters)
    ext.storage({"backendUrl": b.url, "token": b.token})
    panel = ext.open_panel()
    panel.fill("#zotero-dir", str(z.root))
    panel.click("#zotero-sync")
    synced(b, 3)  # the new item's PDF added
    # the panel polls the status; on a loaded machine a poll can wait behind the sync's indexing
    wait_until(lambda: "3 PDFs in the library" in panel.inner_text("#zotero-state"), 60, what="the Zotero counts")
    assert "3 not read" in panel.inner_text("#zotero-state")
    panel.click("#zotero-skipped-summary")
    assert "not on disk" in panel.inner_text("#zotero-skipped")  # the missing file, with what to do
    options = panel.eval_on_selector_all("#zotero-collection option", "os => os.map(o => o.textContent)")
    assert options == ["The whole library", "Bridges (2 PDFs)", "Thesis (1 PDF)", "Thesis/Hallucination (1 PDF)"]
    panel.select_option("#zotero-collection", "Bridges")
    wait_until(lambda: ext.stored().get("collection") == "Bridges", what="the collection kept")
    panel.locator("#zotero").screenshot(path=str(artifacts / "sidepanel-zotero.png"))

    select_answer(chat)
    ext.check_tab(chat)
    lc = wait_done(ext)
    assert lc["status"] == "done", lc
    labels = {s["text"]: s["label"] for s in lc["sentences"] if s["label"] != "skipped"}
    # only the bridge and otter PDFs were read: nothing backs or contradicts what the answer says of FAVA
    assert not {"supported", "contradicted"} & set(labels.values()), labels
