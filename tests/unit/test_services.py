from sourcecheck.config import load_settings
from sourcecheck.services import Services


def test_warm_up_loads_the_lexical_index_and_the_model_in_the_background(settings, fava_pdf):
    svc = Services(load_settings(settings))
    library = svc.library()
    doc, _ = library.add_pdf(fava_pdf.read_bytes(), "fava.pdf")
    doc = library.ingest(doc["id"])
    assert library._bm25 is None and svc._model is None  # nothing is loaded before it is needed
    thread = svc.warm_up()
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert library._bm25 is not None and len(library._bm25) == doc["chunks"] > 0
    assert svc._model is not None and svc._model.loaded()


def test_warm_up_with_a_missing_model_ends_quietly(settings, tmp_path):
    svc = Services(load_settings({**settings, "BACKEND": "llama_cpp", "MODELS_DIR": str(tmp_path / "no-models")}))
    thread = svc.warm_up()
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert svc.model().available() is False and not svc.model().loaded()
