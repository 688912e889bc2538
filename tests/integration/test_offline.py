"""Ingest and check with the real embedding model and the real GGUF attempt no connection beyond 127.0.0.1."""

import json
import subprocess

import pytest

from integration.conftest import PYTHON, sourcecheck_env

pytestmark = [pytest.mark.integration, pytest.mark.model]

GUARD = r"""
import json, socket, sys
attempts = []
_connect, _getaddrinfo = socket.socket.connect, socket.getaddrinfo
LOCAL = ("127.", "::1", "localhost", "0.0.0.0")

def is_local(host):
    return not isinstance(host, str) or host.startswith(LOCAL) or host == ""

def connect(self, address):
    host = address[0] if isinstance(address, tuple) else address
    if self.family != socket.AF_UNIX and not is_local(host):
        attempts.append(f"connect {host}")
        raise OSError("network disabled by test")
    return _connect(self, address)

def getaddrinfo(host, *args, **kwargs):
    if not is_local(host if not isinstance(host, bytes) else host.decode()):
        attempts.append(f"resolve {host}")
        raise socket.gaierror("network disabled by test")
    return _getaddrinfo(host, *args, **kwargs)

socket.socket.connect, socket.getaddrinfo = connect, getaddrinfo
from sourcecheck.cli import main
codes = [main(["ingest", sys.argv[1]]), main(["check", "--json", sys.argv[2]])]
print("GUARD " + json.dumps({"attempts": attempts, "codes": codes}))
"""


def test_ingest_and_check_stay_on_this_machine(index_dir, bridge_pdf, real_model_path):
    env = sourcecheck_env(index_dir)
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        env.pop(name, None)  # the code must go offline by itself
    out = subprocess.run(
        [PYTHON, "-c", GUARD, str(bridge_pdf), "The bridge is painted International Orange."],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = json.loads(out.stdout.split("GUARD ")[-1])
    assert report == {"attempts": [], "codes": [0, 0]}, out.stderr[-2000:]
    assert '"label": "supported"' in out.stdout
