"""What llm/llama_cpp.py takes from llama-cpp-python's internals, proven on the pinned version with the real GGUF:
a prompt that shares a prefix with the last one evaluates only its new suffix, and the judge's hidden state
comes from the same pass as P(Yes), cheaply.

Float noise to know about: llama.cpp's CPU kernels give slightly different floats for the same token depending
on how the prompt is cut into batches (one token alone always differs from a batch; measured: P(Yes) moves by
up to ±0.02 over the 116 ways to cut one suffix in two, std 0.010). So a warm pass equals a cold one to the
last bit only when both cut the prompt in the same places: the prompts below share exactly two batches.
Reading the state evaluates the last token alone, so its P(Yes) equals a plain pass that does the same (a
repeated prompt) exactly, and a one-batch pass within that noise.
"""

import numpy as np
import pytest
from sourcecheck.llm.llama_cpp import LlamaCppModel
from support import require_model

pytestmark = [pytest.mark.integration, pytest.mark.model]

PAGE = (
    "To train FAVA we generated a total of 35,074 training instances with GPT-4 and ChatGPT, inserting "
    "errors of six types into passages from Wikipedia. The editor model was fine-tuned from Llama2-Chat 7B "
    "on the synthetic data. On the FAVABench test set it improves over ChatGPT by 9.3 points of F1."
)
CLAIM_A = "FAVA was trained on 35,074 training instances."
CLAIM_B = "FAVA was trained on 350,000 training instances generated with GPT-4 and ChatGPT by its authors."


def messages(sources, claim):
    return [
        {"role": "system", "content": "You check claims against source excerpts."},
        {
            "role": "user",
            "content": f"Source excerpts:\n{sources}\n\nClaim: {claim}\n\nIs the claim supported by "
            "the source excerpts? Answer with one word: Yes or No.",
        },
    ]


def shared_prefix(a, b):
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


@pytest.fixture(scope="module")
def model(request):
    m = LlamaCppModel(require_model(request.config), n_ctx=2048)
    m.load()
    return m


