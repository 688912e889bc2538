"""llm/llama_cpp.py without a real model: llama-cpp-python's Llama stood in for, to count the tokens each call
evaluates and check what choose() makes of the logits; a missing or damaged GGUF is a clear error.
tests/integration/test_llama_cpp.py proves the same on the real GGUF."""

import ctypes
import math
import queue
import re
import threading
from types import SimpleNamespace

import llama_cpp
import numpy as np
import pytest
from sourcecheck.errors import ModelError
from sourcecheck.llm import llama_cpp as module
from sourcecheck.llm.llama_cpp import IN_USE_S, LlamaCppModel, _common

VOCAB = {"Yes": 1, "yes": 2, " Yes": 3, " yes": 4, "No": 5, "no": 6, " No": 7, " no": 8}
N_VOCAB = 64


class Context:
    def __init__(self, logits):
        self.ctx = object()
        self.logits = (ctypes.c_float * N_VOCAB)(*logits)

    def get_logits_ith(self, i):
        return ctypes.cast(self.logits, ctypes.POINTER(ctypes.c_float))


class FakeLlama:
    """What LlamaCppModel reads of llama_cpp.Llama: token ids, how many are evaluated, the last logits. Each word
    (with its leading space) is one token; eval() records how many tokens each call reads."""

    def __init__(self, logits=(0.0,) * N_VOCAB):
        self.input_ids, self.n_tokens, self._ctx = np.zeros(4096, dtype=np.intc), 0, Context(logits)
        self.evaluated = []

    @property
    def _input_ids(self):
        return self.input_ids[: self.n_tokens]

    def tokenize(self, text, add_bos=False, special=False):
        return [VOCAB.get(w, 9 + sum(w.encode()) % (N_VOCAB - 9)) for w in re.findall(r" ?\S+", text.decode())]

    def eval(self, tokens):
        self.evaluated.append(len(tokens))
        self.input_ids[self.n_tokens : self.n_tokens + len(tokens)] = tokens
        self.n_tokens += len(tokens)

    def n_vocab(self):
        return N_VOCAB

    def create_chat_completion(self, messages, max_tokens, temperature):
        self.completed = (messages, max_tokens, temperature)
        return {"choices": [{"message": {"content": None}}]}


def loaded(llm, n_ctx=4096):
    """A LlamaCppModel that has llm loaded, its chat template the messages' contents joined."""
    model = LlamaCppModel("none.gguf", n_ctx=n_ctx)
    model._llm = llm
    model._formatter = lambda messages: SimpleNamespace(prompt=" ".join(m["content"] for m in messages))
    return model


def ask(claim):
    return [{"role": "user", "content": f"Source excerpts: [1] The bridge opened in 1937. Claim: {claim} Answer:"}]


def test_checks_taking_turns_get_their_context_back_even_when_more_than_are_kept(monkeypatch):
    """_ready_for with llama.cpp's state calls stood in for: five checks (more than KEEP_CONTEXTS) take turns, each
    in its own thread. Nothing fails, at most KEEP_CONTEXTS copies are held, and a check whose copy is still kept
    gets it back instead of reading its prompt again."""
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


def test_damaged_gguf_is_model_corrupt(tmp_path):
    path = tmp_path / "broken.gguf"
    path.write_bytes(b"GGUF" + b"\x00" * 4096)
    model = LlamaCppModel(path)
    assert model.available() and not model.loaded()
    with pytest.raises(ModelError) as err:
        model.prepare()
    assert err.value.code == "model_corrupt" and "scripts/setup" in err.value.message


def test_missing_gguf_is_model_missing(tmp_path):
    model = LlamaCppModel(tmp_path / "nope.gguf")
    assert not model.available()
    with pytest.raises(ModelError) as err:
        model.prepare()
    assert err.value.code == "model_missing"


def test_a_new_model_is_named_after_its_file_and_loads_nothing(tmp_path):
    model = LlamaCppModel(tmp_path / "qwen-1.5b.Q4.gguf", n_ctx=2048, n_threads=3)
    assert (model.name, model.n_ctx, model.n_threads) == ("qwen-1.5b.Q4", 2048, 3)
    assert model.judge_id() == "llama_cpp:qwen-1.5b.Q4" and not model.loaded()
    assert LlamaCppModel("a.gguf").n_threads >= 1  # 0: every core


