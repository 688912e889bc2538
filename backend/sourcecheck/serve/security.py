"""Who may talk to the local server: Host allowlist, extension origins only, bearer token, pairing codes."""

import hmac
import json
import logging
import os
import re
import secrets
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from sourcecheck.errors import Forbidden, RateLimited, Unauthorized
from sourcecheck.pdf import files

_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,}")  # a kept token: URL-safe, not cut short (the generated ones have 43)

# The extension's Chrome id, fixed by the "key" in extension/manifest.json
# (tests/unit/test_security.py checks the two agree).
EXTENSION_ID = "angicnaghjngpjiciclbklheaikpcpmc"
# Firefox and Safari give each install of an extension an origin of its own (a random UUID), so no id can be
# pinned there: any such origin passes, and the bearer token, which only pairing hands out, guards the API.
PER_INSTALL_SCHEMES = ("moz-extension://", "safari-web-extension://")
PAIRING_TTL = 600  # seconds a pairing code stays valid
PAIR_ATTEMPTS = 5  # wrong codes allowed per minute and origin, to make guessing a 6-digit code hopeless
# Wrong codes per minute from all origins that cannot be pinned (Firefox/Safari installs, none) together. A local
# process can send any Origin, the pinned one too: it gets at most 5 + 10 tries a minute (150 in a code's 10 minutes,
# 0.015 % of the codes; 5 more a minute per SOURCECHECK_EXTENSION_IDS entry). Another extension cannot send the
# pinned Chrome origin, so it cannot use up that allowance.
PAIR_ATTEMPTS_UNPINNED = 10
log = logging.getLogger(__name__)


def load_token(settings: Mapping[str, Any]) -> str:
    """The bearer token: the TOKEN setting, else one generated once and kept in the index folder. A token file left
    empty or cut short (a crash or a full disk while it was written) is replaced: an empty token would let in any
    request that sends "Bearer" alone."""
    if str(settings["TOKEN"] or "").strip():
        return str(settings["TOKEN"]).strip()
    path = Path(settings["INDEX_DIR"]) / "token"
    if path.exists():
        kept = path.read_text(errors="replace").strip()
        if _TOKEN.fullmatch(kept):  # not NULs a crash left, nor bytes a browser cannot send in a header
            return kept
    files.private_folder(path.parent)
    token = secrets.token_urlsafe(32)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".token-", suffix=".tmp")  # created 0600, then renamed
    try:
        with os.fdopen(fd, "w") as f:
            f.write(token)
            f.flush()
            os.fsync(f.fileno())  # on disk before the rename: a crash leaves the old file or the whole new one
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return token


def new_pairing_code(settings: Mapping[str, Any]) -> str:
    """A fresh one-time code, kept in the index folder so that `sourcecheck pair` can issue it too."""
    code = f"{secrets.randbelow(1000):03d}-{secrets.randbelow(1000):03d}"
    path = Path(settings["INDEX_DIR"]) / "pairing.json"
    files.private_folder(path.parent)  # `sourcecheck pair` before any server: the folder is made private here too
    # a file of its own, created 0600 (the server and `sourcecheck pair` may write at once), then renamed: atomic,
    # so the server never reads half a file
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".pairing-", suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(json.dumps({"code": code, "expires": time.time() + PAIRING_TTL}))
    os.replace(tmp, path)
    return code


def read_pairing(path: Path) -> dict[str, Any] | None:
    """The stored code, or None when there is none or the file is unreadable (a disk that filled up, an editor):
    a broken file only means no valid code; `sourcecheck pair` writes a fresh one."""
    try:
        stored = json.loads(path.read_text())
        if (
            isinstance(stored, dict)
            and isinstance(stored.get("code"), str)
            and isinstance(stored.get("expires"), (int, float))
        ):
            return stored
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        log.warning("pairing.json is unreadable (%s); run `sourcecheck pair` for a fresh code", e)
        return None
    log.warning("pairing.json holds no code; run `sourcecheck pair` for a fresh code")
    return None


