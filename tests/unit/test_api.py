import json
import time

import pytest
from pdfs import BRIDGE_PAGES, make_pdf
from sourcecheck.serve import machine
from sourcecheck.serve.app import create_app
from sourcecheck.serve.services import get_services
from support import make_client

EXT = "chrome-extension://angicnaghjngpjiciclbklheaikpcpmc"  # the id the manifest key fixes


def upload(client, *paths):
    return client.post(
        "/api/v1/documents", data={"file": [(open(p, "rb"), p.name) for p in paths]}, content_type="multipart/form-data"
    )


def ready_library(client, app, *paths):
    docs = upload(client, *paths).get_json()["documents"]
    get_services(app).wait_idle()
    return docs


def assert_error(resp, status, code):
    body = resp.get_json()
    assert resp.status_code == status, body
    assert body["ok"] is False and body["status"] == status and body["error"]["code"] == code
    assert set(body) == {"ok", "error", "status"} and set(body["error"]) == {"code", "message"}
    assert body["error"]["message"]


def test_health_is_open_and_reports_pairing(client, app):
    anon = make_client(app, host="localhost:8765", token=None)
    body = anon.get("/api/v1/health").get_json()
    assert body["ok"] and body["paired"] is False and body["version"] == "0.2.0"
    assert body["model"] == {
        "backend": "fake",
        "name": "fake",
        "loaded": True,
        "available": True,
        "calibrated": False,  # the shipped scale is the default model's
        "calibration": None,
    }
    assert body["library"] == {"documents": 0, "chunks": 0}
    assert client.get("/api/v1/health").get_json()["paired"] is True


@pytest.mark.parametrize("auth, code", [(None, "not_paired"), ("Bearer wrong", "bad_token"), ("Basic x", "bad_token")])
def test_token_is_required(app, auth, code):
    c = make_client(app, token=None)
    headers = {"Authorization": auth} if auth else {}
    assert_error(c.get("/api/v1/documents", headers=headers), 401, code)


@pytest.mark.parametrize("host", ["evil.example:8765", "127.0.0.1:9999", "localhost"])
def test_foreign_host_is_refused(app, host):
    assert_error(make_client(app, host=host).get("/api/v1/health"), 403, "host_not_allowed")


def test_web_origins_are_refused_and_extension_origins_get_cors(client):
    assert_error(client.get("/api/v1/health", headers={"Origin": "https://chatgpt.com"}), 403, "origin_not_allowed")
    assert_error(
        client.post("/api/v1/check", json={"text": "x"}, headers={"Origin": "null"}), 403, "origin_not_allowed"
    )
    resp = client.get("/api/v1/health", headers={"Origin": EXT})
    assert resp.headers["Access-Control-Allow-Origin"] == EXT
    assert "Access-Control-Allow-Origin" not in client.get("/api/v1/health").headers
    pre = client.options(
        "/api/v1/check", headers={"Origin": EXT, "Access-Control-Request-Method": "POST", "Authorization": ""}
    )
    assert pre.status_code == 200 and "Authorization" in pre.headers["Access-Control-Allow-Headers"]


