"""The minicheck prompt profile through the openai backend against a real llama.cpp server on 127.0.0.1, serving
SmolLM2-135M (fast; useless as a judge, so only the plumbing is asserted): the prompt MiniCheck expects reaches
the model whole, and its answer comes back as log-probabilities."""

import subprocess

import pytest
from sourcecheck.evidence import Evidence
from sourcecheck.judging.judge import Judge
from sourcecheck.llm.llama_cpp import LlamaCppModel
from sourcecheck.llm.openai_compat import OpenAIModel

from integration.conftest import PYTHON, free_port, stop, wait_for
from integration.test_download import smollm2_path

pytestmark = pytest.mark.integration

SPAN = [Evidence("d", "bridge.pdf", 1, "q", "Its main span is 1,280 meters long.", 0.9)]
CLAIM = "The main span is 1,280 meters long."


@pytest.fixture(scope="module")
def smol_server(tmp_path_factory):
    port = free_port()
    log = open(tmp_path_factory.mktemp("smol") / "server.log", "w+")
    proc = subprocess.Popen(
        [
            PYTHON,
            "-m",
            "llama_cpp.server",
            "--model",
            str(smollm2_path()),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "1024",
            "--n_threads",
            "2",
            "--n_threads_batch",
            "2",
            "--model_alias",
            "smol",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for(f"http://127.0.0.1:{port}/v1/models", proc)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        stop(proc)


def test_the_minicheck_prompt_reaches_the_server_whole_and_p_yes_comes_from_logprobs(smol_server):
    model = OpenAIModel(smol_server, "smol", timeout=120)
    model.profile = "minicheck"
    sent, create = [], model._create

    def recording(messages, **kwargs):  # what p_yes sent, and how many prompt tokens the server counted
        reply = create(messages, **kwargs)
        sent.append((messages, reply.usage.prompt_tokens))
        return reply

    model._create = recording
    p = Judge(model, calibration={"a": 1.0, "b": 0.0}).p_yes(CLAIM, SPAN, SPAN)
    assert 0.0 < p < 1.0  # a probability from top_logprobs, not the 0/1 read from the text
    [(msgs, counted)] = sent
    assert msgs[0]["content"].startswith("Determine whether the provided claim is consistent")
    assert msgs[1]["content"] == f"Document: [1] {SPAN[0].passage}\nClaim: {CLAIM}"
    # The server counted exactly the tokens of this chat in the model's own template: it arrived as built.
    local = LlamaCppModel(smollm2_path(), n_ctx=1024, n_threads=2)
    assert counted == len(local.tokens(msgs))
    assert counted > len(local.tokens(msgs[1:])) + 30  # the system message is part of it
