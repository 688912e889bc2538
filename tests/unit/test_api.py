import json
import time

from sourcecheck.serve import machine
from sourcecheck.serve.app import create_app
from sourcecheck.serve.services import get_services
from support import assert_error, make_client


def upload(client, *paths):
    return client.post(
        "/api/v1/documents", data={"file": [(open(p, "rb"), p.name) for p in paths]}, content_type="multipart/form-data"
    )


def ready_library(client, app, *paths):
    docs = upload(client, *paths).get_json()["documents"]
    get_services(app).wait_idle()
    return docs


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


def test_only_a_judge_in_the_server_s_process_gets_the_machine_s_load():
    """Only a judge in the server's own process gets the machine's load: other work there is what slows it."""
    from sourcecheck.serve.api.check import local_judge

    assert local_judge({"BACKEND": "llama_cpp", "OPENAI_BASE_URL": ""})
    # a judge server, even on this machine: its work is another process's, and it may run on a GPU
    assert not local_judge({"BACKEND": "openai", "OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"})
    assert not local_judge({"BACKEND": "openai", "OPENAI_BASE_URL": "https://api.openai.com/v1"})
