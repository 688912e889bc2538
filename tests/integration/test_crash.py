"""kill -9 of the real server at several points of an ingest and of a delete, then a restart: the library is
consistent (every chunk belongs to a listed document, every ready document has its chunks), the interrupted
document is finished, and uploading it again works."""

import json
import random
import signal
import subprocess
import threading
import time

import httpx
import pytest
from pdfs import make_pdf
from sourcecheck.library import Library
from sourcecheck.library.embeddings import HashEmbedding
from sourcecheck.library.records import FolderRecords

from integration.conftest import PYTHON, free_port, sourcecheck_env, stop, wait_for

pytestmark = pytest.mark.integration
TOKEN = "crash-test-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


class Server:
    def __init__(self, index_dir):
        self.port, self.index_dir = free_port(), index_dir
        self.api = f"http://127.0.0.1:{self.port}/api/v1"
        self.proc = None

    def start(self):
        env = sourcecheck_env(self.index_dir, BACKEND="fake", EMBEDDINGS="hash", PORT=self.port, TOKEN=TOKEN)
        self.proc = subprocess.Popen(
            [PYTHON, "-m", "sourcecheck", "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        wait_for(f"{self.api}/health", self.proc)

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def upload(self, path):
        files = [("file", (path.name, path.read_bytes(), "application/pdf"))]
        return httpx.post(f"{self.api}/documents", files=files, headers=AUTH, timeout=60).json()["documents"][0]

    def doc(self, doc_id):
        return httpx.get(f"{self.api}/documents/{doc_id}", headers=AUTH).json()["document"]

    def wait_ready(self, doc_id, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            d = self.doc(doc_id)
            if d["status"] in ("ready", "failed"):
                return d
            time.sleep(0.1)
        raise AssertionError(f"{doc_id} not ready after {timeout} s")


def big_pdf(tmp_path, pages=300):
    rng = random.Random(7)
    words = "bridge span river steel cable tower deck traffic orange fog bay pier anchor load wind".split()
    texts = [" ".join(rng.choice(words) for _ in range(330)) + f" Page {i}." for i in range(pages)]
    return make_pdf(tmp_path / "big.pdf", texts, title="Big")


def stored_record(index_dir, doc_id):
    """A document's record as the folder holds it, with no server running (records.FolderRecords)."""
    return FolderRecords(index_dir, threading.RLock()).docs[doc_id]


def consistent(index_dir):
    """(documents, chunks in the index, chunks the ready documents account for), with the server stopped."""
    lib = Library(index_dir, HashEmbedding())
    try:
        docs = lib.list()
        return docs, lib.counts()["chunks"], sum(d["chunks"] for d in docs if d["status"] == "ready")
    finally:
        lib.close()  # the server is started again on this folder


@pytest.mark.parametrize("when", ["queued", "embedding"])
def test_a_kill_during_an_ingest_is_finished_after_a_restart(tmp_path, bridge_pdf, when):
    server = Server(tmp_path / "index")
    server.start()
    try:
        small = server.wait_ready(server.upload(bridge_pdf)["id"])
        doc = server.upload(big_pdf(tmp_path))
        if when == "embedding":  # kill between two writes of the chunks, part-way through
            deadline = time.monotonic() + 60
            while not ((d := server.doc(doc["id"]))["status"] == "embedding" and d["progress"] > 0.2):
                assert d["status"] not in ("ready", "failed") and time.monotonic() < deadline, d
                time.sleep(0.01)
        server.kill9()
        server.start()
        done = server.wait_ready(doc["id"])
        assert done["status"] == "ready" and done["chunks"] > 0
        again = httpx.post(
            f"{server.api}/documents",
            headers=AUTH,
            files=[("file", ("big.pdf", (tmp_path / "big.pdf").read_bytes(), "application/pdf"))],
        ).json()["documents"][0]
        assert again["id"] == doc["id"] and again["status"] == "ready"  # the same bytes: the same document
    finally:
        stop(server.proc)
    docs, chunks, accounted = consistent(tmp_path / "index")
    assert sorted(d["id"] for d in docs) == sorted([small["id"], doc["id"]])
    assert chunks == accounted  # no chunk without a document, no document without its chunks


def test_a_delete_cut_short_is_finished_after_a_restart(tmp_path, bridge_pdf, fava_pdf):
    server = Server(tmp_path / "index")
    server.start()
    keep = server.wait_ready(server.upload(bridge_pdf)["id"])
    gone = server.wait_ready(server.upload(fava_pdf)["id"])
    server.kill9()
    # What a kill part-way through a delete leaves: the record marked, its chunks and file still there (the
    # delete marks the record before it removes anything; a real kill lands there for a few milliseconds).
    # The record's last change, as the delete appends it to the records' log (records.FolderRecords).
    record = {**stored_record(tmp_path / "index", gone["id"]), "status": "deleting"}
    with open(tmp_path / "index" / "documents.log", "a") as log:
        log.write(json.dumps({"id": gone["id"], "record": record}) + "\n")
    server.start()
    try:
        # the restarted server finished the delete itself
        listed = [d["id"] for d in httpx.get(f"{server.api}/documents", headers=AUTH).json()["documents"]]
        assert listed == [keep["id"]]
        assert httpx.get(f"{server.api}/health", headers=AUTH).json()["library"]["chunks"] == keep["chunks"]
        assert not (tmp_path / "index" / "files" / f"{gone['id']}.pdf").exists()
        again = server.wait_ready(server.upload(fava_pdf)["id"])  # and it can be added again
        assert again["status"] == "ready"
        assert httpx.delete(f"{server.api}/documents/{again['id']}", headers=AUTH).status_code == 200
    finally:
        stop(server.proc)
    docs, chunks, accounted = consistent(tmp_path / "index")
    assert [d["id"] for d in docs] == [keep["id"]] and chunks == accounted == keep["chunks"]
