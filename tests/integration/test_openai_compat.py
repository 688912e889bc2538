"""The openai client against real OpenAI-compatible servers on 127.0.0.1: llama.cpp's, and broken ones."""

import http.server
import subprocess
import threading
import time

import pytest
from sourcecheck.errors import ModelError
from sourcecheck.evidence import Evidence
from sourcecheck.judging.explaining import critique
from sourcecheck.judging.judge import Judge
from sourcecheck.llm.openai_compat import OpenAIModel

from integration.conftest import PYTHON, free_port, stop, wait_for

pytestmark = pytest.mark.integration

SPAN = [Evidence("d", "bridge.pdf", 1, "q", "Its main span is 1,280 meters long.", 0.9)]


@pytest.fixture(scope="module")
def llama_server(real_model_path_module, tmp_path_factory):
    port = free_port()
    log = open(tmp_path_factory.mktemp("llama") / "server.log", "w+")  # a pipe nobody reads would fill and block
    proc = subprocess.Popen(
        [
            PYTHON,
            "-m",
            "llama_cpp.server",
            "--model",
            str(real_model_path_module),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "2048",
            "--n_threads",
            "2",
            "--n_threads_batch",
            "2",
            "--model_alias",
            "qwen",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for(f"http://127.0.0.1:{port}/v1/models", proc)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def real_model_path_module(request):
    from support import require_model

    return require_model(request.config)


@pytest.mark.model
def test_judge_through_llama_cpp_server(llama_server):
    judge = Judge(OpenAIModel(llama_server, "qwen", timeout=600), calibration={"a": 1.0, "b": 0.0})
    right = judge.p_yes("The main span is 1,280 meters long.", SPAN, SPAN)
    wrong = judge.p_yes("The main span is 2,000 meters long.", SPAN, SPAN)
    assert right > 0.5 > wrong
    found = critique(judge, "The main span is 2,000 meters long.", SPAN, SPAN)
    assert found["critique"] and found["error_type"]


def serve(handler_body, delay=0.0, status=200, content_type="application/json"):
    """A one-route HTTP server that answers every POST with the given body."""

    class Handler(http.server.BaseHTTPRequestHandler):
        seen = []

        def do_POST(self):
            Handler.seen.append({k.lower(): v for k, v in self.headers.items()})
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            time.sleep(delay)
            body = handler_body.encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, Handler, f"http://127.0.0.1:{server.server_address[1]}/v1"


def test_unreachable_server_is_a_clear_error():
    model = OpenAIModel(f"http://127.0.0.1:{free_port()}/v1", "m")
    with pytest.raises(ModelError) as err:
        model.complete([{"role": "user", "content": "hi"}])
    assert err.value.code == "model_unreachable" and "running" in err.value.message


def test_slow_server_times_out():
    server, _, url = serve('{"choices": []}', delay=3)
    try:
        with pytest.raises(ModelError) as err:
            OpenAIModel(url, "m", timeout=0.5).complete([{"role": "user", "content": "hi"}])
        assert err.value.code == "model_timeout"
    finally:
        server.shutdown()


@pytest.mark.parametrize(
    "body, content_type", [("<html>hello</html>", "text/html"), ('{"nothing": 1}', "application/json")]
)
def test_garbage_is_a_clear_error(body, content_type):
    server, _, url = serve(body, content_type=content_type)
    try:
        with pytest.raises(ModelError) as err:
            OpenAIModel(url, "m").complete([{"role": "user", "content": "hi"}])
        assert err.value.code == "model_bad_response"
    finally:
        server.shutdown()


def test_http_error_status_is_reported():
    server, _, url = serve('{"error": {"message": "model not found"}}', status=404)
    try:
        with pytest.raises(ModelError) as err:
            OpenAIModel(url, "m").complete([{"role": "user", "content": "hi"}])
        assert err.value.code == "model_error" and "404" in err.value.message
    finally:
        server.shutdown()


def test_a_prompt_longer_than_the_served_context_is_the_local_backends_error():
    body = '{"error": {"message": "This model\'s maximum context length is 2048 tokens. However, you requested 2192."}}'
    server, _, url = serve(body, status=400)
    try:
        with pytest.raises(ModelError) as err:
            OpenAIModel(url, "m").complete([{"role": "user", "content": "hi"}])
        assert err.value.code == "prompt_too_long" and "2048" in err.value.message
    finally:
        server.shutdown()


def test_custom_server_never_gets_the_openai_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-for-openai-only")
    reply = (
        '{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,'
        '"message":{"role":"assistant","content":"Yes"},"finish_reason":"stop"}]}'
    )
    server, handler, url = serve(reply)
    try:
        probs, text, state = OpenAIModel(url, "m").choose(
            [{"role": "user", "content": "hi"}], ("Yes", "No"), state=True
        )
        assert probs is None and text == "Yes"  # no logprobs in the reply: the caller parses the text
        assert state is None  # an API has no hidden state, even when asked
        assert "sk-secret-for-openai-only" not in str(handler.seen[-1])
        OpenAIModel(url, "m", api_key="given-key").complete([{"role": "user", "content": "hi"}])
        assert handler.seen[-1]["authorization"] == "Bearer given-key"
    finally:
        server.shutdown()
