"""Who may talk to the local server (serve/security.py): the Host allowlist, extension origins, the bearer token and
one-time pairing codes."""

import base64
import hashlib
import json
import re
from pathlib import Path

import pytest
from sourcecheck.config import load_settings
from sourcecheck.errors import Forbidden, RateLimited, Unauthorized
from sourcecheck.serve import security
from sourcecheck.serve.app import create_app
from sourcecheck.serve.security import (
    EXTENSION_ID,
    PAIR_ATTEMPTS,
    PAIR_ATTEMPTS_UNPINNED,
    PAIRING_TTL,
    Guard,
    load_token,
    new_pairing_code,
    read_pairing,
)
from support import TOKEN, assert_error, make_client

EXT = "chrome-extension://angicnaghjngpjiciclbklheaikpcpmc"  # the id the manifest key fixes
FIREFOX = "moz-extension://6d2b9a1e-0000-4000-8000-000000000001"


def guard(settings, **more):
    return Guard(load_settings({**settings, **more}))


class Clock:
    """security's time module, at a time the test sets."""

    def __init__(self):
        self.now = 1_700_000_000.0

    def time(self):
        return self.now


@pytest.mark.parametrize("auth, code", [(None, "not_paired"), ("Bearer wrong", "bad_token"), ("Basic x", "bad_token")])
def test_token_is_required(app, auth, code):
    c = make_client(app, token=None)
    headers = {"Authorization": auth} if auth else {}
    assert_error(c.get("/api/v1/documents", headers=headers), 401, code)


@pytest.mark.parametrize("host", ["evil.example:8765", "127.0.0.1:9999", "localhost"])
def test_foreign_host_is_refused(app, host):
    assert_error(make_client(app, host=host).get("/api/v1/health"), 403, "host_not_allowed")


def test_pairing_gives_the_token_once_and_is_rate_limited(settings):
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
    settings = {**settings, "TOKEN": ""}
    c = make_client(create_app(settings), token=None)
    code = new_pairing_code(settings)
    assert_error(
        c.post("/api/v1/pair", json={"code": "999999" if code != "999-999" else "111111"}), 403, "bad_pairing_code"
    )
    assert c.post("/api/v1/pair", json={"code": " " + code.replace("-", "") + " "}).status_code == 200


def test_the_pinned_extension_id_is_the_one_the_manifest_key_gives():
    manifest = json.loads((Path(__file__).parents[2] / "extension" / "manifest.json").read_text())
    digest = hashlib.sha256(base64.b64decode(manifest["key"])).hexdigest()[:32]
    assert EXTENSION_ID == "".join(chr(ord("a") + int(c, 16)) for c in digest)  # Chrome's id from a key


def test_a_foreign_origin_cannot_lock_the_owner_out_of_pairing(settings):
    """Wrong codes count per origin: a Firefox-style origin (random per install, so not pinned) that guesses until
    it is limited, or one that changes its origin with every guess, leaves the pinned extension able to pair."""
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
    settings = {**settings, "TOKEN": ""}
    c = make_client(create_app(settings), token=None)
    (Path(settings["INDEX_DIR"]) / "pairing.json").write_text(content)  # half written, or not a code
    assert_error(c.post("/api/v1/pair", json={"code": "123-456"}), 403, "bad_pairing_code")
    assert c.post("/api/v1/pair", json={"code": new_pairing_code(settings)}).status_code == 200
    assert not list(Path(settings["INDEX_DIR"]).glob("*pairing*"))  # used up, no temporary file left


def test_pairing_before_any_server_makes_the_folder_private(tmp_path):
    new_pairing_code({"INDEX_DIR": str(tmp_path / "fresh")})  # `sourcecheck pair` first
    assert (tmp_path / "fresh").stat().st_mode & 0o777 == 0o700


def test_the_token_is_the_setting_or_one_made_once_and_kept_in_a_private_file(settings):
    assert load_token(settings) == TOKEN
    made = load_token({**settings, "TOKEN": ""})
    path = Path(settings["INDEX_DIR"]) / "token"
    assert len(made) >= 40 and path.read_text() == made and path.stat().st_mode & 0o777 == 0o600
    assert load_token({**settings, "TOKEN": ""}) == made  # the next start pairs with the same one


