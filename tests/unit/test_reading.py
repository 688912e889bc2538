"""Contradictions found by reading (reading.py): a flagged sentence's value swapped for its source's, verified."""

from sourcecheck.check import score_sentence
from sourcecheck.evidence import Evidence
from sourcecheck.judge import Judge
from sourcecheck.llm.fake import FakeModel
from sourcecheck.reading import find_by_reading, swaps


def ev(text, page=3):
    return Evidence("d_1", "paper.pdf", page, text, text, 0.5)


SOURCE = ev("The simulation used 10,000 replications and the HC3 estimator performed best in small samples.")


def test_a_missing_number_is_paired_with_the_sources_number_of_its_kind_and_nothing_else_is_swapped():
    """Names and direction words are not swapped: on full papers that made true sentences red (docs/quality.md)."""
    found = {
        (s.kind, s.claim_value, s.source_value): s.revised
        for s in swaps(
            "In 2019 the study ran 1,000 replications with the HC0 estimator, which did worse in small samples.",
            [SOURCE],
        )
    }
    assert found == {
        ("count", "1,000", "10,000"): "In 2019 the study ran 10,000 replications with the HC0 "
        "estimator, which did worse in small samples."
    }


def test_values_the_evidence_states_and_numbers_of_other_things_are_not_swapped():
    assert swaps("The simulation used 10,000 replications with the HC3 estimator.", [SOURCE]) == []
    # the source's 10,000 counts replications, not authors: put in the sentence it would only share more words
    assert swaps("The paper has 3 authors.", [SOURCE]) == []


def test_a_swap_that_the_judge_finds_supported_by_a_clear_margin_is_a_conflict():
    candidates = swaps("The study ran 1,000 replications.", [SOURCE])
    assert [s.revised for s in candidates] == ["The study ran 10,000 replications."]
    verify = {"The study ran 10,000 replications.": 0.9}.get
    conflict = find_by_reading(candidates, 0.2, lambda t: verify(t, 0.1), 0.34)
    assert (conflict.kind, conflict.claim_value, conflict.source_value) == ("number", "1,000", "10,000")
    assert conflict.evidence == 0 and conflict.quote == SOURCE.quote
    # a rise too small, or an end below the threshold, is no evidence of a conflict
    assert find_by_reading(candidates, 0.5, lambda t: 0.75, 0.34) is None
    assert find_by_reading(candidates, 0.0, lambda t: 0.3, 0.34) is None


def test_the_judge_marks_a_sentence_red_when_a_swap_reads_supported():
    """The word rules find no conflict (the sentence shares too few words with its source); the model says No to
    the sentence and Yes to it with the source's number: red, both values, the swapped sentence as revision."""
    model = FakeModel()
    model.enqueue({"Yes": 0.05, "No": 0.95}, {"Yes": 0.95, "No": 0.05}, {"Yes": 0.95, "No": 0.05})
    judge = Judge(model)
    claim = "Each of their runs took 1,000 replications."
    score = score_sentence(judge, claim, [SOURCE])
    assert score.label == "contradicted" and score.stances == ["refutes"]
    assert (score.conflict.claim_value, score.conflict.source_value) == ("1,000", "10,000")
    card = judge.explain(score)
    assert card["error_type"] == "entity" and card["revised"] == "Each of their runs took 10,000 replications."
    assert "The sentence says 1,000" in card["critique"]
    assert [m for m, _ in model.history] == ["choose"] * 3  # the sentence, its swap, the revision's check
    assert score_sentence(judge, claim, [SOURCE]).label == "contradicted" and len(model.history) == 3  # cached


def test_a_critique_that_says_a_flagged_sentence_holds_or_puts_its_opinion_in_the_sources_mouth_is_replaced():
    from sourcecheck.cards import NOT_FOUND, critique_is_sound

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
    card = judge.explain(score_sentence(judge, claim, [SOURCE]))
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
        cards[claim] = judge.explain(score_sentence(judge, claim, [SOURCE]))["error_type"]
        assert [kind for kind, _ in model.history] == ["choose", "complete"]
    assert list(cards.values()) == ["invented", "subjective"]