@pytest.fixture(scope="module")
def prompts(model):
    """Messages A and B (same excerpts, B's claim longer) whose shared tokens are exactly two batches;
    returns (a, b, shared, len(tokens of b))."""
    batch = model._llm.n_batch
    for n in range(400):  # pad the excerpts until the claims start right after a batch boundary
        sources = f"[1] fava.pdf p. 2: {PAGE}" + " Results are reported on the test set." * (n // 8) + " data" * (n % 8)
        a, b = messages(sources, CLAIM_A), messages(sources, CLAIM_B)
        tb = model.tokens(b)
        shared = shared_prefix(model.tokens(a), tb[:-1])
        if shared == 2 * batch:
            return a, b, shared, len(tb)
    pytest.fail("no padding puts the claims on a batch boundary")


@pytest.fixture
def evaluated(model, monkeypatch):
    """The number of tokens each call of Llama.eval is given, in order."""
    counts = []
    llama_class = type(model._llm)
    real_eval = llama_class.eval

    def counting_eval(self, tokens):
        counts.append(len(tokens))
        return real_eval(self, tokens)

    monkeypatch.setattr(llama_class, "eval", counting_eval)
    return counts


def forget(model):
    """Drop the cached prompt prefix and any kept context: the next prompt is read in full (a cold pass)."""
    model._llm.reset()
    model._kept.clear()


def p_yes(model, msgs, state=False):
    probs, _, hidden = model.choose(msgs, ("Yes", "No"), state=state)
    return probs["Yes"], hidden


def test_a_longer_prompt_that_shares_a_prefix_evaluates_only_its_new_suffix(model, prompts, evaluated):
    a, b, shared, n_b = prompts
    forget(model)
    model.choose(a, ("Yes", "No"))
    evaluated.clear()
    warm, _ = p_yes(model, b)
    assert sum(evaluated) == n_b - shared  # only the new suffix: 2 batches of 128 tokens were reused
    forget(model)
    evaluated.clear()
    cold, _ = p_yes(model, b)
    assert sum(evaluated) == n_b
    assert warm == pytest.approx(cold, abs=1e-4)


def test_the_hidden_state_comes_from_the_same_pass_as_p_yes(model, prompts, evaluated, capfd):
    a, b, shared, n_b = prompts
    forget(model)
    plain, none = p_yes(model, b)
    assert none is None  # not asked: not read
    evaluated.clear()
    with_state, repeated = p_yes(model, b, state=True)  # the same prompt again: only its last token is evaluated
    assert evaluated[-1] == 1 and sum(evaluated) == 1  # alone, with embeddings on
    again, _ = p_yes(model, b)  # and again without the state: the last token alone, embeddings off
    assert with_state == pytest.approx(again, abs=1e-6)  # reading the state changes no logit
    assert with_state == pytest.approx(plain, abs=0.03)  # against a one-batch pass: batch noise only

    forget(model)
    evaluated.clear()
    cold_p, cold = p_yes(model, b, state=True)
    assert evaluated == [n_b - 1, 1]  # the prompt with embeddings off, then its last token with them on
    assert cold.dtype == np.float32 and cold.shape == (model._llm.n_embd(),) == (1536,)
    assert np.isfinite(cold).all() and np.linalg.norm(cold) > 10  # ~128 for this model (after the output norm)

    forget(model)
    model.choose(a, ("Yes", "No"))
    evaluated.clear()
    warm_p, warm = p_yes(model, b, state=True)
    assert sum(evaluated) == n_b - shared  # the prefix cache is kept when the state is read
    for other in (warm, repeated):
        assert float(cold @ other / np.linalg.norm(cold) / np.linalg.norm(other)) > 0.999
    assert warm_p == pytest.approx(cold_p, abs=1e-4)  # same cuts: 2 batches, the suffix, the last token

    # Embeddings are switched off again: a many-token batch makes only its last token an output. llama.cpp
    # logs "embeddings required but some input tokens were not marked as outputs" when they are left on.
    capfd.readouterr()
    forget(model)
    p_yes(model, a)
    assert "embeddings required" not in capfd.readouterr().err


def test_a_state_on_any_prompt_is_within_batch_noise(model):
    """Unaligned, the split (the last token alone) moves P(Yes) by float noise only."""
    msgs = messages(f"[1] fava.pdf p. 2: {PAGE}", CLAIM_A)
    forget(model)
    plain, _ = p_yes(model, msgs)
    forget(model)
    with_state, hidden = p_yes(model, msgs, state=True)
    print(f"\nunaligned prompt: P(Yes) {plain:.6f} plain, {with_state:.6f} with the state")
    assert with_state == pytest.approx(plain, abs=0.05) and hidden is not None


def test_the_state_costs_one_single_token_pass_and_no_more_tokens(model, prompts, evaluated):
    """The state is read by evaluating the prompt with embeddings off and then its last token alone (with them on,
    llama.cpp would output every token of the batch: 3.6x slower on 2 cores): the same tokens as a plain pass,
    cut once more. Its time is the bench's to measure (scripts/bench), not a test's."""
    a, _, _, _ = prompts
    n = len(model.tokens(a))
    forget(model)
    model.choose(a, ("Yes", "No"))
    plain = list(evaluated)
    evaluated.clear()
    forget(model)
    _, _, hidden = model.choose(a, ("Yes", "No"), state=True)
    assert sum(plain) == sum(evaluated) == n
    assert evaluated[-1] == 1 and len(evaluated) == len(plain) + 1
    assert hidden is not None and hidden.shape == (model._llm.n_embd(),) and np.isfinite(hidden).all()


def test_a_check_interrupted_by_another_resumes_its_context(model, prompts, evaluated):
    """Two checks in two server threads take turns: the second one's prompt would throw away the first one's
    context; it is kept and put back, so the first check's next prompt again reads only its new suffix. One
    thread alone keeps nothing (it would never come back to the old context)."""
    import threading

    a, b, shared, n_b = prompts
    other = messages(
        "[1] bridge.pdf p. 1: " + "The Golden Gate Bridge opened in 1937 and is painted orange. " * 12,
        "The bridge opened in 1937.",
    )

    def in_thread(msgs):
        out = []
        t = threading.Thread(target=lambda: out.append(p_yes(model, msgs)))
        t.start()
        t.join()
        return out[0]

    forget(model)
    cold = in_thread(b)[0]
    forget(model)
    p_yes(model, a)  # check 1 (this thread) reads its evidence
    in_thread(other)  # check 2 takes a turn
    assert len(model._kept) == 1
    evaluated.clear()
    resumed, _ = p_yes(model, b)  # check 1 again: its context is put back
    assert sum(evaluated) == n_b - shared
    assert len(model._kept) == 1  # now check 2's context waits for its next turn
    assert resumed == pytest.approx(cold, abs=0.03)

    forget(model)
    p_yes(model, a)
    p_yes(model, other)  # the same thread: nothing to come back for
    assert not model._kept


def test_the_bench_counts_each_prompt_token_once_in_its_part(model):
    """scripts/bench's TokenCount on the real model: a verify prompt's tokens fall in its parts; a second claim over
    the same excerpts reads only its claim part; the first prompt again re-reads its claim, counted as read again."""
    from sourcecheck.judging.prompting import messages as verify
    from sourcecheck_eval.bench.check import TokenCount

    counts = TokenCount(model)
    try:
        first, second = (verify("verify", sources=f"[1] {PAGE}", claim=c) for c in (CLAIM_A, CLAIM_B))
        model.choose(first, ("Yes", "No"))
        parts = dict(counts["parts"])
        assert set(parts) == {"verify instructions", "verify evidence", "verify claim"}
        assert sum(parts.values()) == counts["prompt"] > 0 and counts["reread"] == 0
        assert parts["verify evidence"] >= len(model._llm.tokenize(PAGE.encode())) - 2
        model.choose(second, ("Yes", "No"))
        grown = {k: v - parts.get(k, 0) for k, v in counts["parts"].items()}
        assert grown["verify instructions"] == grown["verify evidence"] == 0 and grown["verify claim"] > 0
        model.choose(first, ("Yes", "No"))  # its claim was read before after the same prefix
        assert 0 < counts["reread"] <= parts["verify claim"]
    finally:
        del model.tokens, model._llm.eval  # the module's model without the counting wrappers


def test_after_the_warm_up_a_first_check_reads_only_its_excerpts_and_sentence(model):
    """Judge.warm_up (the server runs it at start, with nothing cached) leaves the prompts' opening in the KV cache:
    the first check's first prompt evaluates only the tokens after it; a context a check left is not touched."""
    from sourcecheck.evidence import Evidence
    from sourcecheck.judging.judge import Judge

    judge = Judge(model)
    evidence = [Evidence("d1", "fava.pdf", 2, PAGE, PAGE, 1.0)]
    tokens = model.tokens(judge.verify_messages(CLAIM_A, evidence, evidence))
    opening = model.tokens(judge.verify_messages(CLAIM_A, [], []))
    opening = opening[: shared_prefix(opening, tokens)]  # what every verify prompt opens with
    forget(model)  # a server just started: nothing cached
    used = (model._used_at, model._used_by)
    judge.warm_up()
    cached = list(model._llm.input_ids[: model._llm.n_tokens])
    assert len(opening) > 20 and shared_prefix(cached, tokens) == len(opening)
    assert (model._used_at, model._used_by) == used and not model._kept  # no check's use: none keeps it
    model.choose(messages(f"[1] {PAGE}", CLAIM_A), ("Yes", "No"))  # a check under way
    before = list(model._llm.input_ids[: model._llm.n_tokens])
    judge.warm_up()
    assert list(model._llm.input_ids[: model._llm.n_tokens]) == before  # left alone
