"""A check against a real HTTP OpenAI-compatible server on 127.0.0.1 (a stub that answers after a delay): its
sentences reach the server several at once, and the stream keeps the documented order."""

import json

import pytest
from sourcecheck.serve.services import get_services
from sourcecheck_eval.parallel import StubJudge, run_check, stub_library, stub_pdf
from support import make_client

pytestmark = pytest.mark.integration

CALLS = 13  # 10 sentences scored, 3 critiques written


@pytest.fixture(scope="module")
def stub():
    server = StubJudge(delay=0.1)
    yield server
    server.close()


def documented_order(events):
    """The problems with the event order API.md gives: sentences first; each checkable sentence's verdict, in
    sentence order; then, after all of them, the critique of each one not final, same index, final; summary last."""
    kinds = [e["type"] for e in events]
    checkable = [s["index"] for s in events[0]["sentences"] if s["checkable"]]
    first = events[1 : 1 + len(checkable)]
    pending = [e["index"] for e in first if not e["final"]]
    later = events[1 + len(checkable) : -1]
    problems = []
    if kinds[0] != "sentences" or kinds[-1] != "summary" or set(kinds[1:-1]) != {"verdict"}:
        problems.append(f"kinds {kinds}")
    if [e["index"] for e in first] != checkable:
        problems.append(f"first verdicts {[e['index'] for e in first]}, sentences {checkable}")
    if [(e["index"], e["final"]) for e in later] != [(i, True) for i in pending]:
        problems.append(f"critiques {[(e['index'], e['final']) for e in later]}, pending {pending}")
    return problems


def test_sentences_reach_the_server_at_once_and_come_back_in_order(stub, tmp_path):
    library = stub_library(tmp_path)
    stub.reset()
    alone = run_check(library, stub.url, concurrent=1)
    assert (stub.requests, stub.peak) == (CALLS, 1)
    stub.reset()
    together = run_check(library, stub.url, concurrent=4)
    assert stub.requests == CALLS and 1 < stub.peak <= 4  # bounded by the setting
    assert documented_order(together) == []
    assert sum(not e["final"] for e in together if e["type"] == "verdict") == 3  # the order test is not empty
    strip = [{k: v for k, v in e.items() if k != "elapsed_ms"} for e in alone]
    assert strip == [{k: v for k, v in e.items() if k != "elapsed_ms"} for e in together]


def test_the_server_streams_a_check_judged_at_once(stub, settings, tmp_path):
    from sourcecheck.serve.app import create_app

    app = create_app(
        {**settings, "BACKEND": "openai", "OPENAI_BASE_URL": stub.url, "MODEL": "stub", "JUDGE_CONCURRENCY": 3}
    )
    client = make_client(app)
    pdf = stub_pdf(tmp_path)
    client.post("/api/v1/documents", data={"file": (pdf.open("rb"), pdf.name)}, content_type="multipart/form-data")
    get_services(app).wait_idle()
    stub.reset()
    from sourcecheck_eval.parallel import TEXT

    resp = client.post("/api/v1/check", json={"text": TEXT})
    events = [json.loads(line) for line in resp.data.decode().splitlines()]
    assert documented_order(events) == [], events
    assert 1 < stub.peak <= 3
