"""Helpers for tests that start real processes on 127.0.0.1."""

import os
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


def sourcecheck_env(index_dir, **settings):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOURCECHECK_")}
    env["SOURCECHECK_INDEX_DIR"] = str(index_dir)
    env.update({f"SOURCECHECK_{k}": str(v) for k, v in settings.items()})
    return env


@pytest.fixture
def index_dir(tmp_path):
    return Path(tmp_path) / "index"
