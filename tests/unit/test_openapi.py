"""The OpenAPI document (serve/api/openapi.json) lists exactly the app's routes and error codes."""

import ast
import json
import re
from importlib import resources
from pathlib import Path

from sourcecheck.serve import app as app_module
from support import make_client

PACKAGE = Path(app_module.__file__).parents[1]  # sourcecheck/, above serve/
# parts the server never runs (download.py is `sourcecheck models pull`): their codes are not the API's
TOOLING = {"eval", "download.py"}
AUTO_METHODS = {"HEAD", "OPTIONS"}  # Flask answers these for every route


def openapi():
    return json.loads(resources.files("sourcecheck.serve.api").joinpath("openapi.json").read_text())


def app_routes(app):
    """{"/api/v1/documents/{doc_id}": {"get", "delete"}, ...} from the url_map."""
    routes = {}
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
        routes.setdefault(path, set()).update(m.lower() for m in rule.methods - AUTO_METHODS)
    return routes


def _class_codes(tree):
    """`code = "..."` and `code, status = "...", 400` in class bodies."""
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for stmt in (s for s in cls.body if isinstance(s, ast.Assign)):
            target = stmt.targets[0]
            names = target.elts if isinstance(target, ast.Tuple) else [target]
            values = stmt.value.elts if isinstance(stmt.value, ast.Tuple) else [stmt.value]
            for name, value in zip(names, values):
                if isinstance(name, ast.Name) and name.id == "code" and isinstance(value, ast.Constant):
                    yield value.value


def produced_codes():
    """Every error code the runtime can produce: errors.py classes, code="..." and {"code": "..."} literals."""
    codes = set()
    for path in PACKAGE.rglob("*.py"):
        if TOOLING & set(path.relative_to(PACKAGE).parts):
            continue
        tree = ast.parse(path.read_text(), str(path))
        if path.name == "errors.py":
            codes.update(_class_codes(tree))
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "code" and isinstance(node.value, ast.Constant):
                codes.add(node.value.value)
            if isinstance(node, ast.Dict):
                codes.update(
                    v.value
                    for k, v in zip(node.keys, node.values)
                    if isinstance(k, ast.Constant)
                    and k.value == "code"
                    and isinstance(v, ast.Constant)
                    and isinstance(v.value, str)
                )
    # The framework's errors (404 route, 405, 413, ...) get their codes in app.py's HTTPException handler, and
    # waitress's own (a malformed request, headers too large) in server.py.
    from sourcecheck.serve import server

    return (
        codes
        | set(app_module.HTTP_ERROR_CODES.values())
        | {app_module.OTHER_HTTP_ERROR}
        | set(server.WAITRESS_ERROR_CODES.values())
        | {server.OTHER_HTTP_ERROR}
    )


def test_every_route_is_documented_with_its_methods_and_nothing_else(app):
    documented = {
        path: {m for m in item if m in {"get", "post", "put", "patch", "delete"}}
        for path, item in openapi()["paths"].items()
    }
    assert documented == app_routes(app)
    assert all(path.startswith("/api/v1/") for path in documented)


def test_every_error_code_is_documented_and_nothing_else():
    documented = openapi()["components"]["schemas"]["ErrorCode"]["enum"]
    assert len(documented) == len(set(documented))
    assert set(documented) == produced_codes()


def test_every_reference_resolves():
    doc = openapi()
    text = json.dumps(doc)
    for ref in set(re.findall(r'"\$ref": "#/([^"]+)"', text)):
        node = doc
        for part in ref.split("/"):
            assert part in node, f"#/{ref} does not resolve"
            node = node[part]


def test_served_without_a_token(app):
    resp = make_client(app, token=None).get("/api/v1/openapi.json")
    assert resp.status_code == 200 and resp.mimetype == "application/json"
    assert resp.get_json() == openapi() and openapi()["openapi"].startswith("3.1")


def test_docs_list_every_route_and_code():
    # docs/api.md is the prose form of the same contract: it names every route and every code.
    docs = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    missing = [c for c in produced_codes() if f"`{c}`" not in docs]
    missing += [p for p in openapi()["paths"] if f" {p.removeprefix('/api/v1')}`" not in docs]  # `GET /health`
    assert missing == []
