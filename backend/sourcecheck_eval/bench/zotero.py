"""scripts/bench --only zotero: a large Zotero library's bookkeeping (issue 47): 5,000 items with a PDF each in 200
collections nested 10 deep, read from a zotero.sqlite built from Zotero's schema (tests/zotero_library.py). What is
timed is what the side panel and a re-sync pay: GET /zotero (the status with each collection's count) and a sync
with nothing changed (read zotero.sqlite, stat each file, compare). Embeddings are hash vectors: they are not what
is measured, and the library is built once and kept in tmp/bench."""

from __future__ import annotations

import random
import shutil
import sys
from typing import Any

import pymupdf

from sourcecheck_eval.bench.data import ROOT, WORK, now

ITEMS, COLLECTIONS, DEPTH = 5000, 200, 10


def build(data: Any, items: int = ITEMS, collections: int = COLLECTIONS) -> None:
    """The Zotero data directory: items articles, each with a stored one-page PDF of its own, each in one or two of
    collections collections (chains of DEPTH)."""
    sys.path.insert(0, str(ROOT / "tests"))  # the test suite's builder: one place that writes Zotero's format
    from zotero_library import ZoteroLibrary

    z = ZoteroLibrary(data)
    rng = random.Random(47)
    cols: list[int] = []
    with z.connect() as conn:  # one transaction: 5,000 items written one connection at a time take minutes
        for i in range(collections):
            cols.append(z.collection(f"Topic {i}", cols[i - 1] if i % DEPTH else None, conn))
        for i in range(items):
            item, _ = z._item(conn, "journalArticle", [("title", f"Paper {i}"), ("date", f"{1990 + i % 35}-01-01")])
            for c in rng.sample(cols, rng.choice((1, 2))):
                conn.execute("INSERT INTO collectionItems (collectionID, itemID) VALUES (?, ?)", (c, item))
            att, key = z._item(conn, "attachment", [("title", f"paper{i}.pdf")])
            conn.execute(
                "INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) "
                "VALUES (?, ?, 0, 'application/pdf', ?)",
                (att, item, f"storage:paper{i}.pdf"),
            )
            doc = pymupdf.open()
            doc.new_page().insert_text((72, 72), f"Paper {i} reports a finding numbered {i}.")
            (data / "storage" / key).mkdir(parents=True)
            doc.save(str(data / "storage" / key / f"paper{i}.pdf"))


def bench_zotero(r: dict[str, Any]) -> None:
    from sourcecheck import zotero
    from sourcecheck.serve.app import create_app
    from sourcecheck.serve.services import get_services
    from sourcecheck.zotero.sync import sync

    data, index, done = WORK / "zotero-large", WORK / "index-zotero-large", WORK / "zotero-large-done"
    if not done.exists():
        shutil.rmtree(data, ignore_errors=True)
        shutil.rmtree(index, ignore_errors=True)
        t = now()
        build(data)
        app = create_app({"INDEX_DIR": str(index), "BACKEND": "fake", "EMBEDDINGS": "hash", "TOKEN": "t" * 32})
        lib = get_services(app).library()
        report = sync(lib, index, zotero.read(data))
        list(lib.ingest_many(report.queued))
        get_services(app).close()
        r["zotero_build_s"] = now() - t
        done.touch()
    app = create_app({"INDEX_DIR": str(index), "BACKEND": "fake", "EMBEDDINGS": "hash", "TOKEN": "t" * 32})
    client = app.test_client()
    headers = {"Authorization": "Bearer " + "t" * 32}
    status = []
    for _ in range(3):
        t = now()
        answer = client.get("/api/v1/zotero", headers=headers, base_url="http://127.0.0.1:8765")
        status.append(now() - t)
        assert answer.status_code == 200, answer.get_json()
    state = answer.get_json()["zotero"]
    lib = get_services(app).library()
    t = now()
    report = sync(lib, index, zotero.read(data))
    r["zotero_resync_s"] = now() - t
    get_services(app).close()
    r["zotero_status_s"] = min(status)
    r["zotero_large"] = {
        "documents": state["documents"],
        "collections": len(state["collections"]),
        "unchanged": report.unchanged,
        "status_runs_s": status,
    }
    print(f"  GET /zotero {min(status):.3f} s, no-op re-sync {r['zotero_resync_s']:.2f} s", flush=True)
