"""A Zotero library synced through the real server (`sourcecheck serve`, waitress) as the side panel does it: a
collection cycle and nesting past Python's recursion limit, a title with control characters; the status, the
documents and a check limited to a deep collection all answer, and /health keeps answering while the sync runs."""

import sqlite3
import time
from contextlib import closing

import httpx
import pytest
from zotero_library import standard_library

from .conftest import paired, start_server, stop

pytestmark = pytest.mark.integration


def test_a_hostile_library_synced_through_the_server_answers_everywhere(index_dir, tmp_path):
    z, ids = standard_library(tmp_path / "Zotero", tmp_path / "made")
    with closing(sqlite3.connect(z.db)) as conn:  # Thesis and Hallucination each the other's parent
        conn.execute(
            "UPDATE collections SET parentCollectionID = ? WHERE collectionID = ?",
            (ids["hallucination"], ids["thesis"]),
        )
        conn.commit()
    parent = ids["bridges"]
    with z.connect() as conn:
        for i in range(1500):  # deeper than Python's recursion limit
            parent = z.collection(f"L{i}", parent, conn)
    z.add_to(parent, ids["fava"])
    odd = z.item("Otters\x00 \u202eat the\x1b[31m harbour\nagain", [("Ann", "Fisher")], "2021-00-00 2021")
    z.stored_pdf(
        odd,
        "otters.pdf",
        ["Otters hold hands while they sleep. They eat 25 % of their weight a day."],
        tmp_path / "made",
    )

    proc, port, code = start_server(index_dir)
    try:
        api = f"http://127.0.0.1:{port}/api/v1"
        headers = paired(api, code)
        sync = httpx.post(f"{api}/zotero/sync", json={"data_dir": str(z.root)}, headers=headers, timeout=60)
        assert sync.status_code == 202, sync.text
        health = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            health.append(httpx.get(f"{api}/health", timeout=30).status_code)
            state = httpx.get(f"{api}/zotero", headers=headers, timeout=30)
            assert state.status_code == 200, state.text
            docs = httpx.get(f"{api}/documents", headers=headers, timeout=30).json()["documents"]
            if not state.json()["zotero"]["sync"]["running"] and docs and all(d["status"] == "ready" for d in docs):
                break
            time.sleep(0.3)
        assert set(health) == {200}
        zot = state.json()["zotero"]
        by_name = {c["name"]: c for c in zot["collections"]}
        assert len(zot["collection_cycles"]) == 1
        assert by_name["L1499"]["path"].count("/") == 1500 and by_name["L1499"]["documents"] == 1
        titles = sorted(d["title"] for d in docs)
        assert len(docs) == 3, titles  # FAVA, the bridge, the otters: not the trashed one, not the missing file
        otters = next(t for t in titles if t.startswith("Otters"))
        assert not any(c in otters for c in "\x00\u202e\x1b\n"), repr(otters)
        check = httpx.post(
            f"{api}/check",
            json={"text": "FAVA detects hallucinations.", "collection": "L700"},
            headers={**headers, "Accept": "application/json"},
            timeout=120,
        )
        assert check.status_code == 200, check.text
        cited = {e["filename"] for v in check.json()["verdicts"] for e in v["evidence"]}
        assert cited and all("FAVA" in f or "Mishra" in f for f in cited), cited  # only the deep collection's PDF
    finally:
        stop(proc)