@pytest.mark.parametrize("left", ["", "  \n", "abc", "\0" * 43, "é" * 20])
def test_an_empty_or_cut_short_token_file_is_replaced_and_lets_nobody_in(settings, left):
    """A crash or a full disk while the token was written left an empty file: the token was "", and "Bearer" alone
    (or "Bearer ") was let in to every route."""
    folder = Path(settings["INDEX_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "token").write_text(left)
    token = load_token({**settings, "TOKEN": "   "})  # a setting of spaces is no token either
    assert len(token) >= 40 and (folder / "token").read_text() == token
    assert (folder / "token").stat().st_mode & 0o777 == 0o600
    empty = guard({**settings, "TOKEN": ""})
    empty.token = ""  # a server that somehow has none still matches nothing
    assert not any(empty.is_valid(h) for h in ("Bearer", "Bearer ", "Bearer  ", "bearer"))


def test_a_server_started_on_an_empty_token_file_refuses_a_bare_bearer(settings):
    from sourcecheck.serve.app import create_app
    from sourcecheck.serve.services import get_services

    folder = Path(settings["INDEX_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "token").write_text("")
    app = create_app({**settings, "TOKEN": ""})
    try:
        for header in ("Bearer", "Bearer "):
            client = make_client(app, token=None)
            client.environ_base["HTTP_AUTHORIZATION"] = header
            assert client.get("/api/v1/documents").status_code == 401, header
        token = (folder / "token").read_text()
        assert make_client(app, token=token).get("/api/v1/documents").status_code == 200
    finally:
        get_services(app).close()


def test_the_hosts_are_the_loopback_names_on_the_port_and_those_the_setting_adds(settings):
    g = guard(settings, ALLOWED_HOSTS=" sourcecheck.local:8765 ,, ")
    for host in ("127.0.0.1:8765", "localhost:8765", "[::1]:8765", "sourcecheck.local:8765"):
        g.check_host(host)
    for host in ("127.0.0.1:8766", "0.0.0.0:8765", "sourcecheck.local", ""):
        with pytest.raises(Forbidden) as e:
            g.check_host(host)
        assert e.value.code == "host_not_allowed"


def test_extension_origins_pass_and_web_pages_and_other_extensions_do_not(settings):
    g = guard(settings, EXTENSION_IDS="chrome-extension://abcdefghijklmnop/, qrstuvwxyz")
    for origin in (EXT, "chrome-extension://abcdefghijklmnop", "chrome-extension://qrstuvwxyz", FIREFOX):
        assert g.extension_origin(origin)
        g.check_origin(origin)
    assert g.extension_origin("safari-web-extension://0000-1111")
    g.check_origin(None)  # no Origin: not a page's script
    for origin in ("chrome-extension://someoneelse", EXT + ".evil.example", "https://chatgpt.com", "null"):
        assert not g.extension_origin(origin)
        with pytest.raises(Forbidden) as e:
            g.check_origin(origin)
        assert e.value.code == "origin_not_allowed"


def test_the_token_is_taken_only_as_a_bearer_token(settings):
    g = guard(settings)
    assert g.is_valid(f"Bearer {TOKEN}") and g.is_valid(f"bearer {TOKEN}") and g.is_valid(f"BEARER  {TOKEN} ")
    for header in (None, "", TOKEN, f"Token {TOKEN}", f"Bearer {TOKEN}x", f"Bearer {TOKEN[:-1]}", "Bearer "):
        assert not g.is_valid(header)
    with pytest.raises(Unauthorized) as e:
        g.check_token("")
    assert e.value.code == "not_paired"
    with pytest.raises(Unauthorized) as e:
        g.check_token(f"Basic {TOKEN}")
    assert e.value.code == "bad_token"


def test_a_pairing_code_is_six_digits_in_a_private_file_and_the_newest_one_counts(settings):
    first, second = new_pairing_code(settings), new_pairing_code(settings)
    path = Path(settings["INDEX_DIR"]) / "pairing.json"
    assert re.fullmatch(r"\d{3}-\d{3}", first) and re.fullmatch(r"\d{3}-\d{3}", second)
    assert read_pairing(path)["code"] == second and path.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["pairing.json"]  # no temporary file left
    assert read_pairing(path.parent / "none.json") is None


def test_a_code_pairs_within_its_ten_minutes_and_not_after(settings, monkeypatch):
    clock = Clock()
    monkeypatch.setattr(security, "time", clock)
    g = guard(settings)
    code = new_pairing_code(settings)
    clock.now += PAIRING_TTL + 1
    with pytest.raises(Forbidden) as e:
        g.pair(code)
    assert e.value.code == "bad_pairing_code"
    code = new_pairing_code(settings)
    clock.now += PAIRING_TTL - 1
    assert g.pair(code) == TOKEN
    with pytest.raises(Forbidden):
        g.pair(code)  # once


def test_wrong_codes_are_counted_for_a_minute(settings, monkeypatch):
    clock = Clock()
    monkeypatch.setattr(security, "time", clock)
    g = guard(settings)
    for _ in range(PAIR_ATTEMPTS):
        with pytest.raises(Forbidden):
            g.pair("000-000", EXT)  # no code issued yet: every code is wrong
    code = new_pairing_code(settings)
    clock.now += 59
    with pytest.raises(RateLimited):
        g.pair(code, EXT)
    clock.now += 2
    assert g.pair(code, EXT) == TOKEN


def test_the_pinned_extension_s_wrong_codes_do_not_limit_other_origins(settings):
    g = guard(settings)
    for _ in range(PAIR_ATTEMPTS):
        with pytest.raises(Forbidden):
            g.pair("000-000", EXT)
    with pytest.raises(RateLimited):
        g.pair("000-000", EXT)
    for origin in (FIREFOX, None):
        with pytest.raises(Forbidden) as e:
            g.pair("000-000", origin)
        assert e.value.code == "bad_pairing_code"
