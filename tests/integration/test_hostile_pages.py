"""A malicious website (and a foreign extension) against the running server: every request that could read or
change the library is refused, and no answer carries CORS headers for anyone but this extension."""

import os
import stat
import subprocess

import httpx
import pytest
from sourcecheck.serve.security import EXTENSION_ID, new_pairing_code

from integration.conftest import PYTHON, free_port, sourcecheck_env, stop, wait_for

pytestmark = pytest.mark.integration
OWN = f"chrome-extension://{EXTENSION_ID}"
ADDED = "chrome-extension://" + "b" * 32  # an id the user allows in EXTENSION_IDS
TOKEN = "hostile-test-token"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    index_dir = tmp_path_factory.mktemp("index")
    port = free_port()
    env = sourcecheck_env(
        index_dir, BACKEND="fake", EMBEDDINGS="hash", PORT=port, TOKEN=TOKEN, EXTENSION_IDS=ADDED.split("//")[1]
    )
    proc = subprocess.Popen(
        [PYTHON, "-m", "sourcecheck", "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_for(f"http://127.0.0.1:{port}/api/v1/health", proc)
        yield f"http://127.0.0.1:{port}", port, index_dir, env
    finally:
        stop(proc)


def hostile_requests(base, port, code):
    """(what a page or foreign extension tries, request kwargs): none may succeed."""
    auth = {"Authorization": f"Bearer {TOKEN}"}  # even a stolen token does not help a web page
    web = {"Origin": "https://evil.example"}
    foreign = {"Origin": "chrome-extension://" + "c" * 32}
    return [
        ("web page fetch with the token", dict(method="GET", url=f"{base}/api/v1/documents", headers={**web, **auth})),
        ("web page check", dict(method="POST", url=f"{base}/api/v1/check", json={"text": "x y z."}, headers=web)),
        (
            "web page preflight",
            dict(
                method="OPTIONS", url=f"{base}/api/v1/check", headers={**web, "Access-Control-Request-Method": "POST"}
            ),
        ),
        (
            "web page pairs with a leaked code",
            dict(method="POST", url=f"{base}/api/v1/pair", json={"code": code}, headers=web),
        ),
        ("web page deletes", dict(method="DELETE", url=f"{base}/api/v1/documents/d_1", headers={**web, **auth})),
        (
            "sandboxed iframe (Origin: null)",
            dict(method="GET", url=f"{base}/api/v1/documents", headers={"Origin": "null", **auth}),
        ),
        ("form post, no Origin", dict(method="POST", url=f"{base}/api/v1/check", data={"text": "x y z."})),
        ("<img> GET, no Origin", dict(method="GET", url=f"{base}/api/v1/documents")),
        ("<img> GET of a file, no Origin", dict(method="GET", url=f"{base}/api/v1/documents/d_1/file")),
        (
            "DNS rebinding with the token",
            dict(method="GET", url=f"{base}/api/v1/documents", headers={"Host": f"evil.example:{port}", **auth}),
        ),
        (
            "DNS rebinding health",
            dict(method="GET", url=f"{base}/api/v1/health", headers={"Host": f"rebind.evil.example:{port}"}),
        ),
        (
            "foreign extension with the token",
            dict(method="GET", url=f"{base}/api/v1/documents", headers={**foreign, **auth}),
        ),
        (
            "foreign extension preflight",
            dict(
                method="OPTIONS",
                url=f"{base}/api/v1/check",
                headers={**foreign, "Access-Control-Request-Method": "POST"},
            ),
        ),
        (
            "foreign extension pairs",
            dict(method="POST", url=f"{base}/api/v1/pair", json={"code": code}, headers=foreign),
        ),
        (
            "look-alike origin",
            dict(method="GET", url=f"{base}/api/v1/documents", headers={"Origin": OWN + ".evil.example", **auth}),
        ),
    ]


def test_no_hostile_request_succeeds_and_none_gets_cors(server):
    base, port, index_dir, env = server
    code = new_pairing_code({"INDEX_DIR": str(index_dir)})
    attempts = hostile_requests(base, port, code)
    succeeded = []
    for what, kwargs in attempts:
        resp = httpx.request(**kwargs)
        if resp.status_code < 400 or "access-control-allow-origin" in resp.headers:
            succeeded.append((what, resp.status_code))
        assert resp.json()["ok"] is False and resp.json()["error"]["code"]  # the one error shape
    assert succeeded == [], f"{len(succeeded)} of {len(attempts)} hostile requests got through: {succeeded}"
    # the leaked code was not used up by the refused tries: the extension still pairs with it
    resp = httpx.post(f"{base}/api/v1/pair", json={"code": code}, headers={"Origin": OWN})
    assert resp.status_code == 200 and resp.headers["access-control-allow-origin"] == OWN


def test_this_extension_and_the_ones_the_user_adds_are_answered_with_cors(server):
    base, _, _, _ = server
    for origin in (OWN, ADDED, "moz-extension://6f1c3b7e-1111-4a2b-9c3d-0123456789ab"):
        resp = httpx.get(f"{base}/api/v1/documents", headers={"Origin": origin, "Authorization": f"Bearer {TOKEN}"})
        assert resp.status_code == 200 and resp.headers["access-control-allow-origin"] == origin


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_the_token_and_the_index_folder_are_the_users_alone(tmp_path):
    from sourcecheck.library import Library
    from sourcecheck.library.embeddings import HashEmbedding
    from sourcecheck.serve.security import load_token

    index = tmp_path / "index"
    Library(index, HashEmbedding()).close()  # the library creates the folder first when the server starts
    assert stat.S_IMODE(index.stat().st_mode) == 0o700
    load_token({"TOKEN": "", "INDEX_DIR": str(index)})
    assert stat.S_IMODE((index / "token").stat().st_mode) == 0o600
