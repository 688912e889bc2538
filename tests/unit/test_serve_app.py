"""create_app (serve/app.py): settings layered into the app, the token made at once, CORS for extensions, the size
limits of a request, and every failure (the framework's own, a bug) in the one error shape."""

import io
import json
from pathlib import Path

import pytest
from sourcecheck.serve.app import MIN_JSON_BYTES, create_app
from sourcecheck.serve.services import get_services
from support import assert_error, make_client
from werkzeug.exceptions import HTTPException, abort

EXT = "chrome-extension://angicnaghjngpjiciclbklheaikpcpmc"  # the id the manifest key fixes
FIREFOX = "moz-extension://6d2b9a1e-0000-4000-8000-000000000001"


@pytest.fixture
def make_app():
    """create_app, with each app's services closed at the end of the test."""
    made = []

    def make(config):
        made.append(create_app(config))
        return made[-1]

    yield make
    for app in made:
        get_services(app).close()


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


def test_framework_errors_use_the_one_shape(client, settings):
    assert_error(client.get("/api/v1/nope"), 404, "not_found")
    assert_error(client.put("/api/v1/documents"), 405, "method_not_allowed")
    small = make_client(create_app({**settings, "MAX_UPLOAD_MB": 1}))
    resp = small.post(
        "/api/v1/documents",
        data={"file": [(io.BytesIO(b"%PDF-" + b"0" * 2_000_000), "big.pdf")]},
        content_type="multipart/form-data",
    )
    assert_error(resp, 413, "too_large")


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


def test_an_unexpected_failure_is_an_internal_error_in_the_one_shape(client, app, monkeypatch):
    def broken():
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(get_services(app).library(), "list", broken)
    resp = client.get("/api/v1/documents")
    assert_error(resp, 500, "internal_error")
    assert "disk on fire" in resp.get_json()["error"]["message"]


def test_an_http_error_without_a_description_still_says_something(client, app, monkeypatch):
    class Conflicting(HTTPException):  # raised by a library with no description of its own
        code = 409

    def refuse():
        raise Conflicting()

    monkeypatch.setattr(get_services(app).library(), "list", refuse)
    resp = client.get("/api/v1/documents")
    assert resp.status_code == 409
    assert resp.get_json()["error"]["message"] == "Conflict."


def test_the_settings_are_the_defaults_then_the_environment_then_the_config(settings, make_app, monkeypatch):
    monkeypatch.setenv("SOURCECHECK_MAX_UPLOAD_MB", "5")
    monkeypatch.setenv("SOURCECHECK_TOP_K", "7")
    from_env, given = make_app(settings), make_app({**settings, "MAX_UPLOAD_MB": 2})
    assert from_env.config["MAX_CONTENT_LENGTH"] == 5 * 2**20 and given.config["MAX_CONTENT_LENGTH"] == 2 * 2**20
    assert get_services(given).settings["TOP_K"] == 7 and get_services(given).settings["TOKEN"] == settings["TOKEN"]


def test_the_token_is_made_with_the_app_before_any_request(settings, make_app):
    app = make_app({**settings, "TOKEN": ""})
    token = (Path(settings["INDEX_DIR"]) / "token").read_text()
    assert make_client(app, token=token).get("/api/v1/documents").status_code == 200
    assert_error(make_client(app, token="test-token").get("/api/v1/documents"), 401, "bad_token")


def test_a_preflight_needs_no_token_but_comes_from_an_extension(app):
    anon = make_client(app, token=None)
    asks = {"Access-Control-Request-Method": "DELETE", "Access-Control-Request-Headers": "authorization"}
    resp = anon.options("/api/v1/documents/d_0000000000000000", headers={**asks, "Origin": FIREFOX})
    assert resp.status_code == 200 and resp.headers["Access-Control-Allow-Origin"] == FIREFOX
    assert "DELETE" in resp.headers["Access-Control-Allow-Methods"] and resp.headers["Vary"] == "Origin"
    web = anon.options("/api/v1/documents/d_0000000000000000", headers={**asks, "Origin": "https://example.com"})
    assert_error(web, 403, "origin_not_allowed")
    assert "Access-Control-Allow-Origin" not in web.headers


@pytest.mark.parametrize(
    "status, code",
    [
        (400, "bad_request"),
        (404, "not_found"),
        (416, "range_not_satisfiable"),
        (409, "http_error"),
        (501, "http_error"),
    ],
)
def test_the_framework_s_errors_have_the_contract_s_codes_and_any_other_is_http_error(
    client, app, monkeypatch, status, code
):
    monkeypatch.setattr(get_services(app).library(), "list", lambda: abort(status))
    assert_error(client.get("/api/v1/documents"), status, code)


def test_a_json_body_may_be_as_large_as_the_longest_text_needs(settings, make_app):
    body = json.dumps({"code": "1" * MIN_JSON_BYTES})  # past the 1 MiB floor
    small = make_client(make_app(settings), token=None)
    resp = small.post("/api/v1/pair", data=body, content_type="application/json")
    assert_error(resp, 413, "too_large")
    assert f"larger than {MIN_JSON_BYTES:,} bytes" in resp.get_json()["error"]["message"]
    roomy = make_client(make_app({**settings, "MAX_TEXT_CHARS": MIN_JSON_BYTES // 4}), token=None)  # 2 MiB
    assert_error(roomy.post("/api/v1/pair", data=body, content_type="application/json"), 403, "bad_pairing_code")


def test_an_upload_is_held_to_max_upload_mb_not_to_the_json_limit(client, settings, make_app):
    past_json = io.BytesIO(b"%PDF-1.7\n" + b"0" * MIN_JSON_BYTES)
    resp = client.post("/api/v1/documents", data={"file": [(past_json, "big.pdf")]}, content_type="multipart/form-data")
    assert_error(resp, 422, "pdf_corrupt")  # read, and refused for what it is
    small = make_client(make_app({**settings, "MAX_UPLOAD_MB": 1}))
    past_upload = io.BytesIO(b"%PDF-1.7\n" + b"0" * (2**20 + 1))
    resp = small.post(
        "/api/v1/documents", data={"file": [(past_upload, "big.pdf")]}, content_type="multipart/form-data"
    )
    assert_error(resp, 413, "too_large")
    assert resp.get_json()["error"]["message"] == "The upload is larger than 1 MB."
