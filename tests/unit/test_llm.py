"""The backend registry and the choose() contract every transport keeps (the fake's stand-in hidden state)."""

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sourcecheck.llm
from sourcecheck.config import load_settings
from sourcecheck.errors import ModelError
from sourcecheck.llm import BACKENDS, load_model
from sourcecheck.llm.fake import FakeModel

LLM = Path(sourcecheck.llm.__file__).parent


def ask(claim):
    return [
        {"role": "system", "content": "Check claims."},
        {"role": "user", "content": f"Source excerpts:\n[1] The bridge opened in 1937.\n\nClaim: {claim}"},
    ]


def test_every_backend_has_a_lazy_factory():
    assert set(BACKENDS) == {"llama_cpp", "openai", "fake"}
    assert load_model(load_settings({"BACKEND": "fake"})).backend == "fake"
    model = load_model(load_settings({"BACKEND": "llama_cpp", "MODELS_DIR": "/nonexistent"}))
    assert model.backend == "llama_cpp" and not model.loaded() and not model.available()


def test_an_unknown_backend_is_a_config_error_that_lists_the_names():
    with pytest.raises(ModelError) as err:
        load_model(load_settings({"BACKEND": "gpt-5"}))
    assert err.value.code == "config_error"
    assert all(name in err.value.message for name in BACKENDS)


