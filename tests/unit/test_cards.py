"""cards.py: a card's words, each checked before it is shown (critiques, error types)."""

from sourcecheck.check import score_sentence
from sourcecheck.evidence import Evidence
from sourcecheck.judging.explaining import explain
from sourcecheck.judging.judge import Judge
from sourcecheck.llm.fake import FakeModel


def ev(text, page=3):
    return Evidence("d_1", "paper.pdf", page, text, text, 0.5)


SOURCE = ev("The simulation used 10,000 replications and the HC3 estimator performed best in small samples.")


def test_a_critique_that_says_a_flagged_sentence_holds_or_puts_its_opinion_in_the_sources_mouth_is_replaced():
    from sourcecheck.judging.cards import NOT_FOUND, critique_is_sound

    claim = "The HC3 estimator is clearly the most elegant choice for every application."
    for critique in (
        "Both statements are essentially correct.",
        "The claim accurately describes the excerpt.",
        "The excerpt states that HC3 is the most elegant choice.",
    ):
        assert not critique_is_sound(critique, claim, [SOURCE]), critique
    for critique in (
        "The excerpt says HC3 performed best in small samples, not that it is the most elegant choice.",
        "The first part is correct, but the excerpts say nothing about elegance.",
    ):
        assert critique_is_sound(critique, claim, [SOURCE]), critique
    model = FakeModel()
    model.enqueue(
        {"Yes": 0.1, "No": 0.9},
        "Critique: Both statements are essentially correct.\nError type: unverifiable\nRevised: none",
    )
    judge = Judge(model)  # the claim has no number: nothing to swap, no pass before the critique
    card = explain(judge, score_sentence(judge, claim, [SOURCE]))
    assert card["critique"] == NOT_FOUND and card["error_type"] == "subjective"


def test_subjective_needs_an_opinion_word_else_the_card_says_not_in_your_pdfs():
    """The 1.5B judge types most flagged sentences "subjective"; only an evaluative word makes one an opinion."""
    cards = {}
    for claim in (
        "The study also ran 500 bootstrap replications.",
        "HC3 is the one estimator analysts should always use.",
    ):
        model = FakeModel()
        model.enqueue(
            {"Yes": 0.1, "No": 0.9},
            "Critique: The excerpts do not mention this.\nError type: subjective\nRevised: none",
        )
        judge = Judge(model)  # no number of the source counts what the claim's 500 does: nothing to swap
        cards[claim] = explain(judge, score_sentence(judge, claim, [SOURCE]))["error_type"]
        assert [kind for kind, _ in model.history] == ["choose", "complete"]
    assert list(cards.values()) == ["invented", "subjective"]
