"""A library shared through a real Chroma server (`chroma run`): two backends, ingest on one, check on the other;
the server stopped under a backend."""

import json
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from integration.conftest import PYTHON, free_port, sourcecheck_env, stop, wait_for

pytestmark = pytest.mark.integration
AUTH = {"Authorization": "Bearer t0ken"}
CHROMA = str(Path(sys.executable).parent / "chroma")  # the CLI the chromadb package installs


def start_chroma(path, port):
    proc = subprocess.Popen(
        [CHROMA, "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for(f"http://127.0.0.1:{port}/api/v2/heartbeat", proc)
    return proc


@pytest.fixture
def chroma(tmp_path):
    port = free_port()
    proc = start_chroma(tmp_path / "chroma-data", port)
    try:
        yield {"url": f"http://127.0.0.1:{port}", "port": port, "path": tmp_path / "chroma-data", "proc": proc}
    finally:
        stop(proc)


def start_backend(index_dir, chroma_url, **settings):
    port = free_port()
    env = sourcecheck_env(
        index_dir, BACKEND="fake", EMBEDDINGS="hash", PORT=port, TOKEN="t0ken", CHROMA_URL=chroma_url, **settings
    )
    proc = subprocess.Popen(
        [PYTHON, "-m", "sourcecheck", "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    api = f"http://127.0.0.1:{port}/api/v1"
    wait_for(f"{api}/health", proc, headers=AUTH)
    return proc, api


def upload_and_wait(api, pdf):
    files = [("file", (pdf.name, pdf.read_bytes(), "application/pdf"))]
    doc = httpx.post(f"{api}/documents", files=files, headers=AUTH).json()["documents"][0]
    for _ in range(600):
        doc = httpx.get(f"{api}/documents/{doc['id']}", headers=AUTH).json()["document"]
        if doc["status"] in ("ready", "failed"):
            break
        time.sleep(0.1)
    assert doc["status"] == "ready"
    return doc


def check(api, text):
    with httpx.stream("POST", f"{api}/check", json={"text": text}, headers=AUTH, timeout=60) as resp:
        if resp.status_code != 200:
            resp.read()
            return resp.status_code, resp.json()
        return 200, [json.loads(line) for line in resp.iter_lines() if line]


def test_two_backends_share_one_library(chroma, tmp_path, fava_pdf):
    a, api_a = start_backend(tmp_path / "alice", chroma["url"])
    b, api_b = start_backend(tmp_path / "bob", chroma["url"])
    try:
        doc = upload_and_wait(api_a, fava_pdf)
        listed = httpx.get(f"{api_b}/documents", headers=AUTH).json()["documents"]
        assert [(d["id"], d["status"], d["chunks"]) for d in listed] == [(doc["id"], "ready", doc["chunks"])]

        status, events = check(api_b, "FAVA was trained on 35,074 training instances.")
        verdict = next(e for e in events if e["type"] == "verdict")
        assert status == 200 and verdict["label"] == "supported"
        assert verdict["evidence"][0]["document_id"] == doc["id"] and "35,074" in verdict["evidence"][0]["quote"]
        assert verdict["evidence"][0]["page"] == 2

        # Bob's backend searches Alice's PDF but does not have its bytes: the viewer gets a clear 404.
        resp = httpx.get(f"{api_b}/documents/{doc['id']}/file", headers=AUTH)
        assert resp.status_code == 404 and resp.json()["error"]["code"] == "document_file_elsewhere"
        assert httpx.get(f"{api_a}/documents/{doc['id']}/file", headers=AUTH).content == fava_pdf.read_bytes()

        assert httpx.delete(f"{api_b}/documents/{doc['id']}", headers=AUTH).status_code == 200
        assert httpx.get(f"{api_a}/documents", headers=AUTH).json()["documents"] == []
        status, body = check(api_a, "FAVA was trained on 35,074 training instances.")
        assert status == 409 and body["error"]["code"] == "empty_library"
    finally:
        stop(a)
        stop(b)


def test_a_stopped_chroma_server_is_index_unreachable_and_a_restart_recovers(chroma, tmp_path, fava_pdf):
    proc, api = start_backend(tmp_path / "alice", chroma["url"], FAKE_DELAY=1)
    try:
        upload_and_wait(api, fava_pdf)
        text = "FAVA was trained on 350k instances. FAVA runs on bicycles."
        events = []
        with httpx.stream("POST", f"{api}/check", json={"text": text}, headers=AUTH, timeout=60) as resp:
            for line in resp.iter_lines():
                events.append(json.loads(line))
                if events[-1]["type"] == "verdict" and chroma["proc"].poll() is None:
                    stop(chroma["proc"])  # mid-check: the evidence is in hand, critiques are still to be written
        # The check in flight ends with what it had; nothing crashed.
        assert events[-1]["type"] == "summary" and all(e["type"] != "error" for e in events)

        status, body = check(api, text)
        assert status == 503 and body["error"]["code"] == "index_unreachable"
        assert "CHROMA_URL" in body["error"]["message"]
        resp = httpx.get(f"{api}/documents", headers=AUTH)
        assert resp.status_code == 503 and resp.json()["error"]["code"] == "index_unreachable"

        chroma["proc"] = start_chroma(chroma["path"], chroma["port"])  # the same store, the same address
        status, events = check(api, text)
        assert status == 200 and events[-1]["type"] == "summary"
        assert proc.poll() is None
    finally:
        stop(proc)
        stop(chroma["proc"])


def test_a_document_deleted_by_another_backend_mid_ingest_stays_deleted(chroma, tmp_path, fava_pdf):
    """Alice's backend is embedding a PDF when Bob's deletes it: Alice's writes stop, the record is not written back
    and the chunks she wrote go too."""
    from sourcecheck.errors import NotFound
    from sourcecheck.library import Library
    from sourcecheck.library.embeddings import HashEmbedding

    bob = Library(tmp_path / "bob", HashEmbedding(), chroma_url=chroma["url"])

    class DeletedByBob(HashEmbedding):
        def __call__(self, texts):
            if texts and texts[0] != "warm up" and bob.list():
                bob.delete(bob.list()[0]["id"])  # between two of Alice's groups
            return super().__call__(texts)

    alice = Library(tmp_path / "alice", DeletedByBob(), chunk_words=20, chroma_url=chroma["url"])
    doc, _ = alice.add_pdf(fava_pdf.read_bytes(), "fava.pdf")
    with pytest.raises(NotFound):
        alice.ingest(doc["id"])
    assert alice.list() == [] and bob.list() == []
    assert alice.chunks.collection.get(where={"document_id": doc["id"]})["ids"] == []
    assert alice.chunks.lexical.counts() == {}


def test_an_ingest_cut_off_by_the_server_is_tried_again_when_it_is_back(chroma, tmp_path, fava_pdf, monkeypatch):
    from sourcecheck.config import load_settings
    from sourcecheck.serve import services

    monkeypatch.setattr(services, "RETRY_S", 0.5)
    svc = services.Services(
        load_settings(
            {"INDEX_DIR": str(tmp_path / "alice"), "BACKEND": "fake", "EMBEDDINGS": "hash", "CHROMA_URL": chroma["url"]}
        )
    )
    library = svc.library()
    doc, _ = library.add_pdf(fava_pdf.read_bytes(), "fava.pdf")
    stop(chroma["proc"])  # the server goes before the ingest starts writing
    svc.queue_ingest(doc["id"])
    time.sleep(2)  # a try or more fails meanwhile, each one put back on the queue
    chroma["proc"] = start_chroma(chroma["path"], chroma["port"])
    for _ in range(300):
        try:
            if library.get(doc["id"])["status"] == "ready":
                break
        except Exception:  # noqa: BLE001 - the server is still starting
            pass
        time.sleep(0.1)
    assert library.get(doc["id"])["status"] == "ready"
    assert library.search("35,074 training instances", k=1)[0].document_id == doc["id"]
    svc.close()
    stop(chroma["proc"])
