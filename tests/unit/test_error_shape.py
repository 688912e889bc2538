"""Every route, sent a request that must fail, answers in the one error shape with a matching status."""

import json

import pytest
from sourcecheck.serve.app import OPEN_ENDPOINTS
from sourcecheck.serve.services import get_services
from support import assert_error, make_client

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def routes(app):
    """(path with an unknown id filled in, its methods, has an id) for every path; a path may have several rules."""
    out = {}
    for rule in app.url_map.iter_rules():
        if rule.endpoint != "static":
            path = rule.rule.replace("<doc_id>", "d_0000000000000000")
            assert "<" not in path, f"the sweep does not know how to fill {rule.rule}"
            methods, _ = out.setdefault(path, (set(), bool(rule.arguments)))
            methods.update(rule.methods - {"HEAD", "OPTIONS"})
    return [(path, sorted(methods), has_id) for path, (methods, has_id) in out.items()]


def bad_input(client, path, method):
    """A request whose body is wrong for the route: (response, status, code) or None if it takes no body."""
    if method != "POST":
        return None
    if path.endswith("/documents"):
        return client.post(path, data={}, content_type="multipart/form-data"), 400, "no_file"
    return client.post(path, data="not json", content_type="text/plain"), 400, "bad_request"


def test_every_route_fails_in_the_one_shape(app):
    client, anon = make_client(app), make_client(app, token=None)
    foreign, swept = make_client(app, host="evil.example:8765"), 0
    for path, methods, has_id in routes(app):
        for method in methods:
            assert_error(foreign.open(path, method=method), 403, "host_not_allowed")
            web = client.open(path, method=method, headers={"Origin": "https://example.com"})
            assert_error(web, 403, "origin_not_allowed")
            if path not in OPEN_ENDPOINTS:
                assert_error(anon.open(path, method=method), 401, "not_paired")
                bad = client.open(path, method=method, headers={"Authorization": "Bearer wrong"})
                assert_error(bad, 401, "bad_token")
            if has_id:
                assert_error(client.open(path, method=method), 404, "document_not_found")
            failed = bad_input(client, path, method)
            if failed:
                assert_error(*failed)
            swept += 1
        wrong = next(m for m in METHODS if m not in methods)
        assert_error(client.open(path, method=wrong), 405, "method_not_allowed")
    assert swept >= 9  # every route was reached (health, pair, openapi, documents x2, document x2, file, check)


@pytest.mark.parametrize("path", ["/api/v1/nope", "/api/v1/documents/d_x/nope", "/nope"])
def test_unknown_paths(client, path):
    assert_error(client.get(path), 404, "not_found")


def test_an_unexpected_failure_mid_stream_is_an_error_event(client, app, bridge_pdf):
    client.post(
        "/api/v1/documents", data={"file": [(open(bridge_pdf, "rb"), "bridge.pdf")]}, content_type="multipart/form-data"
    )
    get_services(app).wait_idle()
    get_services(app).model().enqueue(RuntimeError("the GPU melted"))
    resp = client.post("/api/v1/check", json={"text": "The bridge is painted International Orange."})
    last = json.loads(resp.data.decode().splitlines()[-1])
    assert resp.status_code == 200 and last["type"] == "error" and set(last) == {"type", "error"}
    assert last["error"]["code"] == "internal_error" and "the GPU melted" in last["error"]["message"]
