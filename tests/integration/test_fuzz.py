"""Hundreds of broken and hostile PDFs uploaded one by one to the real server (waitress, the PDF reader in its
child process with limits): each is ingested or answered with the one error shape, the server stays up with
bounded memory, and the refused ones leave nothing in the index. FUZZ_FILES sets how many (scripts/test: 500)."""

import os
import subprocess
import time
from collections import Counter

import httpx
import pytest
from fuzz_pdfs import base_pdfs, make
from sourcecheck.library import Library
from sourcecheck.library.embeddings import HashEmbedding

from integration.conftest import PYTHON, free_port, sourcecheck_env, stop, wait_for

pytestmark = pytest.mark.integration
TOKEN = "fuzz-test-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
FILES = int(os.environ.get("FUZZ_FILES", "60"))
SERVER_RSS_MB = 1500  # the server's own memory stays under this whatever it is fed (the reader has its own cap)


def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads memory from /proc")
def test_fuzzed_pdfs_are_ingested_or_refused_in_the_one_error_shape(tmp_path):
    index = tmp_path / "index"
    port = free_port()
    env = sourcecheck_env(
        index, BACKEND="fake", EMBEDDINGS="hash", PORT=port, TOKEN=TOKEN, PARSE_TIMEOUT_S=30, PARSE_MEMORY_MB=1024
    )
    proc = subprocess.Popen(
        [PYTHON, "-m", "sourcecheck", "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    api = f"http://127.0.0.1:{port}/api/v1"
    outcomes, peak = Counter(), 0.0
    try:
        wait_for(f"{api}/health", proc)
        bases = base_pdfs()
        for i in range(FILES):
            kind, name, data = make(i, bases)
            resp = httpx.post(
                f"{api}/documents", files=[("file", (name, data, "application/pdf"))], headers=AUTH, timeout=120
            )
            body = resp.json()
            if resp.status_code in (200, 202):
                assert body["ok"] is True and body["documents"][0]["id"].startswith("d_")
                outcomes[f"{kind}: accepted"] += 1
            else:
                assert body["ok"] is False and set(body["error"]) >= {"code", "message"}, (name, body)
                assert body["error"]["code"] != "internal_error", (name, body)
                outcomes[f"{kind}: {body['error']['code']}"] += 1
            assert proc.poll() is None, f"the server died on {name}"
            peak = max(peak, rss_mb(proc.pid))
        deadline = time.monotonic() + 600
        while True:  # every accepted document ends ready or failed (with a reason), none stuck
            docs = httpx.get(f"{api}/documents", headers=AUTH, timeout=30).json()["documents"]
            if all(d["status"] in ("ready", "failed") for d in docs) or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert all(d["status"] in ("ready", "failed") for d in docs)
        for d in docs:
            if d["status"] == "failed":
                assert set(d["error"]) >= {"code", "message"} and d["error"]["code"] != "ingest_failed", d
                outcomes[f"ingest failed: {d['error']['code']}"] += 1
        assert httpx.get(f"{api}/health", timeout=30).status_code == 200
        peak = max(peak, rss_mb(proc.pid))
    finally:
        stop(proc)
    print(f"{FILES} fuzzed PDFs, server peak RSS {peak:.0f} MB:", dict(sorted(outcomes.items())))
    assert peak < SERVER_RSS_MB
    if FILES > 9:  # file 9 needs GBs to read: the reader stops at PARSE_MEMORY_MB and says so
        assert outcomes["ingest failed: pdf_too_complex"] >= 1
    lib = Library(index, HashEmbedding())  # the refused and failed ones left no chunks behind
    assert lib.counts()["chunks"] == sum(d["chunks"] for d in lib.list() if d["status"] == "ready")
    assert any(d["status"] == "ready" for d in lib.list())