class Guard:
    """Checks run before every request (see API.md, 'Serving and trust')."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.settings = settings
        self.token = load_token(settings)
        port = settings["PORT"]
        extra = [h.strip() for h in settings["ALLOWED_HOSTS"].split(",") if h.strip()]
        self.hosts = {f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", *extra}
        ids = [i.strip().removeprefix("chrome-extension://").strip("/") for i in settings["EXTENSION_IDS"].split(",")]
        self.origins = {f"chrome-extension://{i}" for i in [EXTENSION_ID, *ids] if i}
        self._attempts: dict[str, list[float]] = {}  # rate-limit bucket → times of wrong codes in the last minute
        self._lock = threading.Lock()

    def check_host(self, host: str) -> None:
        # A page on a DNS-rebound name reaches 127.0.0.1 with its own Host header: refuse it.
        if host not in self.hosts:
            raise Forbidden(f"Host {host!r} is not allowed.", code="host_not_allowed")

    def extension_origin(self, origin: str) -> bool:
        """Whether an Origin is this extension's (or one the EXTENSION_IDS setting adds): the only ones answered
        with CORS headers."""
        return origin in self.origins or origin.startswith(PER_INSTALL_SCHEMES)

    def check_origin(self, origin: str | None) -> None:
        # No Origin: not a page's script (a form post or <img> has no token, so it gets 401). "null", a web page
        # or another extension: refused before anything else.
        if origin and not self.extension_origin(origin):
            raise Forbidden(
                "Requests from web pages and other extensions are not allowed; use the sourcecheck "
                "extension (another extension's id can be added with SOURCECHECK_EXTENSION_IDS).",
                code="origin_not_allowed",
            )

    def is_valid(self, authorization: str | None) -> bool:
        scheme, _, token = (authorization or "").partition(" ")
        if not self.token or not token.strip():  # no token is never a match, even for a server that has none
            return False
        return scheme.lower() == "bearer" and hmac.compare_digest(token.strip().encode(), self.token.encode())

    def check_token(self, authorization: str | None) -> None:
        if not authorization:
            raise Unauthorized(
                "A token is required: pair the extension with the code the server printed.", code="not_paired"
            )
        if not self.is_valid(authorization):
            raise Unauthorized("The token is not valid: pair the extension again.", code="bad_token")

    def pair(self, code: str | None, origin: str | None = None) -> str:
        """Trade a valid pairing code for the token; the code works once. Wrong codes are limited per origin (and
        for all unpinned origins together), so another extension's guesses never lock the pinned one out."""
        with self._lock:
            now = time.time()
            recent = {b: [t for t in times if now - t < 60] for b, times in self._attempts.items()}
            self._attempts = {b: times for b, times in recent.items() if times}
            pinned = origin in self.origins
            buckets = [cast(str, origin)] if pinned else [origin or "", "*unpinned"]
            limits = [PAIR_ATTEMPTS] if pinned else [PAIR_ATTEMPTS, PAIR_ATTEMPTS_UNPINNED]
            if any(len(self._attempts.get(b, ())) >= n for b, n in zip(buckets, limits)):
                raise RateLimited("Too many pairing attempts; wait a minute and try again.")
            path = Path(self.settings["INDEX_DIR"]) / "pairing.json"
            stored = read_pairing(path)
            # "848379", "848 379" and "848-379" are the same code: only its digits count
            valid = (
                stored
                and stored["expires"] > now
                and hmac.compare_digest(
                    re.sub(r"\D", "", str(code or "")).encode(), re.sub(r"\D", "", stored["code"]).encode()
                )
            )
            if not valid:
                for b in buckets:
                    self._attempts.setdefault(b, []).append(now)
                raise Forbidden("The pairing code is wrong or expired.", code="bad_pairing_code")
            path.unlink(missing_ok=True)
            return self.token
