"""`sourcecheck calibrate` for three real judges: the default GGUF (the CLI), a second, different GGUF (SmolLM2 from
PyPI, through the server's POST /calibrate as the side panel asks it) and llama.cpp's OpenAI-compatible server through
the openai backend. Each on one answer of each kind of the shipped set (--limit 1): the mechanism, not the fit."""

import json
import subprocess
import time

import httpx
import pytest
from sourcecheck.judging.calibrate import calibrate
from sourcecheck.judging.calibration import for_judge, save, valid
from sourcecheck.judging.judge import Judge
from sourcecheck.llm.openai_compat import OpenAIModel

from integration.conftest import PYTHON, free_port, paired, sourcecheck_env, start_server, stop, wait_for
from integration.test_download import smollm2_path

pytestmark = pytest.mark.integration


def models_dir(tmp_path, gguf):
    """A models folder holding only this GGUF (a link), so the calibration lands in the test's folder."""
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / gguf.name).symlink_to(gguf)
    return folder


def test_the_default_gguf_calibrated_by_the_cli(tmp_path, real_model_path):
    models = models_dir(tmp_path, real_model_path)
    env = sourcecheck_env(tmp_path / "index", MODELS_DIR=models, EMBEDDINGS="hash")
    before = subprocess.run([PYTHON, "-m", "sourcecheck", "models"], env=env, capture_output=True, text=True)
    assert "is calibrated." in before.stdout  # the default judge ships calibrated
    done = subprocess.run(
        [PYTHON, "-m", "sourcecheck", "calibrate", "--limit", "1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stderr
    assert "Calibrated llama_cpp:qwen2.5-coder-1.5b-instruct-q4_k_m" in done.stdout and "sentences" in done.stderr
    (path,) = (models / "calibrations").glob("*.json")
    own = json.loads(path.read_text())
    assert valid(own) and own["a"] > 0  # on this judge's scale, Yes means supported
    assert for_judge(own["judge"], models / "calibrations") == (own, True)


def test_a_second_gguf_is_uncalibrated_until_the_side_panels_calibrate_is_done(tmp_path):
    models = models_dir(tmp_path, smollm2_path())
    proc, port, code = start_server(
        tmp_path / "index", BACKEND="llama_cpp", MODEL=smollm2_path().name, MODELS_DIR=models, N_CTX=2048
    )
    api = f"http://127.0.0.1:{port}/api/v1"
    try:
        headers = paired(api, code)
        assert httpx.get(f"{api}/health").json()["model"]["calibrated"] is False
        started = httpx.post(f"{api}/calibrate", json={"limit": 1}, headers=headers, timeout=60)
        assert started.status_code == 202 and started.json()["calibration"]["state"] == "running"
        seen = []
        deadline = time.monotonic() + 900
        while time.monotonic() < deadline:
            status = httpx.get(f"{api}/calibrate", headers=headers).json()["calibration"]
            seen.append(status)
            if status["state"] != "running":
                break
            time.sleep(1)
        assert status["state"] == "done" and status["calibrated"] is True, status
        assert any(0 < s["done"] < s["total"] and s["eta_s"] is not None for s in seen)  # progress with a time left
        health = httpx.get(f"{api}/health").json()["model"]
        assert health["calibrated"] is True and health["calibration"]["judge"].endswith(smollm2_path().stem)
        assert httpx.post(f"{api}/calibrate", json={"limit": 0}, headers=headers).json()["error"]["code"] == (
            "bad_request"
        )
    finally:
        stop(proc)


def test_a_judge_behind_llama_cpps_openai_server(tmp_path):
    port = free_port()
    log = open(tmp_path / "server.log", "w+")
    proc = subprocess.Popen(
        [PYTHON, "-m", "llama_cpp.server", "--model", str(smollm2_path()), "--host", "127.0.0.1", "--port", str(port)]
        + ["--n_ctx", "2048", "--n_threads", "2", "--model_alias", "smol"],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        url = f"http://127.0.0.1:{port}/v1"
        wait_for(f"{url}/models", proc)
        judge = Judge(OpenAIModel(url, "smol", timeout=600, concurrent=1), calibrations=str(tmp_path / "cal"))
        assert judge.calibrated is False and judge.model.judge_id() == f"openai:smol@127.0.0.1:{port}/v1"
        found = calibrate(judge, limit=1)
        assert valid(found) and found["judge"] == judge.model.judge_id()
        save(found, tmp_path / "cal")
        again = Judge(OpenAIModel(url, "smol", timeout=600), calibrations=str(tmp_path / "cal"))
        assert again.calibrated is True and again.calibration["a"] == found["a"]
    finally:
        stop(proc)
