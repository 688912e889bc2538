"""The library over HTTP (serve/api/documents.py): upload one or several PDFs, list, get, send the file, delete."""

from pdfs import BRIDGE_PAGES, make_pdf
from sourcecheck.serve.app import create_app
from sourcecheck.serve.services import get_services
from support import assert_error, make_client


def upload(client, *paths):
    return client.post(
        "/api/v1/documents", data={"file": [(open(p, "rb"), p.name) for p in paths]}, content_type="multipart/form-data"
    )


def test_upload_list_get_file_delete(client, app, fava_pdf, bridge_pdf):
    resp = upload(client, fava_pdf, bridge_pdf)
    assert resp.status_code == 202
    docs = resp.get_json()["documents"]
    assert [d["filename"] for d in docs] == ["fava.pdf", "bridge.pdf"]
    get_services(app).wait_idle()
    listed = client.get("/api/v1/documents").get_json()["documents"]
    assert {d["status"] for d in listed} == {"ready"}
    got = client.get(f"/api/v1/documents/{docs[0]['id']}").get_json()["document"]
    assert got["pages"] == 3 and got["progress"] == 1.0 and got["sha256"]
    pdf = client.get(f"/api/v1/documents/{docs[0]['id']}/file")
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf" and pdf.data == fava_pdf.read_bytes()
    again = upload(client, fava_pdf)
    assert again.status_code == 200 and again.get_json()["documents"][0]["id"] == docs[0]["id"]
    assert client.delete(f"/api/v1/documents/{docs[0]['id']}").get_json() == {"ok": True}
    assert_error(client.get(f"/api/v1/documents/{docs[0]['id']}"), 404, "document_not_found")
    assert_error(client.delete(f"/api/v1/documents/{docs[0]['id']}"), 404, "document_not_found")
    assert len(client.get("/api/v1/documents").get_json()["documents"]) == 1


def test_bad_uploads(client, tmp_path, fava_pdf):
    assert_error(client.post("/api/v1/documents", data={}, content_type="multipart/form-data"), 400, "no_file")
    # a file name with a line break in it, or bytes that are not UTF-8 (no browser sends either): a clear refusal
    for name in (b"a\r\nb.pdf", b"caf\xe9.pdf"):
        body = (
            b'--XyZ\r\nContent-Disposition: form-data; name="file"; filename="' + name + b'"\r\n'
            b"Content-Type: application/pdf\r\n\r\n" + fava_pdf.read_bytes() + b"\r\n--XyZ--\r\n"
        )
        refused = client.post("/api/v1/documents", data=body, content_type="multipart/form-data; boundary=XyZ")
        assert_error(refused, 400, "no_file")
        assert "line break" in refused.get_json()["error"]["message"]
    assert client.get("/api/v1/documents").get_json()["documents"] == []  # nothing half-added
    text = tmp_path / "notes.pdf"
    text.write_text("just text")
    assert_error(upload(client, text), 415, "not_a_pdf")
    locked = make_pdf(tmp_path / "locked.pdf", BRIDGE_PAGES, encrypt=True)
    assert_error(upload(client, locked), 422, "pdf_encrypted")
    mixed = upload(client, locked, fava_pdf)  # one bad file does not lose the good one
    body = mixed.get_json()
    assert mixed.status_code == 202 and [d["filename"] for d in body["documents"]] == ["fava.pdf"]
    assert body["rejected"][0]["filename"] == "locked.pdf" and body["rejected"][0]["error"]["code"] == "pdf_encrypted"


def test_an_upload_past_the_library_size_limit_is_refused_and_nothing_is_stored(settings, bridge_pdf, fava_pdf):
    limit_mb = (bridge_pdf.stat().st_size + fava_pdf.stat().st_size // 2) / 2**20
    client = make_client(create_app({**settings, "MAX_LIBRARY_MB": limit_mb}))
    assert upload(client, bridge_pdf).status_code == 202
    resp = upload(client, fava_pdf)
    assert_error(resp, 413, "library_full")
    assert "MAX_LIBRARY_MB" in resp.get_json()["error"]["message"]
    assert [d["filename"] for d in client.get("/api/v1/documents").get_json()["documents"]] == ["bridge.pdf"]
    assert upload(client, bridge_pdf).status_code in (200, 202)  # the same bytes again take no room


def test_when_every_file_is_refused_the_first_one_s_reason_is_the_answer(client, tmp_path):
    text = tmp_path / "notes.pdf"
    text.write_text("just text")
    locked = make_pdf(tmp_path / "locked.pdf", BRIDGE_PAGES, encrypt=True)
    resp = upload(client, text, locked)
    assert_error(resp, 422, "not_a_pdf")  # 415 when it is the only file
    assert resp.get_json()["error"]["message"].startswith("No file was added. notes.pdf: ")
    assert client.get("/api/v1/documents").get_json()["documents"] == []


def test_the_same_pdf_twice_in_one_upload_is_read_once(client, app, fava_pdf, monkeypatch):
    svc, queued = get_services(app), []
    queue = svc.queue_ingest
    monkeypatch.setattr(svc, "queue_ingest", lambda doc_id: (queued.append(doc_id), queue(doc_id)))
    resp = upload(client, fava_pdf, fava_pdf)
    docs = resp.get_json()["documents"]
    assert resp.status_code == 202 and docs[0]["id"] == docs[1]["id"] and queued == [docs[0]["id"]]


def test_the_list_is_oldest_first(client, bridge_pdf, fava_pdf):
    upload(client, bridge_pdf)
    upload(client, fava_pdf)
    listed = client.get("/api/v1/documents").get_json()["documents"]
    assert [d["filename"] for d in listed] == ["bridge.pdf", "fava.pdf"]


def test_the_file_is_sent_inline_in_ranges_under_a_clean_name(client, app, fava_pdf):
    (doc,) = upload(client, fava_pdf).get_json()["documents"]
    url, data = f"/api/v1/documents/{doc['id']}/file", fava_pdf.read_bytes()
    whole = client.get(url)
    assert whole.headers["Content-Disposition"] == "inline; filename=fava.pdf"
    part = client.get(url, headers={"Range": "bytes=4-9"})
    assert part.status_code == 206 and part.data == data[4:10]
    assert_error(client.get(url, headers={"Range": f"bytes={len(data) + 10}-"}), 416, "range_not_satisfiable")
    # a name kept by an older version, with a line break and an escape in it, which werkzeug would refuse to send
    get_services(app).library()._records.update(doc["id"], filename="old\nname\x1b.pdf")
    resp = client.get(url)
    assert resp.status_code == 200 and resp.headers["Content-Disposition"] == "inline; filename=oldname.pdf"
