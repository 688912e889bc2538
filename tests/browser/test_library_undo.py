"""Deleting a PDF in the side panel offers Undo for a few seconds: the row says "Deleted · Undo", and the DELETE is sent
only when that time is up, or at once when the panel closes."""

import pytest
from browser_helpers import wait_until
from browser_pdfs import write_other

pytestmark = pytest.mark.browser


def ids(backend):
    return {d["id"] for d in backend.request("GET", "/documents")["documents"]}


def test_delete_offers_undo_and_deletes_when_the_time_is_up(ext, backend, pdf_dir, artifacts):
    doc = backend.wait_ready(backend.upload(write_other(pdf_dir / "sea otters.pdf", "sea otters"))["id"])
    panel = ext.open_panel()
    row = f"li.doc[data-id='{doc['id']}']"
    panel.wait_for_selector(row + "[data-status=ready]")

    panel.click(row + " button.delete")
    panel.wait_for_selector(row + "[data-status=deleted]")
    assert panel.inner_text(row).split("\n")[-1] == "Deleted · Undo"
    panel.locator(row).scroll_into_view_if_needed()
    panel.screenshot(path=str(artifacts / "library-undo.png"))  # extension/docs/library-undo.png
    assert doc["id"] in ids(backend), "nothing is deleted while Undo is offered"
    panel.click(row + " button.undo")
    panel.wait_for_selector(row + "[data-status=ready]")
    panel.wait_for_timeout(7000)  # past the Undo time: still there
    assert doc["id"] in ids(backend)
    assert panel.locator(row + "[data-status=ready]").count() == 1

    panel.click(row + " button.delete")
    panel.wait_for_selector(row, state="detached", timeout=15000)
    assert doc["id"] not in ids(backend)


def test_closing_the_panel_deletes_what_it_was_holding_back(ext, backend, pdf_dir):
    doc = backend.wait_ready(backend.upload(write_other(pdf_dir / "river otters.pdf", "river otters"))["id"])
    panel = ext.open_panel()
    row = f"li.doc[data-id='{doc['id']}']"
    panel.click(row + "[data-status=ready] button.delete")
    panel.wait_for_selector(row + "[data-status=deleted]")
    panel.close()
    wait_until(lambda: doc["id"] not in ids(backend), timeout=5, what="the DELETE sent as the panel closed")
