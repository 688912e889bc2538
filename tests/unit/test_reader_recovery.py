"""A PDF that runs the reader out of memory fails alone (issue 37): MuPDF does not free what it held when an
allocation failed, so the reader that read it could read nothing more; the PDFs after it get a new reader."""

import io
import sys

import pytest
from fuzz_pdfs import form_bomb
from pdfs import make_pdf
from sourcecheck.serve.app import create_app
from sourcecheck.serve.services import get_services
from support import make_client


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the memory limit is RLIMIT_AS, set on Linux")
def test_an_upload_with_a_pdf_that_exhausts_the_reader_reads_the_others(settings, tmp_path):
    settings["PARSE_MEMORY_MB"] = 800  # reached sooner than the default's 1536 (the reader maps ~540 MB at start)
    app = create_app(settings)
    client = make_client(app)
    ordinary = [
        make_pdf(tmp_path / f"paper{i}.pdf", [f"Paper {i}. The survey counted {400 + i} otters on the coast."])
        for i in range(5)
    ]
    files = [(io.BytesIO(form_bomb()), "bomb.pdf")] + [(io.BytesIO(p.read_bytes()), p.name) for p in ordinary]
    try:
        resp = client.post("/api/v1/documents", data={"file": files}, content_type="multipart/form-data")
        assert resp.status_code == 202 and len(resp.get_json()["documents"]) == 6
        get_services(app).wait_idle()
        docs = {d["filename"]: d for d in client.get("/api/v1/documents").get_json()["documents"]}
    finally:
        get_services(app).close()
    assert (docs["bomb.pdf"]["status"], docs["bomb.pdf"]["error"]["code"]) == ("failed", "pdf_too_complex")
    assert {p.name: (docs[p.name]["status"], docs[p.name]["error"]) for p in ordinary} == {
        p.name: ("ready", None) for p in ordinary
    }