def test_importing_the_registry_loads_no_transport():
    code = (
        "import sys, sourcecheck.llm; "
        "print(sorted(m for m in ('llama_cpp', 'openai', 'sourcecheck.llm.llama_cpp', "
        "'sourcecheck.llm.openai_compat', 'sourcecheck.llm.fake') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_interface_does_not_import_its_implementations():
    tree = ast.parse((LLM / "base.py").read_text())
    names = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    names += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [n for n in names if n and n.startswith("sourcecheck.llm")]


def test_choose_gives_no_state_unless_asked():
    model = FakeModel()
    probs, text, state = model.choose(ask("The bridge opened in 1937."), ("Yes", "No"))
    assert probs["Yes"] > 0.5 and text == "Yes" and state is None


def test_the_fake_state_is_a_small_deterministic_vector_of_the_last_message():
    model = FakeModel()
    _, _, one = model.choose(ask("The bridge opened in 1937."), ("Yes", "No"), state=True)
    _, _, same = FakeModel().choose(ask("The bridge opened in 1937."), ("Yes", "No"), state=True)
    _, _, other = model.choose(ask("The bridge opened in 1938."), ("Yes", "No"), state=True)
    assert one.dtype == np.float32 and one.shape == (FakeModel.state_size,)
    assert np.isfinite(one).all() and np.abs(one).max() <= 1 and np.linalg.norm(one) > 0.5
    assert np.array_equal(one, same) and not np.array_equal(one, other)


def test_enqueued_replies_come_with_a_state_too():
    model = FakeModel()
    model.enqueue({"Yes": 0.3, "No": 0.7}, "Yes")
    probs, text, state = model.choose(ask("x"), ("Yes", "No"), state=True)
    assert probs == {"Yes": 0.3, "No": 0.7} and text == "No" and state.shape == (FakeModel.state_size,)
    probs, text, state = model.choose(ask("x"), ("Yes", "No"))
    assert probs is None and text == "Yes" and state is None


def test_which_backends_can_read_a_state():
    from sourcecheck.llm.llama_cpp import LlamaCppModel
    from sourcecheck.llm.openai_compat import OpenAIModel

    assert FakeModel.reads_state and LlamaCppModel.reads_state and not OpenAIModel.reads_state


def test_a_warm_up_reads_the_verify_prompts_opening_ahead_where_the_backend_keeps_it():
    from sourcecheck.judging.judge import Judge

    class Keeping(FakeModel):  # stands in for llama.cpp, whose read_ahead the real-GGUF test covers
        def read_ahead(self, messages):
            self.history.append(("read_ahead", messages))

    plain = FakeModel()
    Judge(plain).warm_up()
    assert plain.history == []  # the fake, like a remote API, keeps no prefix: nothing read
    model = Keeping()
    judge = Judge(model)
    judge.warm_up()
    ((kind, sent),) = model.history
    check = judge.verify_messages("The bridge is orange.", [], [])
    opening = check[-1]["content"][: check[-1]["content"].index("(none found)")]
    assert kind == "read_ahead" and sent[0] == check[0] and sent[-1]["content"].startswith(opening)


def test_checks_taking_turns_get_their_context_back_even_when_more_than_are_kept(monkeypatch):
    """_ready_for with llama.cpp's state calls stood in for: five checks (more than KEEP_CONTEXTS) take turns, each
    in its own thread. Nothing fails, at most KEEP_CONTEXTS copies are held, and a check whose copy is still kept
    gets it back instead of reading its prompt again."""
    import threading

    import llama_cpp
    import numpy as np
    from sourcecheck.llm import llama_cpp as module

    class Context:
        ctx = object()

    class FakeLlama:  # what _ready_for reads: the token ids of the context and how many are evaluated
        def __init__(self):
            self.input_ids, self.n_tokens, self._ctx = np.zeros(4096, dtype=np.intc), 0, Context()

    llm = FakeLlama()
    saved = {}
    monkeypatch.setattr(llama_cpp, "llama_state_seq_get_size", lambda ctx, seq: 8, raising=False)

    def get_data(ctx, dst, size, seq):
        dst[0] = len(saved) % 256
        saved[id(dst)] = llm.input_ids[: llm.n_tokens].copy()
        return size

    def set_data(ctx, src, size, seq):
        return size

    monkeypatch.setattr(llama_cpp, "llama_state_seq_get_data", get_data, raising=False)
    monkeypatch.setattr(llama_cpp, "llama_state_seq_set_data", set_data, raising=False)
    monkeypatch.setattr(llama_cpp, "llama_get_memory", lambda ctx: None, raising=False)
    monkeypatch.setattr(llama_cpp, "llama_memory_seq_rm", lambda *a: True, raising=False)
    model = module.LlamaCppModel("none.gguf")
    model._llm = llm
    prompts = [[1000 * (u + 1) + i for i in range(300)] for u in range(5)]
    restored = []

    def turn(user, k):
        tokens = prompts[user] + [7, 8, 9, k]  # the check's evidence block, then this sentence's claim
        model._ready_for(tokens)
        restored.append(module._common(llm.input_ids[: llm.n_tokens], tokens) >= 300)  # its block is in place
        llm.input_ids[: len(tokens)], llm.n_tokens = tokens, len(tokens)  # "evaluated"

    import queue

    # one long-lived thread per user, as the server's worker threads are (a finished thread's id can be reused)
    asks, done = [queue.Queue() for _ in range(5)], queue.Queue()

    def user_thread(user):
        while (k := asks[user].get()) is not None:
            turn(user, k)
            done.put(user)

    threads = [threading.Thread(target=user_thread, args=(u,), daemon=True) for u in range(5)]
    for t in threads:
        t.start()
    for k in range(3):
        for user in range(5):
            asks[user].put(k)
            assert done.get(timeout=10) == user
            assert len(model._kept) <= module.KEEP_CONTEXTS
    for q in asks:
        q.put(None)
    assert not any(restored[:5])  # first turns: nothing to come back to
    assert sum(restored[5:]) >= 5  # later turns found their context kept at least half the time


def test_the_fake_keeps_only_its_latest_calls():
    from sourcecheck.llm import fake

    model = fake.FakeModel()
    messages = [{"role": "user", "content": "Claim: x\nExcerpts: y"}]
    for _ in range(3 * fake.HISTORY):
        model.choose(messages, ["Yes", "No"])
    assert fake.HISTORY <= len(model.history) <= 2 * fake.HISTORY
    model.complete(messages)
    assert model.history[-1][0] == "complete"