@pytest.mark.parametrize(
    "ids, tokens, common",
    [([1, 2, 3, 4], [1, 2, 9], 2), ([1, 2], [1, 2, 3], 2), ([5], [1], 0), ([], [1, 2], 0), ([1, 2, 3], [1, 2, 3], 3)],
)
def test_common_is_the_length_of_the_shared_prefix(ids, tokens, common):
    assert _common(np.asarray(ids, dtype=np.intc), tokens) == _common(ids, tokens) == common


def test_choose_sums_every_spelling_of_each_choice_and_normalises_over_the_choices():
    logits = [0.0] * N_VOCAB
    logits[VOCAB["Yes"]], logits[VOCAB[" Yes"]] = math.log(6), math.log(2)  # the other 62 tokens: e^0 = 1 each
    model = loaded(FakeLlama(logits))
    probs, text, state = model.choose(ask("The bridge opened in 1937."), ("Yes", "No"))
    # Yes: 6 + 1 + 2 + 1 (Yes, yes, " Yes", " yes"); No: 1 + 1 + 1 + 1
    assert probs == pytest.approx({"Yes": 10 / 14, "No": 4 / 14}) and text == "Yes" and state is None


def test_a_prompt_that_shares_a_prefix_with_the_last_one_evaluates_only_what_follows_it():
    llm = FakeLlama()
    model = loaded(llm)
    first = model.tokens(ask("The bridge opened in 1937."))
    model.choose(ask("The bridge opened in 1937."), ("Yes", "No"))
    assert llm.evaluated == [len(first)]
    model.choose(ask("The bridge opened in 1937."), ("Yes", "No"))  # the same again: its last token alone
    model.choose(ask("The bridge opened in 1938 and is orange."), ("Yes", "No"))
    second = model.tokens(ask("The bridge opened in 1938 and is orange."))
    assert llm.evaluated[1:] == [1, len(second) - _common(first, second)]
    assert list(llm.input_ids[: llm.n_tokens]) == second


def test_a_prompt_longer_than_the_context_is_refused_before_it_is_read():
    llm = FakeLlama()
    model = loaded(llm, n_ctx=8)
    with pytest.raises(ModelError) as err:
        model.choose(ask("The bridge opened in 1937."), ("Yes", "No"))
    assert err.value.code == "prompt_too_long" and "context of 8" in err.value.message
    assert llm.evaluated == []


def test_complete_keeps_room_for_its_reply_and_gives_an_empty_reply_as_empty_text():
    llm = FakeLlama()
    msgs = ask("The bridge opened in 1937.")
    n = len(loaded(llm).tokens(msgs))
    assert loaded(llm, n_ctx=n + 50).complete(msgs, max_tokens=50) == ""
    assert llm.completed == (msgs, 50, 0.0)  # greedy
    with pytest.raises(ModelError) as err:
        loaded(llm, n_ctx=n + 50).complete(msgs, max_tokens=51)
    assert err.value.code == "prompt_too_long"


def test_read_ahead_reads_a_prompt_only_when_nothing_is_cached_and_is_no_checks_use():
    llm = FakeLlama()
    model = loaded(llm)
    used = (model._used_at, model._used_by)
    model.read_ahead(ask("Warm-up."))
    assert llm.evaluated == [len(model.tokens(ask("Warm-up.")))] and (model._used_at, model._used_by) == used
    model.read_ahead(ask("Another warm-up."))  # something is cached: a check may be under way
    assert len(llm.evaluated) == 1


def test_count_tokens_uses_the_models_tokenizer():
    assert loaded(FakeLlama()).count_tokens("The bridge opened") == 3


def test_first_tokens_are_those_of_each_spelling():
    model = loaded(FakeLlama())
    assert model._first_tokens("Yes") == {1, 2, 3, 4}
    assert model._first_tokens("yes") == {2, 4}  # lower case is one spelling: two ids


def test_kept_contexts_nobody_came_back_for_are_dropped():
    model = LlamaCppModel("none.gguf")
    ids, data = np.arange(100, dtype=np.intc), (ctypes.c_uint8 * 8)()
    model._kept.update({1: (ids, data, 1000.0), 2: (ids, data, 1000.0 + IN_USE_S)})
    model._prune(now=1001.0 + IN_USE_S)
    assert list(model._kept) == [2]
