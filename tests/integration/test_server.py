"""The server as a subprocess, driven over real HTTP: pairing, token, Host, CORS, upload, streaming order."""

import json
import re
import signal
import subprocess
import time

import httpx
import pytest

from integration.conftest import EXT, PYTHON, free_port, paired, sourcecheck_env, start_server, stop, wait_for

pytestmark = pytest.mark.integration


@pytest.fixture
def server(index_dir):
    proc, port, code = start_server(index_dir)
    try:
        assert proc.stdout.readline().strip() == f"Serving on http://127.0.0.1:{port}"
        yield f"http://127.0.0.1:{port}", code, port
    finally:
        stop(proc)


def test_pair_upload_and_stream_a_check(server, fava_pdf, bridge_pdf):
    base, code, port = server
    api = f"{base}/api/v1"
    assert httpx.get(f"{api}/documents").status_code == 401
    assert httpx.post(f"{api}/pair", json={"code": "000-000" if code != "000-000" else "111-111"}).status_code == 403
    token = httpx.post(f"{api}/pair", json={"code": code}, headers={"Origin": EXT}).json()["token"]
    auth = {"Authorization": f"Bearer {token}", "Origin": EXT}
    assert httpx.get(f"{api}/health", headers=auth).json()["paired"] is True

    files = [("file", (p.name, p.read_bytes(), "application/pdf")) for p in (fava_pdf, bridge_pdf)]
    resp = httpx.post(f"{api}/documents", files=files, headers=auth)
    assert resp.status_code == 202 and resp.headers["Access-Control-Allow-Origin"] == EXT
    for doc in resp.json()["documents"]:
        for _ in range(600):  # up to a minute: the first read starts the PDF reader's process
            got = httpx.get(f"{api}/documents/{doc['id']}", headers=auth).json()["document"]
            if got["status"] in ("ready", "failed"):
                break
            time.sleep(0.1)
        assert got["status"] == "ready" and got["progress"] == 1.0

    text = "Hi! The Golden Gate Bridge opened to traffic on May 27, 1937. Its main span is 2,000 meters long."
    with httpx.stream("POST", f"{api}/check", json={"text": text}, headers=auth) as resp:
        assert resp.headers["content-type"].startswith("application/x-ndjson")
        events = [json.loads(line) for line in resp.iter_lines() if line]
    assert [e["type"] for e in events] == ["sentences", "verdict", "verdict", "verdict", "summary"]
    assert [s["checkable"] for s in events[0]["sentences"]] == [False, True, True]
    # the contradicted sentence comes twice: as soon as it is scored, then with its critique
    assert [(e["index"], e["label"], e["final"]) for e in events[1:4]] == [
        (1, "supported", True),
        (2, "contradicted", False),
        (2, "contradicted", True),
    ]
    assert events[3]["critique"] and events[3]["error_type"] == "entity"


def test_foreign_host_and_web_origin_are_refused(server):
    base, _, port = server
    resp = httpx.get(f"{base}/api/v1/health", headers={"Host": f"attacker.example:{port}"})
    assert resp.status_code == 403 and resp.json()["error"]["code"] == "host_not_allowed"
    resp = httpx.get(f"{base}/api/v1/health", headers={"Origin": "https://chatgpt.com"})
    assert resp.status_code == 403 and resp.json()["error"]["code"] == "origin_not_allowed"
    assert "access-control-allow-origin" not in resp.headers
    assert httpx.get(f"http://localhost:{port}/api/v1/health").status_code == 200


def test_pair_command_issues_a_code_the_running_server_accepts(server, index_dir):
    base, _, port = server
    out = subprocess.run(
        [PYTHON, "-m", "sourcecheck", "pair"],
        env=sourcecheck_env(index_dir),
        capture_output=True,
        text=True,
        timeout=60,
    )
    code = re.search(r"(\d{3}-\d{3})", out.stdout).group(1)
    assert httpx.post(f"{base}/api/v1/pair", json={"code": code}).status_code == 200


