"""Helpers for tests that start real processes on 127.0.0.1."""

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

PYTHON = sys.executable


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url, proc, timeout=120, headers=None):
    """Poll url until it answers 200; fail early with the process output if it dies."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"process exited with {proc.returncode}")
        try:
            req = urllib.request.Request(url, headers=headers or {})
            with urllib.request.urlopen(req, timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"{url} did not answer within {timeout} s")


def stop(proc):
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


EXT = "chrome-extension://angicnaghjngpjiciclbklheaikpcpmc"  # the id the extension's manifest key fixes


def start_server(index_dir, stderr=subprocess.DEVNULL, **settings):
    """`sourcecheck serve` on a free port, the fake judge and hash embeddings unless settings say otherwise; returns
    (process, port, pairing code) once /health answers. Stop it with stop()."""
    port = free_port()
    env = sourcecheck_env(index_dir, **{"BACKEND": "fake", "EMBEDDINGS": "hash", "PORT": port, **settings})
    proc = subprocess.Popen(
        [PYTHON, "-m", "sourcecheck", "serve"], env=env, stdout=subprocess.PIPE, stderr=stderr, text=True
    )
    try:
        code = re.search(r"Pairing code: (\d{3}-\d{3})", proc.stdout.readline()).group(1)
        wait_for(f"http://127.0.0.1:{port}/api/v1/health", proc)
    except BaseException:
        stop(proc)
        raise
    return proc, port, code


def paired(api, code):
    """The headers of the extension once paired with the server at api (…/api/v1) with its code."""
    import httpx

    token = httpx.post(f"{api}/pair", json={"code": code}, headers={"Origin": EXT}).json()["token"]
    return {"Authorization": f"Bearer {token}", "Origin": EXT}


def sourcecheck_env(index_dir, **settings):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOURCECHECK_")}
    env["SOURCECHECK_INDEX_DIR"] = str(index_dir)
    env.update({f"SOURCECHECK_{k}": str(v) for k, v in settings.items()})
    return env


@pytest.fixture
def index_dir(tmp_path):
    return Path(tmp_path) / "index"
