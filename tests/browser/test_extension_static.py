"""The extension without a browser: its node unit tests, the Firefox linter (`web-ext lint`),
and the manifest's promises (stable id, host permissions)."""

import base64
import hashlib
import json
import os
import posixpath
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXT = ROOT / "extension"
JS = ROOT / "tests" / "js"
WEB_EXT = JS / "node_modules" / ".bin" / "web-ext"

# Warnings we accept, with the reason: Chromium needs "sidePanel" and "background.service_worker",
# which Firefox ignores (it uses sidebar_action and background.scripts); pdf.js is vendored as is.
ACCEPTED_WARNINGS = {"MANIFEST_PERMISSIONS", "BACKGROUND_SERVICE_WORKER_IGNORED"}
VENDOR = "vendor/"


def test_node_unit_tests():
    node = shutil.which("node")
    if not node:
        pytest.skip("node is not installed")
    if not (JS / "node_modules" / "jsdom").exists():
        pytest.skip("tests/js/node_modules is missing: run scripts/setup_browser")
    r = subprocess.run([node, "--test", "tests/js/"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]


def test_web_ext_lint_passes():
    if not WEB_EXT.exists():
        pytest.skip("web-ext from npm is not installed: run scripts/setup_browser")
    env = dict(os.environ, NO_UPDATE_NOTIFIER="1", CI="1")
    r = subprocess.run(
        [str(WEB_EXT), "lint", "--source-dir", str(EXT), "--self-hosted", "--output", "json", "--no-config-discovery"],
        cwd=JS,
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )
    start = r.stdout.find("{")
    report = json.loads(r.stdout[start:])
    assert report["summary"]["errors"] == 0, json.dumps(report["errors"], indent=1)
    unexpected = [
        w
        for w in report["warnings"]
        if w["code"] not in ACCEPTED_WARNINGS and not (w.get("file") or "").startswith(VENDOR)
    ]
    assert not unexpected, json.dumps(unexpected, indent=1)
    assert r.returncode == 0


def test_manifest_key_gives_the_documented_extension_id():
    manifest = json.loads((EXT / "manifest.json").read_text())
    digest = hashlib.sha256(base64.b64decode(manifest["key"])).hexdigest()[:32]
    ext_id = "".join(chr(ord("a") + int(c, 16)) for c in digest)
    assert ext_id == "angicnaghjngpjiciclbklheaikpcpmc"
    assert set(manifest["host_permissions"]) == {"http://127.0.0.1/*", "http://localhost/*"}
    assert manifest["browser_specific_settings"]["gecko"]["id"]
    # Every script the manifest names exists (Firefox loads background.scripts, Chromium the worker).
    names = manifest["background"]["scripts"] + [manifest["background"]["service_worker"]]
    names += [f for cs in manifest["content_scripts"] for f in cs["js"] + cs.get("css", [])]
    assert [n for n in names if not (EXT / n).exists()] == []


def test_service_worker_imports_the_same_files_firefox_loads():
    """Chromium's importScripts list and Firefox's background.scripts must not drift apart."""
    manifest = json.loads((EXT / "manifest.json").read_text())
    sw = (EXT / "background" / "service-worker.js").read_text()
    imported = [  # paths from the worker's folder, as importScripts resolves them
        posixpath.normpath(posixpath.join("background", s.strip().strip('"')))
        for s in sw.split("importScripts(", 1)[1].split(")", 1)[0].split(",")
    ]
    assert imported == manifest["background"]["scripts"][:-1]
    assert manifest["background"]["scripts"][-1] == manifest["background"]["service_worker"]
    # The content script's files are listed once, in the manifest; the worker injects what it reads there.
    worker = "".join(p.read_text() for p in sorted((EXT / "background").glob("*.js")))
    assert "getManifest().content_scripts[0]" in worker and "content/content.js" not in worker