def test_each_verdict_reaches_the_client_when_it_is_known_and_sigterm_stops_cleanly(index_dir, fava_pdf):
    """The production server (waitress) streams unbuffered: a verdict arrives before the critiques after it are
    written (each takes FAKE_DELAY). SIGTERM ends the process with exit code 0 and says so."""
    port = free_port()
    env = sourcecheck_env(index_dir, BACKEND="fake", EMBEDDINGS="hash", PORT=port, FAKE_DELAY=1.5, TOKEN="t0ken")
    proc = subprocess.Popen(
        [PYTHON, "-m", "sourcecheck", "serve"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        proc.stdout.readline(), proc.stdout.readline()
        api = f"http://127.0.0.1:{port}/api/v1"
        wait_for(f"{api}/health", proc)
        auth = {"Authorization": "Bearer t0ken"}
        files = [("file", (fava_pdf.name, fava_pdf.read_bytes(), "application/pdf"))]
        doc = httpx.post(f"{api}/documents", files=files, headers=auth).json()["documents"][0]
        for _ in range(600):  # up to a minute: the first read starts the PDF reader's process
            if httpx.get(f"{api}/documents/{doc['id']}", headers=auth).json()["document"]["status"] == "ready":
                break
            time.sleep(0.1)
        text = "FAVA was trained on 350k instances. FAVA runs on bicycles. FAVA detects six error types."
        arrived = []
        with httpx.stream("POST", f"{api}/check", json={"text": text}, headers=auth, timeout=60) as resp:
            for line in resp.iter_lines():
                if line:
                    arrived.append((time.monotonic(), json.loads(line)))
        first_verdict = next(t for t, e in arrived if e["type"] == "verdict")
        written = [t for t, e in arrived if e["type"] == "verdict" and e["label"] == "unsupported" and e["final"]]
        assert written and written[-1] - first_verdict >= 1.2  # not held back until the critique was written
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        assert "Stopped." in proc.stdout.read()
    finally:
        stop(proc)


def test_sigterm_during_a_streaming_check_stops_at_once_and_cleanly(index_dir, fava_pdf):
    """A check is writing critiques (FAKE_DELAY s each) when the server is told to stop: it exits with code 0 long
    before the check would have ended, the client's stream ends rather than hangs, and a restart serves the library."""
    port = free_port()
    env = sourcecheck_env(index_dir, BACKEND="fake", EMBEDDINGS="hash", PORT=port, FAKE_DELAY=8, TOKEN="t0ken")
    api, auth = f"http://127.0.0.1:{port}/api/v1", {"Authorization": "Bearer t0ken"}
    proc = subprocess.Popen(
        [PYTHON, "-m", "sourcecheck", "serve"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        wait_for(f"{api}/health", proc)
        files = [("file", (fava_pdf.name, fava_pdf.read_bytes(), "application/pdf"))]
        doc = httpx.post(f"{api}/documents", files=files, headers=auth).json()["documents"][0]
        for _ in range(600):
            if httpx.get(f"{api}/documents/{doc['id']}", headers=auth).json()["document"]["status"] == "ready":
                break
            time.sleep(0.1)
        text = "FAVA was trained on 350k instances. FAVA runs on bicycles. FAVA was built in a cave."
        events, ended, at = [], None, 0
        with httpx.stream("POST", f"{api}/check", json={"text": text}, headers=auth, timeout=60) as resp:
            try:
                for line in resp.iter_lines():
                    events.append(json.loads(line) if line else {})
                    if events[-1].get("type") == "verdict" and not proc.returncode and not ended:
                        ended, at = time.monotonic(), len(events)
                        proc.send_signal(signal.SIGTERM)  # three critiques of 8 s each are still to be written
            except httpx.HTTPError:
                pass  # the connection closed mid-stream: an end, not a hang
        assert ended and proc.wait(timeout=20) == 0
        critiques = [e for e in events[at:] if e.get("type") == "verdict" and e.get("critique")]
        assert len(critiques) < 3, "the server waited for the check to finish"
        assert "Stopped." in proc.stdout.read()
        assert not any(e.get("type") == "summary" for e in events)
    finally:
        stop(proc)
    proc = subprocess.Popen(
        [PYTHON, "-m", "sourcecheck", "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_for(f"{api}/health", proc)
        listed = httpx.get(f"{api}/documents", headers=auth).json()["documents"]
        assert [(d["id"], d["status"]) for d in listed] == [(doc["id"], "ready")]
    finally:
        stop(proc)


def test_a_second_server_on_the_same_folder_refuses_to_start_in_words(server, index_dir):
    """Two servers on one folder each kept their own view and lost documents (issue 37): the second now stops at
    once, naming the first and the way to share a library."""
    base, code, _ = server
    second = subprocess.run(
        [PYTHON, "-m", "sourcecheck", "serve"],
        env=sourcecheck_env(index_dir, BACKEND="fake", EMBEDDINGS="hash", PORT=free_port()),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert second.returncode != 0 and "Serving on" not in second.stdout
    assert "in use by another sourcecheck (process" in second.stderr and "CHROMA_URL" in second.stderr
    assert httpx.get(f"{base}/api/v1/health").status_code == 200  # the first one serves on


def test_ten_uploads_of_one_file_at_once_read_it_once(index_dir, fava_pdf):
    """The same bytes uploaded ten times at once (issue 37): one document, answered 202 once (queued) and 200 nine
    times (already in the library, as docs/api.md says), and ingested once (the server's log)."""
    from concurrent.futures import ThreadPoolExecutor

    proc, port, code = start_server(index_dir, stderr=subprocess.PIPE)
    try:
        api = f"http://127.0.0.1:{port}/api/v1"
        auth = paired(api, code)
        data = fava_pdf.read_bytes()

        def upload(_):
            return httpx.post(f"{api}/documents", files=[("file", ("fava.pdf", data))], headers=auth, timeout=60)

        with ThreadPoolExecutor(10) as pool:
            answers = list(pool.map(upload, range(10)))
        doc_id = answers[0].json()["documents"][0]["id"]
        for _ in range(600):
            if httpx.get(f"{api}/documents/{doc_id}", headers=auth).json()["document"]["status"] == "ready":
                break
            time.sleep(0.1)
        time.sleep(1.0)  # a second ingest, had one been queued, would have started by now
    finally:
        stop(proc)
    log = proc.stderr.read()
    assert {a.json()["documents"][0]["id"] for a in answers} == {doc_id}
    assert sorted(a.status_code for a in answers) == [200] * 9 + [202]
    assert log.count(f"Ingested {doc_id}") == 1, log
