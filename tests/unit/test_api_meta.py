"""GET /health and POST /pair (serve/api/meta.py): what the side panel learns before it is paired, and the trade of a
pairing code for the token."""

import pytest
from sourcecheck.serve.app import create_app
from sourcecheck.serve.security import new_pairing_code
from sourcecheck.serve.services import Services, get_services
from support import assert_error, make_client

SCALE = {
    "judge": "fake:fake",
    "fitted_on": "the calibration set",
    "bands": {"relaxed": [0.2, 0.3], "balanced": [0.3, 0.5], "strict": [0.4, 0.7]},
}


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


def test_health_answers_a_wrong_token_too_as_not_paired(app):
    resp = make_client(app, token="wrong").get("/api/v1/health")
    assert resp.status_code == 200 and resp.get_json()["paired"] is False


def test_health_counts_the_library(client, app, fava_pdf):
    with open(fava_pdf, "rb") as f:
        client.post("/api/v1/documents", data={"file": [(f, "fava.pdf")]}, content_type="multipart/form-data")
    get_services(app).wait_idle()
    (doc,) = client.get("/api/v1/documents").get_json()["documents"]
    assert client.get("/api/v1/health").get_json()["library"] == {"documents": 1, "chunks": doc["chunks"]}
    assert doc["chunks"] > 0


@pytest.mark.parametrize("sensitivity", ["relaxed", "strict"])
def test_a_calibrated_judge_s_health_has_the_band_of_the_server_s_sensitivity(settings, monkeypatch, sensitivity):
    monkeypatch.setattr(Services, "calibration", lambda self: (SCALE, True))
    app = create_app({**settings, "SENSITIVITY": sensitivity})
    model = make_client(app).get("/api/v1/health").get_json()["model"]
    get_services(app).close()
    assert model["calibrated"] is True
    assert model["calibration"] == {
        "judge": "fake:fake",
        "fitted_on": "the calibration set",
        "band": SCALE["bands"][sensitivity],
    }


@pytest.mark.parametrize("body", [[], ["123-456"], {"kode": "123-456"}, {"code": 123456}, {"code": None}, "123-456"])
def test_pair_without_a_string_code_is_a_bad_request_that_shows_the_body_to_send(app, body):
    resp = make_client(app, token=None).post("/api/v1/pair", json=body)
    assert_error(resp, 400, "bad_request")
    assert '{"code": "123-456"}' in resp.get_json()["error"]["message"]


def test_pair_without_a_json_body_is_a_bad_request(app):
    anon = make_client(app, token=None)
    assert_error(anon.post("/api/v1/pair"), 400, "bad_request")
    assert_error(anon.post("/api/v1/pair", data="123-456", content_type="text/plain"), 400, "bad_request")


def test_pair_hands_out_the_server_s_token(settings, app):
    resp = make_client(app, token=None).post("/api/v1/pair", json={"code": new_pairing_code(settings)})
    assert resp.status_code == 200 and resp.get_json() == {"ok": True, "token": settings["TOKEN"]}
