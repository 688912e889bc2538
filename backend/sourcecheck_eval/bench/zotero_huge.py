"""scripts/bench --only zotero-huge: a crafted library of 100,000 PDF attachments in 5,000 collections, synced by a
real server (`sourcecheck serve`, waitress, the fake judge and hash embeddings) while /health is asked every 0.5 s,
GET /zotero every 5 s and the server's resident memory read from /proc (issue 47: under 1 GB, /health within 1 s
throughout). The sync registers every attachment and queues it; the window then covers the first WINDOW_S seconds
of reading them (a full ingest of 100,000 PDFs takes hours and is not what is measured)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from typing import Any

import httpx
from sourcecheck.serve.security import EXTENSION_ID

from sourcecheck_eval.bench.data import WORK, now
from sourcecheck_eval.bench.host import rss_mb
from sourcecheck_eval.bench.zotero import build

ITEMS, COLLECTIONS = 100_000, 5_000
WINDOW_S = int(os.environ.get("ZOTERO_HUGE_WINDOW_S", 300))


def bench_zotero_huge(r: dict[str, Any]) -> None:
    data, done = WORK / "zotero-huge", WORK / "zotero-huge-done"
    if not done.exists():
        shutil.rmtree(data, ignore_errors=True)
        t = now()
        build(data, ITEMS, COLLECTIONS)
        r["zotero_huge_build_s"] = now() - t
        done.touch()
    index = WORK / "index-zotero-huge"
    shutil.rmtree(index, ignore_errors=True)  # each run syncs from nothing
    port = 8790
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOURCECHECK_")}
    env.update(SOURCECHECK_INDEX_DIR=str(index), SOURCECHECK_BACKEND="fake", SOURCECHECK_EMBEDDINGS="hash")
    env["SOURCECHECK_PORT"] = str(port)
    proc = subprocess.Popen(
        [sys.executable, "-m", "sourcecheck", "serve"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    api = f"http://127.0.0.1:{port}/api/v1"
    try:
        code = re.search(r"Pairing code: (\d{3}-\d{3})", proc.stdout.readline()).group(1)  # type: ignore[union-attr]
        deadline = now() + 120
        while now() < deadline:
            try:
                httpx.get(f"{api}/health", timeout=2)
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        token = httpx.post(
            f"{api}/pair", json={"code": code}, headers={"Origin": f"chrome-extension://{EXTENSION_ID}"}
        ).json()["token"]
        headers = {"Authorization": f"Bearer {token}", "Origin": f"chrome-extension://{EXTENSION_ID}"}
        rss_start = rss_mb(proc.pid) or 0.0
        t = now()
        answer = httpx.post(f"{api}/zotero/sync", json={"data_dir": str(data)}, headers=headers, timeout=600)
        sync_answer_s = now() - t
        assert answer.status_code == 202, answer.text
        health, status, rss, series = [], [], [rss_start], []  # series: (s, RSS MB, documents in the library)
        start = now()
        next_status = start
        while now() - start < WINDOW_S:
            t = now()
            library = httpx.get(f"{api}/health", timeout=30).json().get("library") or {}
            health.append(now() - t)
            rss.append((rss_mb(proc.pid) or 0.0))
            if len(health) % 20 == 1:
                series.append((round(now() - start), round(rss[-1]), library.get("documents")))
            if now() >= next_status:
                t = now()
                state = httpx.get(f"{api}/zotero", headers=headers, timeout=60).json()["zotero"]
                status.append(now() - t)
                next_status = now() + 5
            time.sleep(0.5)
        state = httpx.get(f"{api}/zotero", headers=headers, timeout=60).json()["zotero"]
        docs = httpx.get(f"{api}/documents", headers=headers, timeout=60).json()["documents"]
    finally:
        stopping = now()
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        stopped_s = now() - stopping
    ready = sum(1 for d in docs if d.get("status") == "ready")
    r["zotero_huge"] = {
        "attachments": ITEMS,
        "collections": COLLECTIONS,
        "window_s": WINDOW_S,
        "sync_request_s": sync_answer_s,
        "health_max_s": max(health),
        "health_asked": len(health),
        "status_max_s": max(status),
        "status_median_s": sorted(status)[len(status) // 2],
        "rss_start_mb": rss_start,
        "rss_peak_mb": max(rss),
        "documents_registered": len(docs),
        "documents_ready": ready,
        "sync": state.get("sync"),
        "stopped_s": stopped_s,
        "series": series,  # SIGTERM to exit, the sync part way
    }
    print(
        f"  sync request {sync_answer_s:.1f} s; /health max {max(health):.3f} s over {len(health)} asks; "
        f"GET /zotero max {max(status):.2f} s; RSS {rss_start:.0f} → peak {max(rss):.0f} MB; "
        f"{len(docs):,} documents registered, {ready:,} ready after {WINDOW_S} s; stopped in {stopped_s:.1f} s",
        flush=True,
    )
