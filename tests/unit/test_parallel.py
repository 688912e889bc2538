"""A model that takes several calls at once (a remote server) scores a check's sentences concurrently."""

import threading

import pytest
from sourcecheck.check import check_text
from sourcecheck.errors import ModelError
from sourcecheck.judging.judge import Judge
from sourcecheck.library import Library
from sourcecheck.library.embeddings import HashEmbedding
from sourcecheck.llm.fake import FakeModel

# 8 sentences: supported, contradicted (a conflict: no model critique) and 3 unsupported (model critiques)
TEXT = (
    "The Golden Gate Bridge opened to traffic on May 27, 1937. Its main span is 2,000 meters long. "
    "The bridge was the first one painted by robots. The bridge is painted International Orange. "
    "The colour was chosen by consulting architect Irving Morrow. The bridge is made entirely of recycled glass. "
    "Its main span is 1,280 meters long. The bridge was designed by a committee of poets."
)
WAIT_S = 10  # a gate that never opens fails the test after this long; it opens at once when the calls overlap


@pytest.fixture
def library(bridge_pdf):
    lib = Library(None, HashEmbedding())
    doc, _ = lib.add_pdf(bridge_pdf.read_bytes(), bridge_pdf.name)
    lib.ingest(doc["id"])
    return lib


def judge(model):
    return Judge(model, calibration={"a": 1.0, "b": 0.0})  # raw scores


def plain(events):
    return [{k: v for k, v in e.items() if k != "elapsed_ms"} for e in events]


class Gated(FakeModel):
    """Calls of the gated kinds wait until `together` of them are inside at once: sequential calls never get
    through (the first fails after WAIT_S), overlapping ones pass as soon as they overlap."""

    def __init__(self, together, gated=("choose",)):
        super().__init__(concurrent=together)
        self.together, self.gated = together, gated
        self.inside = self.peak = 0
        self.cond = threading.Condition()

    def _through(self, kind, call):
        if kind not in self.gated:
            return call()
        with self.cond:
            self.inside += 1
            self.peak = max(self.peak, self.inside)
            self.cond.notify_all()
            if not self.cond.wait_for(lambda: self.peak >= self.together, timeout=WAIT_S):
                raise AssertionError(f"{kind}: only {self.peak} calls at once, never {self.together}")
        try:
            return call()
        finally:
            with self.cond:
                self.inside -= 1

    def choose(self, messages, choices, state=False):
        return self._through("choose", lambda: super(Gated, self).choose(messages, choices, state))

    def complete(self, messages, max_tokens=200):
        return self._through("complete", lambda: super(Gated, self).complete(messages, max_tokens))


def test_sentences_are_scored_at_once_and_the_events_are_those_of_one_at_a_time(library):
    alone = plain(check_text(TEXT, library, judge(FakeModel())))
    model = Gated(4)
    together = plain(check_text(TEXT, library, judge(model)))
    assert model.peak >= 4
    assert together == alone  # same verdicts, same order: the stream does not show how it was computed
    kinds = [(e["type"], e.get("index"), e.get("final")) for e in together]
    first, rest = kinds[1:9], kinds[9:-1]
    assert kinds[0][0] == "sentences" and kinds[-1][0] == "summary"
    assert [i for _, i, _ in first] == list(range(8))  # every sentence's first verdict, in sentence order
    # then the critiques of those not final, in the same order (the conflict and the three unsupported)
    assert rest == [("verdict", i, True) for _, i, final in first if not final] and len(rest) == 4


def test_critiques_are_written_at_once_too(library):
    model = Gated(3, gated=("complete",))  # the three unsupported sentences' critiques
    events = list(check_text(TEXT, library, judge(model)))
    assert model.peak == 3
    critiqued = [e["index"] for e in events if e["type"] == "verdict" and e["final"] and e["label"] == "unsupported"]
    assert critiqued == [2, 5, 7]


class Held(FakeModel):
    """The first call answers; every later one waits inside the model until `release` is set."""

    def __init__(self, concurrent):
        super().__init__(concurrent=concurrent)
        self.release = threading.Event()
        self.waiting = 0
        self.cond = threading.Condition()

    def choose(self, messages, choices, state=False):
        if self.history:  # not the first call
            with self.cond:
                self.waiting += 1
                self.cond.notify_all()
            self.release.wait(WAIT_S)
            with self.cond:
                self.waiting -= 1
                self.cond.notify_all()
        return super().choose(messages, choices, state)


def test_closing_the_stream_cancels_the_calls_not_started(library):
    model = Held(concurrent=3)
    events = check_text(TEXT, library, judge(model))
    assert next(events)["type"] == "sentences"
    assert next(events)["index"] == 0
    with model.cond:  # the first call's worker took the 4th sentence: 3 calls are in flight
        assert model.cond.wait_for(lambda: model.waiting == 3, timeout=WAIT_S)
    events.close()  # the client left
    model.release.set()
    with model.cond:
        assert model.cond.wait_for(lambda: model.waiting == 0, timeout=WAIT_S)
    threads = [t for t in threading.enumerate() if t.name.startswith("judge")]
    for t in threads:
        t.join(WAIT_S)
    assert not any(t.is_alive() for t in threads)  # no thread is left waiting for work nobody reads
    assert len(model.history) == 4  # the one read and the 3 in flight; the other 4 sentences never reach the model


class FailsOn(FakeModel):
    """Cannot reach the server for the claim that holds `word`."""

    def __init__(self, word, concurrent=1):
        super().__init__(concurrent=concurrent)
        self.word = word

    def choose(self, messages, choices, state=False):
        if self.word in messages[-1]["content"].rsplit("Claim:", 1)[-1]:
            raise ModelError("Cannot reach the server.", code="model_unreachable")
        return super().choose(messages, choices, state)


@pytest.mark.parametrize("concurrent", [1, 4])
def test_a_model_error_ends_the_stream_after_the_verdicts_before_it(library, concurrent):
    events, got = check_text(TEXT, library, judge(FailsOn("Irving", concurrent))), []
    with pytest.raises(ModelError) as err:
        for event in events:
            got.append(event)
    assert err.value.code == "model_unreachable"
    assert [e["type"] for e in got] == ["sentences"] + ["verdict"] * 4  # sentence 4 names Irving Morrow
    assert [e["index"] for e in got[1:]] == [0, 1, 2, 3]


def test_only_a_remote_backend_takes_calls_at_once():
    from sourcecheck.config import load_settings
    from sourcecheck.llm import load_model
    from sourcecheck.llm.llama_cpp import LlamaCppModel

    remote = load_model(
        load_settings(
            {"BACKEND": "openai", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "JUDGE_CONCURRENCY": 6}, environ={}
        )
    )
    assert remote.concurrent == 6
    assert load_model(load_settings({"BACKEND": "fake"}, environ={})).concurrent == 1
    assert LlamaCppModel("missing.gguf").concurrent == 1  # one model on every core, its KV prefix reused in order
