"""A file name with control characters reaches no header (issue 37): the real server keeps an upload's name without
them, and sends a clean Content-Disposition even for a name stored with them. A PDF uploaded as "a\\x00b.pdf" was
served with `filename="a\\x00b.pdf"`, and Node's fetch refused the whole response."""

import subprocess
from urllib.parse import unquote

import httpx
import pytest

from integration.conftest import PYTHON, sourcecheck_env
from integration.test_connections import connect, read_response, request, serving
from integration.test_load import AUTH, TOKEN

pytestmark = pytest.mark.integration


def upload(api, name, data):
    """POST /documents with the file name as raw UTF-8, as a client that does not escape it sends it (httpx would
    write a NUL as %00)."""
    head = f'--b\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\nContent-Type: application/pdf'
    body = f"{head}\r\n\r\n".encode() + data + b"\r\n--b--\r\n"
    headers = {**AUTH, "Content-Type": "multipart/form-data; boundary=b"}
    resp = httpx.post(f"{api}/documents", content=body, headers=headers, timeout=60)
    assert resp.status_code in (200, 202), resp.text
    return resp.json()["documents"][0]


def file_headers(port, doc_id):
    """The headers of GET /documents/<id>/file, read off the socket as sent."""
    with connect(port) as sock:
        sock.sendall(request(port, "GET", f"/api/v1/documents/{doc_id}/file", [f"Authorization: Bearer {TOKEN}"]))
        status, headers, body = read_response(sock)
    assert status == 200 and body.startswith(b"%PDF"), (status, body[:200])
    controls = {k: v for k, v in headers.items() if any(c < " " or c == "\x7f" for c in v)}
    assert controls == {}, f"control characters in headers: {controls}"
    return headers


def test_an_uploaded_name_loses_its_control_characters(index_dir, bridge_pdf, fava_pdf):
    with serving(index_dir) as port:
        api = f"http://127.0.0.1:{port}/api/v1"
        doc = upload(api, "a\x00b.pdf", bridge_pdf.read_bytes())
        assert file_headers(port, doc["id"])["content-disposition"] == "inline; filename=ab.pdf"
        assert doc["filename"] == "ab.pdf"

        # a non-ASCII name keeps its letters: an ASCII fallback and RFC 5987's filename* with the whole name
        doc = upload(api, "Über\x07 résumé.pdf", fava_pdf.read_bytes())
        assert doc["filename"] == "Über résumé.pdf"
        disposition = file_headers(port, doc["id"])["content-disposition"]
        assert disposition.startswith('inline; filename="Uber resume.pdf"; ')
        assert unquote(disposition.split("filename*=UTF-8''")[1]) == "Über résumé.pdf"
        listed = httpx.get(f"{api}/documents", headers=AUTH).json()["documents"]
        assert sorted(d["filename"] for d in listed) == ["ab.pdf", "Über résumé.pdf"]


def test_a_name_stored_with_a_control_character_is_sent_clean(index_dir, tmp_path, bridge_pdf):
    """A name that reached the library another way (here `sourcecheck ingest` of a file named with a newline; or an
    older version, another backend sharing the library) is cleaned where it goes into the header."""
    odd = tmp_path / "bridge\nnotes.pdf"
    odd.write_bytes(bridge_pdf.read_bytes())
    env = sourcecheck_env(index_dir, BACKEND="fake", EMBEDDINGS="hash", TOKEN=TOKEN)
    subprocess.run([PYTHON, "-m", "sourcecheck", "ingest", str(odd)], env=env, check=True, capture_output=True)
    with serving(index_dir) as port:
        (doc,) = httpx.get(f"http://127.0.0.1:{port}/api/v1/documents", headers=AUTH).json()["documents"]
        assert file_headers(port, doc["id"])["content-disposition"] == "inline; filename=bridgenotes.pdf"
