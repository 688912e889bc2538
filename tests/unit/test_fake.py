"""llm/fake.py: the test model. Enqueued replies first, else a deterministic word-overlap guess; every call kept."""

import threading

import numpy as np
import pytest
from sourcecheck.errors import ModelError
from sourcecheck.llm import fake
from sourcecheck.llm.fake import FakeModel

BRIDGE = "[1] The bridge opened in 1937."
TWO = BRIDGE + "\n[2] To train FAVA we generated 35,074 training instances."


def ask(claim, sources=BRIDGE):
    return [
        {"role": "system", "content": "Check claims."},
        {"role": "user", "content": f"Source excerpts:\n{sources}\n\nClaim: {claim}"},
    ]


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


def test_the_state_depends_on_the_last_message_only():
    model = FakeModel()
    one = model.state_of(ask("The bridge opened in 1937."))
    other_system = [{"role": "system", "content": "Another system prompt."}, ask("The bridge opened in 1937.")[-1]]
    assert np.array_equal(one, model.state_of(other_system))


def test_enqueued_replies_come_with_a_state_too():
    model = FakeModel()
    model.enqueue({"Yes": 0.3, "No": 0.7}, "Yes")
    probs, text, state = model.choose(ask("x"), ("Yes", "No"), state=True)
    assert probs == {"Yes": 0.3, "No": 0.7} and text == "No" and state.shape == (FakeModel.state_size,)
    probs, text, state = model.choose(ask("x"), ("Yes", "No"))
    assert probs is None and text == "Yes" and state is None


@pytest.mark.parametrize(
    "claim, p_yes, answer",
    [
        ("The bridge opened in 1937.", 0.9, "Yes"),  # its words and its number are in the sources
        ("The bridge opened in 1938.", 0.1, "No"),  # the words match, the number does not
        ("Tourists love walking there at night.", 0.1, "No"),  # the sources do not speak of it
    ],
)
def test_without_replies_choose_guesses_from_the_claims_words_and_numbers(claim, p_yes, answer):
    probs, text, _ = FakeModel().choose(ask(claim), ("Yes", "No"))
    assert probs == pytest.approx({"Yes": p_yes, "No": 1 - p_yes}) and text == answer


def test_without_replies_a_critique_revises_a_wrong_number_to_the_one_of_the_excerpt_most_like_the_claim():
    reply = FakeModel().complete(ask("To train FAVA we generated 350,000 training instances.", TWO))
    assert reply.splitlines() == [
        "Critique: The sources give a different number than the claim.",
        "Error type: entity",
        "Revised: To train FAVA we generated 35,074 training instances.",  # written as the excerpt writes it
    ]


def test_without_replies_a_critique_of_a_claim_the_sources_do_not_speak_of_offers_no_revision():
    reply = FakeModel().complete(ask("Tourists love walking there at night."))
    assert reply.splitlines()[1:] == ["Error type: unverifiable", "Revised: none"]


def test_enqueued_replies_are_given_in_order_to_either_method_and_errors_are_raised():
    model = FakeModel()
    model.enqueue("A critique.", ModelError("down", code="model_error"), {"Yes": 0.2, "No": 0.8})
    assert model.complete(ask("x")) == "A critique."
    with pytest.raises(ModelError):
        model.choose(ask("x"), ("Yes", "No"))
    assert model.choose(ask("x"), ("Yes", "No"))[1] == "No"
    model.enqueue(RuntimeError("cut"))
    with pytest.raises(RuntimeError):
        model.complete(ask("x"))
    assert model.queue == [] and [kind for kind, _ in model.history] == ["complete", "choose", "choose", "complete"]


def test_the_history_holds_each_calls_messages():
    model = FakeModel()
    first, second = ask("The bridge opened in 1937."), ask("The bridge is orange.")
    model.choose(first, ("Yes", "No"))
    model.complete(second, max_tokens=5)
    assert model.history == [("choose", first), ("complete", second)]


def test_threads_take_each_enqueued_reply_once():
    model = FakeModel(concurrent=4)
    model.enqueue(*(f"reply {i}" for i in range(400)))
    got = [[] for _ in range(4)]

    def take(out):
        for _ in range(100):
            out.append(model.complete(ask("x")))

    threads = [threading.Thread(target=take, args=(out,)) for out in got]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    taken = [r for out in got for r in out]
    assert sorted(taken) == sorted(f"reply {i}" for i in range(400)) and model.queue == []
    assert len(model.history) == 400


def test_the_fake_keeps_only_its_latest_calls():
    model = fake.FakeModel()
    messages = [{"role": "user", "content": "Claim: x\nExcerpts: y"}]
    for _ in range(3 * fake.HISTORY):
        model.choose(messages, ["Yes", "No"])
    assert fake.HISTORY <= len(model.history) <= 2 * fake.HISTORY
    model.complete(messages)
    assert model.history[-1][0] == "complete"


@pytest.mark.parametrize(
    "claim, excerpt",
    [
        (
            "The team trained the model on three training sets of papers.",
            "The team trained the model on 4 training sets of papers.",
        ),
        (
            "The team trained the model on 20,000 training sets of papers.",
            "The team trained the model on 35k training sets of papers.",
        ),
    ],
)
def test_a_number_written_as_a_word_gets_no_made_up_revision(claim, excerpt):
    """The fake's own critique (nothing queued) named a wrong number it could not find as digits: StopIteration."""
    reply = FakeModel().complete([{"role": "user", "content": f"Source excerpts:\n[1] {excerpt}\n\nClaim: {claim}"}])
    assert "different number" in reply and reply.endswith("Revised: none")
