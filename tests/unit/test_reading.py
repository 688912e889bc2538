"""Contradictions found by reading (reading.py): a flagged sentence's value swapped for its source's, verified."""

from sourcecheck.check import score_sentence
from sourcecheck.conflict.reading import find_by_reading, swaps
from sourcecheck.evidence import Evidence
from sourcecheck.judging.explaining import explain
from sourcecheck.judging.judge import Judge
from sourcecheck.llm.fake import FakeModel


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
    card = explain(judge, score)
    assert card["error_type"] == "entity" and card["revised"] == "Each of their runs took 10,000 replications."
    assert "The sentence says 1,000" in card["critique"]
    assert [m for m, _ in model.history] == ["choose"] * 3  # the sentence, its swap, the revision's check
    assert score_sentence(judge, claim, [SOURCE]).label == "contradicted" and len(model.history) == 3  # cached