def test_pairing_gives_the_token_once_and_is_rate_limited(settings):
    from sourcecheck.serve.security import new_pairing_code

    settings = {**settings, "TOKEN": ""}
    app = create_app(settings)
    c = make_client(app, token=None)
    code = new_pairing_code({**settings, "INDEX_DIR": settings["INDEX_DIR"]})
    resp = c.post("/api/v1/pair", json={"code": code})
    token = resp.get_json()["token"]
    assert resp.status_code == 200 and len(token) > 20
    assert c.get("/api/v1/documents", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    assert_error(c.post("/api/v1/pair", json={"code": code}), 403, "bad_pairing_code")  # used up
    assert_error(c.post("/api/v1/pair", json={}), 400, "bad_request")
    for _ in range(4):
        c.post("/api/v1/pair", json={"code": "000-000"})
    assert_error(c.post("/api/v1/pair", json={"code": new_pairing_code(settings)}), 429, "rate_limited")


def test_a_pairing_code_typed_without_its_dash_pairs(settings):
    from sourcecheck.serve.security import new_pairing_code

    settings = {**settings, "TOKEN": ""}
    c = make_client(create_app(settings), token=None)
    code = new_pairing_code(settings)
    assert_error(
        c.post("/api/v1/pair", json={"code": "999999" if code != "999-999" else "111111"}), 403, "bad_pairing_code"
    )
    assert c.post("/api/v1/pair", json={"code": " " + code.replace("-", "") + " "}).status_code == 200


def test_framework_errors_use_the_one_shape(client, settings):
    assert_error(client.get("/api/v1/nope"), 404, "not_found")
    assert_error(client.put("/api/v1/documents"), 405, "method_not_allowed")
    small = make_client(create_app({**settings, "MAX_UPLOAD_MB": 1}))
    resp = small.post(
        "/api/v1/documents",
        data={"file": [(__import__("io").BytesIO(b"%PDF-" + b"0" * 2_000_000), "big.pdf")]},
        content_type="multipart/form-data",
    )
    assert_error(resp, 413, "too_large")


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


def test_check_streams_ndjson_in_order(client, app, fava_pdf, bridge_pdf):
    ready_library(client, app, fava_pdf, bridge_pdf)
    time.sleep(0.6)  # the machine's load is known from two samples half a second apart
    text = "Sure! The Golden Gate Bridge opened to traffic on May 27, 1937. Its main span is 2,000 meters long."
    resp = client.post("/api/v1/check", json={"text": text})
    assert resp.status_code == 200 and resp.mimetype == "application/x-ndjson"
    events = [json.loads(line) for line in resp.data.decode().splitlines()]
    assert [e["type"] for e in events] == ["sentences", "verdict", "verdict", "verdict", "summary"]
    # A judge on this machine: the first event says how busy the machine is (Linux), for the time left (issue 50).
    if machine._busy_s() is not None:
        assert set(events[0]["machine"]) == {"cores", "others_busy"} and events[0]["machine"]["cores"] >= 1
    assert [(e["index"], e["label"], e["final"]) for e in events[1:4]] == [
        (1, "supported", True),
        (2, "contradicted", False),
        (2, "contradicted", True),
    ]
    assert events[2]["critique"] is None and events[3]["critique"] and events[3]["error_type"] == "entity"
    assert events[1]["evidence"][0]["page"] == 1 and events[1]["evidence"][0]["filename"] == "bridge.pdf"


def test_check_as_one_json_object(client, app, bridge_pdf):
    ready_library(client, app, bridge_pdf)
    resp = client.post(
        "/api/v1/check",
        json={"text": "The bridge is painted International Orange."},
        headers={"Accept": "application/json"},
    )
    body = resp.get_json()
    assert body["ok"] and len(body["sentences"]) == 1 and body["verdicts"][0]["label"] == "supported"
    assert "type" not in body["verdicts"][0] and body["summary"]["counts"]["supported"] == 1
    resp = client.post(
        "/api/v1/check", json={"text": "Its main span is 2,000 meters long."}, headers={"Accept": "application/json"}
    )
    (verdict,) = resp.get_json()["verdicts"]  # the scored and the final event merged: the final one
    assert verdict["label"] == "contradicted" and verdict["final"] and verdict["critique"]


def test_check_errors(client, app, bridge_pdf):
    assert_error(client.post("/api/v1/check", json={"text": "The bridge is orange."}), 409, "empty_library")
    ready_library(client, app, bridge_pdf)
    assert_error(client.post("/api/v1/check", json={"text": ""}), 400, "empty_text")
    assert_error(client.post("/api/v1/check", json={"text": "a" * 20001}), 413, "text_too_long")
    assert_error(client.post("/api/v1/check", data="not json", content_type="text/plain"), 400, "bad_request")
    assert_error(client.post("/api/v1/check", json={"text": 5}), 400, "bad_request")
    assert_error(
        client.post("/api/v1/check", json={"text": "The bridge is orange.", "documents": "x"}), 400, "bad_request"
    )
    assert_error(
        client.post("/api/v1/check", json={"text": "The bridge is orange.", "documents": ["d_x"]}),
        404,
        "document_not_found",
    )
    for options in (
        {"sensitivity": "paranoid"},
        {"sensitivity": 3},
        {"sensitivity": ["strict"]},
        {"sensitivity": {}},
        {"revise": "false"},
        {"decompose": 1},
        {"revise": [True]},
    ):
        assert_error(
            client.post("/api/v1/check", json={"text": "The bridge is orange.", "options": options}),
            422,
            "invalid_option",
        )
    ok = client.post(
        "/api/v1/check",
        json={"text": "The bridge is orange.", "options": {"sensitivity": "strict"}},
        headers={"Accept": "application/json"},
    )
    assert ok.status_code == 200 and len(ok.get_json()["verdicts"]) == 1  # a known sensitivity is taken


def test_missing_model_is_a_clear_503(settings, bridge_pdf, tmp_path):
    app = create_app({**settings, "BACKEND": "llama_cpp", "MODELS_DIR": str(tmp_path / "no-models")})
    c = make_client(app)
    ready_library(c, app, bridge_pdf)
    model = c.get("/api/v1/health").get_json()["model"]
    assert model["available"] is False and model["loaded"] is False and model["backend"] == "llama_cpp"
    resp = c.post("/api/v1/check", json={"text": "The bridge is orange."})
    assert_error(resp, 503, "model_missing")
    assert "scripts/setup" in resp.get_json()["error"]["message"]


def test_model_failure_mid_stream_ends_with_an_error_event(client, app, bridge_pdf):
    from sourcecheck.errors import ModelError

    ready_library(client, app, bridge_pdf)
    get_services(app).model().enqueue(ModelError("Cannot reach the server.", code="model_unreachable"))
    resp = client.post("/api/v1/check", json={"text": "The bridge is painted International Orange."})
    events = [json.loads(line) for line in resp.data.decode().splitlines()]
    assert [e["type"] for e in events] == ["sentences", "error"]
    assert events[-1]["error"] == {"code": "model_unreachable", "message": "Cannot reach the server."}


def test_check_output_matches_the_openapi_schemas(client, app, fava_pdf, bridge_pdf):
    """Every streamed event is a CheckEvent and the one-object answer a CheckResult, as serve/api/openapi.json says."""
    from importlib import resources

    from jsonschema import Draft202012Validator

    doc = json.loads(resources.files("sourcecheck.serve.api").joinpath("openapi.json").read_text())

    def validator(name):
        return Draft202012Validator({**doc, "$ref": f"#/components/schemas/{name}"})

    ready_library(client, app, fava_pdf, bridge_pdf)
    text = "Sure! The Golden Gate Bridge opened to traffic on May 27, 1937. Its main span is 2,000 meters long."
    events = [json.loads(line) for line in client.post("/api/v1/check", json={"text": text}).data.splitlines()]
    assert any(e.get("conflict") for e in events)  # the optional parts are exercised too
    for event in events:
        validator("CheckEvent").validate(event)
    body = client.post("/api/v1/check", json={"text": text}, headers={"Accept": "application/json"}).get_json()
    validator("CheckResult").validate(body)
    bad = {**body, "verdicts": [{**body["verdicts"][0], "label": "wrong"}]}
    assert not validator("CheckResult").is_valid(bad)  # the schema does check what it is given


def test_the_pinned_extension_id_is_the_one_the_manifest_key_gives():
    import base64
    import hashlib
    from pathlib import Path

    from sourcecheck.serve.security import EXTENSION_ID

    manifest = json.loads((Path(__file__).parents[2] / "extension" / "manifest.json").read_text())
    digest = hashlib.sha256(base64.b64decode(manifest["key"])).hexdigest()[:32]
    assert EXTENSION_ID == "".join(chr(ord("a") + int(c, 16)) for c in digest)  # Chrome's id from a key


def test_a_pdf_over_the_page_limit_and_a_text_over_the_sentence_limit_are_refused_clearly(settings, bridge_pdf):
    app = create_app({**settings, "MAX_PAGES": 1, "MAX_SENTENCES": 2})
    client = make_client(app)
    resp = upload(client, bridge_pdf)  # two pages
    assert_error(resp, 413, "pdf_too_long")
    assert "the limit is 1" in resp.get_json()["error"]["message"]
    assert client.get("/api/v1/documents").get_json()["documents"] == []  # nothing stored
    text = "The bridge is orange. It opened in 1937. Its span is long."
    resp = client.post("/api/v1/check", json={"text": text})
    assert_error(resp, 413, "text_too_long")
    assert "3 sentences" in resp.get_json()["error"]["message"]


def test_an_upload_past_the_library_size_limit_is_refused_and_nothing_is_stored(settings, bridge_pdf, fava_pdf):
    limit_mb = (bridge_pdf.stat().st_size + fava_pdf.stat().st_size // 2) / 2**20
    client = make_client(create_app({**settings, "MAX_LIBRARY_MB": limit_mb}))
    assert upload(client, bridge_pdf).status_code == 202
    resp = upload(client, fava_pdf)
    assert_error(resp, 413, "library_full")
    assert "MAX_LIBRARY_MB" in resp.get_json()["error"]["message"]
    assert [d["filename"] for d in client.get("/api/v1/documents").get_json()["documents"]] == ["bridge.pdf"]
    assert upload(client, bridge_pdf).status_code in (200, 202)  # the same bytes again take no room


def test_a_stream_whose_client_left_stops_before_the_next_event_is_computed():
    """What waitress's client_disconnected says is read after every event: nothing more is computed once it is True."""
    from sourcecheck.serve.api.check import stream

    computed, left = [], []

    def events():
        for i in range(5):
            computed.append(i)  # a model call
            yield {"type": "verdict", "index": i}

    out = stream(events(), disconnected=lambda: bool(left))
    assert json.loads(next(out))["index"] == 0
    left.append(True)  # the client goes away while the first event is on its way
    assert list(out) == [] and computed == [0]


def test_a_foreign_origin_cannot_lock_the_owner_out_of_pairing(settings):
    """Wrong codes count per origin: a Firefox-style origin (random per install, so not pinned) that guesses until
    it is limited, or one that changes its origin with every guess, leaves the pinned extension able to pair."""
    from sourcecheck.serve.security import PAIR_ATTEMPTS_UNPINNED, new_pairing_code

    settings = {**settings, "TOKEN": ""}
    c = make_client(create_app(settings), token=None)
    foreign = {"Origin": "moz-extension://6d2b9a1e-0000-4000-8000-000000000001"}
    for _ in range(5):
        assert_error(c.post("/api/v1/pair", json={"code": "000-000"}, headers=foreign), 403, "bad_pairing_code")
    assert_error(c.post("/api/v1/pair", json={"code": "000-000"}, headers=foreign), 429, "rate_limited")
    for i in range(PAIR_ATTEMPTS_UNPINNED):  # a new origin for each guess: the shared limit of unpinned origins
        c.post("/api/v1/pair", json={"code": "000-000"}, headers={"Origin": f"moz-extension://{i:08d}-rotating"})
    assert_error(
        c.post("/api/v1/pair", json={"code": "000-000"}, headers={"Origin": "moz-extension://new"}), 429, "rate_limited"
    )
    resp = c.post("/api/v1/pair", json={"code": new_pairing_code(settings)}, headers={"Origin": EXT})
    assert resp.status_code == 200 and resp.get_json()["token"]


@pytest.mark.parametrize("content", ["", '{"code": "123-', "[1, 2]", '{"code": 5, "expires": null}'])
def test_a_broken_pairing_file_is_no_code_and_a_fresh_one_works(settings, content):
    from pathlib import Path

    from sourcecheck.serve.security import new_pairing_code

    settings = {**settings, "TOKEN": ""}
    c = make_client(create_app(settings), token=None)
    (Path(settings["INDEX_DIR"]) / "pairing.json").write_text(content)  # half written, or not a code
    assert_error(c.post("/api/v1/pair", json={"code": "123-456"}), 403, "bad_pairing_code")
    assert c.post("/api/v1/pair", json={"code": new_pairing_code(settings)}).status_code == 200
    assert not list(Path(settings["INDEX_DIR"]).glob("*pairing*"))  # used up, no temporary file left


def test_deeply_nested_or_huge_json_is_refused_with_a_clear_4xx(client):
    for path in ("/api/v1/check", "/api/v1/pair"):
        deep = "[" * 100_000 + "]" * 100_000
        assert_error(client.post(path, data=deep, content_type="application/json"), 400, "bad_request")
        nested = '{"text": ' + '{"a": ' * 5000 + "1" + "}" * 5000 + "}"
        resp = client.post(path, data=nested, content_type="application/json")
        assert_error(resp, 400, "bad_request")
        assert "nested" in resp.get_json()["error"]["message"]
    huge = json.dumps({"text": "a" * 3_000_000})  # far past MAX_TEXT_CHARS: refused before it is read
    resp = client.post("/api/v1/check", data=huge, content_type="application/json")
    assert_error(resp, 413, "too_large")
    assert "request is larger than" in resp.get_json()["error"]["message"]


def test_ten_thousand_form_fields_are_refused_as_too_many_not_as_too_large(client):
    fields = {f"f{i}": "x" for i in range(10_000)}
    resp = client.post("/api/v1/documents", data=fields, content_type="multipart/form-data")
    assert_error(resp, 413, "too_large")
    assert "too many parts" in resp.get_json()["error"]["message"]


def test_only_a_judge_in_the_server_s_process_gets_the_machine_s_load():
    """Only a judge in the server's own process gets the machine's load: other work there is what slows it."""
    from sourcecheck.serve.api.check import local_judge

    assert local_judge({"BACKEND": "llama_cpp", "OPENAI_BASE_URL": ""})
    # a judge server, even on this machine: its work is another process's, and it may run on a GPU
    assert not local_judge({"BACKEND": "openai", "OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"})
    assert not local_judge({"BACKEND": "openai", "OPENAI_BASE_URL": "https://api.openai.com/v1"})
