"""Load on the real server (waitress, fake judge with a delay per critique): 20 concurrent checks while a PDF is
uploaded, listed and deleted. Every stream is answered whole and in order; the library stays consistent."""

import json
import re
import subprocess
import threading
import time

import httpx
import pytest
from pdfs import BRIDGE_PAGES, make_pdf

from integration.conftest import PYTHON, free_port, sourcecheck_env, stop, wait_for

pytestmark = pytest.mark.integration
TOKEN = "load-test-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
CHECKS = 20
TEXT = (
    "The Golden Gate Bridge opened to traffic on May 27, 1937. Its main span is 2,000 meters long. "
    "The bridge was painted by robots."
)


@pytest.fixture
def server(index_dir):
    port = free_port()
    env = sourcecheck_env(index_dir, BACKEND="fake", EMBEDDINGS="hash", PORT=port, TOKEN=TOKEN, FAKE_DELAY=0.3)
    proc = subprocess.Popen(
        [PYTHON, "-m", "sourcecheck", "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_for(f"http://127.0.0.1:{port}/api/v1/health", proc)
        yield f"http://127.0.0.1:{port}/api/v1"
    finally:
        stop(proc)


def upload_ready(api, path):
    files = [("file", (path.name, path.read_bytes(), "application/pdf"))]
    doc = httpx.post(f"{api}/documents", files=files, headers=AUTH, timeout=60).json()["documents"][0]
    for _ in range(600):  # up to a minute: the first read starts the PDF reader's process
        got = httpx.get(f"{api}/documents/{doc['id']}", headers=AUTH).json()["document"]
        if got["status"] in ("ready", "failed"):
            return got
        time.sleep(0.1)
    raise AssertionError("ingest did not finish")


def stream_check(api, i, results, errors):
    """POST /check of TEXT as check i: its events in results[i], or what went wrong in errors."""
    try:
        with httpx.stream("POST", f"{api}/check", json={"text": TEXT}, headers=AUTH, timeout=120) as resp:
            results[i] = [json.loads(line) for line in resp.iter_lines() if line]
    except Exception as e:  # noqa: BLE001 - reported with its index
        errors.append((i, repr(e)))


def in_order(events):
    """sentences first, then verdicts of checkable sentences (a non-final one before its final one), summary last."""
    kinds = [e["type"] for e in events]
    if kinds[0] != "sentences" or kinds[-1] != "summary" or set(kinds[1:-1]) != {"verdict"}:
        return False
    checkable = {s["index"] for s in events[0]["sentences"] if s["checkable"]}
    final = {}
    for e in events[1:-1]:
        if e["index"] not in checkable or final.get(e["index"]):
            return False
        final[e["index"]] = e["final"]
    return set(final) == checkable and all(final.values())


def test_twenty_checks_an_upload_a_list_and_a_delete_at_once(server, bridge_pdf, fava_pdf):
    api = server
    assert upload_ready(api, bridge_pdf)["status"] == "ready"
    results, errors = [None] * CHECKS, []

    def check(i):
        stream_check(api, i, results, errors)

    def churn():
        try:
            doc = upload_ready(api, fava_pdf)
            listed = [d["id"] for d in httpx.get(f"{api}/documents", headers=AUTH).json()["documents"]]
            assert doc["id"] in listed
            assert httpx.delete(f"{api}/documents/{doc['id']}", headers=AUTH).status_code == 200
        except Exception as e:  # noqa: BLE001
            errors.append(("churn", repr(e)))

    threads = [threading.Thread(target=check, args=(i,)) for i in range(CHECKS)] + [threading.Thread(target=churn)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=180)
    assert not any(t.is_alive() for t in threads), "a request hung (deadlock?)"
    assert errors == []
    assert all(r and in_order(r) for r in results)
    labels = {tuple(e["label"] for e in r if e["type"] == "verdict" and e["final"]) for r in results}
    assert len(labels) == 1  # every stream got the same verdicts: nothing mixed between them
    docs = httpx.get(f"{api}/documents", headers=AUTH).json()["documents"]
    assert [d["filename"] for d in docs] == ["bridge.pdf"] and docs[0]["status"] == "ready"


def test_a_check_whose_client_disconnects_stops_within_one_sentence(index_dir, bridge_pdf):
    """Each critique takes 1 s; the client leaves after the first verdict: the server stops at its next write
    (one critique later), not after the five critiques still to come."""
    port = free_port()
    env = sourcecheck_env(index_dir, BACKEND="fake", EMBEDDINGS="hash", PORT=port, TOKEN=TOKEN, FAKE_DELAY=1.0)
    proc = subprocess.Popen(
        [PYTHON, "-m", "sourcecheck", "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    lines = []
    threading.Thread(target=lambda: lines.extend(iter(proc.stderr.readline, "")), daemon=True).start()
    try:
        api = f"http://127.0.0.1:{port}/api/v1"
        wait_for(f"{api}/health", proc)
        upload_ready(api, bridge_pdf)
        text = " ".join(
            f"The bridge was painted by {n} robots from Mars." for n in ("two", "three", "four", "five", "six", "seven")
        )
        with httpx.stream("POST", f"{api}/check", json={"text": text}, headers=AUTH, timeout=60) as resp:
            events = resp.iter_lines()
            assert json.loads(next(events))["type"] == "sentences"
            while json.loads(next(events))["type"] != "verdict":
                pass
            left = time.monotonic()
        # the six scores come at once; then a critique for each, 1 s apiece: twelve verdict events in all
        deadline = left + 60
        while time.monotonic() < deadline and not any("client disconnected" in line for line in lines):
            time.sleep(0.05)
        stopped = [int(m.group(1)) for line in lines if (m := re.search(r"after (\d+) verdict events", line))]
        assert stopped, lines
        assert stopped[0] <= 6 + 2, "stopped at its next write or the one after, not after the five critiques to come"
    finally:
        stop(proc)


def test_twenty_checks_while_documents_are_ingested_and_deleted(server, tmp_path, bridge_pdf, fava_pdf):
    """A check sees the documents ready when it started: while a long PDF is being embedded (its chunks already in
    Chroma) and two ready documents are deleted, 20 checks all end whole, with no error and no evidence from a
    document that was not ready when the check began."""
    api = server
    bridge, fava = upload_ready(api, bridge_pdf), upload_ready(api, fava_pdf)
    # A copy of the bridge's text on many pages: its chunks match the checked text better than anything else
    long_pdf = make_pdf(tmp_path / "long.pdf", [f"Part {i}. " + BRIDGE_PAGES[i % 2] for i in range(2000)])
    files = [("file", ("long.pdf", long_pdf.read_bytes(), "application/pdf"))]
    long_id = httpx.post(f"{api}/documents", files=files, headers=AUTH, timeout=60).json()["documents"][0]["id"]
    seen = []  # (time, status) of the long document, polled

    def status(doc_id):
        resp = httpx.get(f"{api}/documents/{doc_id}", headers=AUTH)
        return resp.json()["document"]["status"] if resp.status_code == 200 else "gone"

    while not seen or seen[-1][1] in ("queued", "parsing"):
        time.sleep(0.05)
        seen.append((time.monotonic(), status(long_id)))
    assert seen[-1][1] == "embedding"
    results, started, errors = [None] * CHECKS, [0.0] * CHECKS, []

    def check(i):
        started[i] = time.monotonic()
        stream_check(api, i, results, errors)

    def churn():
        for doc in (fava, bridge):
            time.sleep(0.4)
            assert httpx.delete(f"{api}/documents/{doc['id']}", headers=AUTH).status_code == 200

    def watch():
        while seen[-1][1] == "embedding":
            time.sleep(0.05)
            seen.append((time.monotonic(), status(long_id)))

    threads = [threading.Thread(target=churn), threading.Thread(target=watch)]
    for t in threads:
        t.start()
    for i in range(CHECKS):
        threads.append(threading.Thread(target=check, args=(i,)))
        threads[-1].start()
        time.sleep(0.02)
    for t in threads:
        t.join(timeout=180)
    assert not any(t.is_alive() for t in threads), "a request hung (deadlock?)"
    assert errors == []
    embedding_until = max(t for t, s in seen if s == "embedding")
    early = [i for i in range(CHECKS) if started[i] < embedding_until]
    assert len(early) >= 5, (seen[0], seen[-1], started)  # the long PDF was still being embedded for these checks
    with_evidence = 0
    for i, events in enumerate(results):
        if events == [{"ok": False, "status": 409, "error": {**events[0].get("error", {}), "code": "empty_library"}}]:
            continue  # started after both ready documents were deleted and before the long one was ready
        assert in_order(events), events
        evidence = [e for v in events if v["type"] == "verdict" for e in v["evidence"]]
        # A check whose documents were all deleted between its start and its search finds nothing: no evidence,
        # which is right; what must never come is evidence without a document (one not ready at the start).
        assert all(e["filename"] for e in evidence)
        with_evidence += bool(evidence)
        ready_then = {bridge["id"], fava["id"]} | ({long_id} if i not in early else set())
        assert {e["document_id"] for e in evidence} <= ready_then, i
    assert with_evidence >= 5  # most checks searched while documents were there: the filter was exercised
