import threading

from sourcecheck.config import load_settings
from sourcecheck.serve.app import create_app
from sourcecheck.serve.services import Services, get_services
from support import make_client


def test_warm_up_loads_the_model_in_the_background(settings, fava_pdf):
    svc = Services(load_settings(settings))
    library = svc.library()
    doc, _ = library.add_pdf(fava_pdf.read_bytes(), "fava.pdf")
    doc = library.ingest(doc["id"])
    assert svc._model is None  # nothing is loaded before it is needed
    thread = svc.warm_up()
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert len(library.chunks.lexical) == doc["chunks"] > 0  # written while it was ingested: nothing to load
    assert svc._model is not None and svc._model.loaded()


def test_warm_up_reads_the_prompts_opening_ahead(settings, monkeypatch):
    from sourcecheck.llm.fake import FakeModel

    read = []
    monkeypatch.setattr(FakeModel, "read_ahead", lambda self, messages: read.append(messages))
    thread = Services(load_settings(settings)).warm_up()
    thread.join(timeout=60)
    assert len(read) == 1 and "Source excerpts:" in read[0][-1]["content"]  # Judge.warm_up, not only the load


def test_warm_up_with_a_missing_model_ends_quietly(settings, tmp_path, monkeypatch):
    uncaught = []
    monkeypatch.setattr(threading, "excepthook", uncaught.append)  # a thread that dies of an exception
    app = create_app({**settings, "BACKEND": "llama_cpp", "MODELS_DIR": str(tmp_path / "no-models")})
    thread = get_services(app).warm_up()
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert uncaught == []  # the missing model did not escape the warm-up thread
    model = make_client(app).get("/api/v1/health").get_json()["model"]
    assert model["available"] is False and model["loaded"] is False  # the server says so instead


def test_documents_of_an_older_index_version_are_indexed_again_after_every_upload(
    settings, fava_pdf, bridge_pdf, tmp_path, monkeypatch
):
    """After an upgrade the server indexes the library again (Library.reindex), but an interrupted ingest and a new
    upload go first: a library of hundreds of PDFs must not hold the user's next PDF back."""
    from pdfs import make_pdf
    from sourcecheck.library import INDEX_VERSION, Library

    svc = Services(load_settings(settings))
    library = svc.library()
    old = library.ingest(library.add_pdf(fava_pdf.read_bytes(), "fava.pdf")[0]["id"])
    library.set_metadata(old["id"], index_version=None)
    interrupted, _ = library.add_pdf(bridge_pdf.read_bytes(), "bridge.pdf")  # registered, never ingested
    order, release = [], threading.Event()
    ingest, reindex = Library.ingest, Library.reindex

    def ingesting(self, doc_id, read=None):
        order.append(("ingest", doc_id))
        release.wait(30)  # the first ingest holds the worker while the rest is queued
        return ingest(self, doc_id, read)

    def reindexing(self, doc_id):
        order.append(("reindex", doc_id))
        return reindex(self, doc_id)

    monkeypatch.setattr(Library, "ingest", ingesting)
    monkeypatch.setattr(Library, "reindex", reindexing)
    try:
        svc.resume_ingest()
        upload, _ = library.add_pdf(make_pdf(tmp_path / "new.pdf", ["A new page of text."]).read_bytes(), "new.pdf")
        svc.queue_ingest(upload["id"])
        release.set()
        svc.wait_idle()
        assert order == [("ingest", interrupted["id"]), ("ingest", upload["id"]), ("reindex", old["id"])]
        assert library.get(old["id"])["index_version"] == INDEX_VERSION
        assert library.get(upload["id"])["status"] == library.get(interrupted["id"])["status"] == "ready"
    finally:
        release.set()
        svc.close()
