"""judging/explaining.py: a scored sentence's card. A settled one's from the data; a flagged one's from its conflict,
else from the model's critique; a revision kept only if it changes the sentence, conflicts with nothing and checks
out (one more pass)."""

import pytest
from sourcecheck.check import score_sentence
from sourcecheck.evidence import Evidence
from sourcecheck.judging import explaining
from sourcecheck.judging.cards import CONTRADICTING, ERROR_TYPES
from sourcecheck.judging.explaining import explain, revision_fault
from sourcecheck.judging.judge import Judge
from sourcecheck.judging.verdict import Score
from sourcecheck.llm.fake import FakeModel

IDENTITY = {"a": 1.0, "b": 0.0}  # raw scores
SPAN = "The main span is 1,280 meters long."


def ev(passage, page=1):
    return Evidence("d_1", "a.pdf", page, passage, passage, 0.5)


def verdict(judge, claim, evidence):
    """score_sentence(), explain(): a sentence's label, p_supported and card, as a check's last verdict has them."""
    score = score_sentence(judge, claim, evidence)
    return {"label": score.label, "p_supported": score.p_supported, **explain(judge, score)}


def scored(claim, evidence, label):
    """A Score as the check hands it to explain(), without scoring it."""
    return Score(claim, evidence, evidence[::-1], 0.2, 0.2, None, label, ["related"] * len(evidence))


def test_supported_verdict_needs_no_critique():
    model = FakeModel()
    model.enqueue({"Yes": 0.9, "No": 0.1})
    evidence = [ev("best", 3), ev("other", 2)]  # most relevant first
    judge = Judge(model, calibration=IDENTITY)
    v = verdict(judge, "The span is long.", evidence)
    assert v["label"] == "supported" and v["error_type"] is None and v["revised"] is None
    assert "page 3" in v["critique"]
    assert score_sentence(judge, "The span is long.", evidence).stances == [
        "supports",
        "related",
    ]  # the best one supports
    assert len(model.history) == 1  # the score was kept


@pytest.mark.parametrize(
    "claim, error_type, critique, revised",
    [
        (
            "The main span is 2,000 meters long.",
            "entity",
            "The sentence says 2,000; a.pdf, page 1 says 1,280: “The main span is 1,280 meters long.”",
            "The main span is 1,280 meters long.",
        ),
        (
            "The main span is not 1,280 meters long.",
            "contradictory",
            "a.pdf, page 1 says the opposite: “The main span is 1,280 meters long.” "
            "No revision offered: the sentence needs rewording, not one word put in place of another.",
            None,
        ),
    ],
)
def test_a_conflict_is_red_and_stated_from_the_data(claim, error_type, critique, revised):
    model = FakeModel()
    model.enqueue({"Yes": 0.2, "No": 0.8}, {"Yes": 0.9, "No": 0.1})  # the sentence, then the revision
    evidence = [ev("The main span is 1,280 meters long.")]
    judge = Judge(model, calibration=IDENTITY)
    v = verdict(judge, claim, evidence)
    assert (v["label"], v["error_type"], v["critique"], v["revised"]) == ("contradicted", error_type, critique, revised)
    assert score_sentence(judge, claim, evidence).stances == ["refutes"]
    assert [kind for kind, _ in model.history] == ["choose"] * (1 + bool(revised))  # no text generated


HOURS = "To limit fatigue, annotators were restricted to 3 hours a day."
WARD = "Pain scores were measured after the surgery in the ward."


@pytest.mark.parametrize(
    "claim, page, answer, revised, reason",
    [
        (
            "Annotators were restricted to 5 hours a day.",
            HOURS,
            0.9,
            "Annotators were restricted to 3 hours a day.",
            "",
        ),
        (
            "Annotators were restricted to 5 hours a day.",
            HOURS,
            0.2,
            None,
            " No revision offered: the sentence with page 3's value (3) did not check out against your PDFs.",
        ),
        # "before" and "after" are stopwords, as one-digit values are no content words
        ("Pain scores were measured before the surgery in the ward.", WARD, 0.9, WARD, ""),
    ],
)
def test_a_red_card_offers_the_sources_value_verified_by_the_judge_or_says_why_none(
    claim, page, answer, revised, reason
):
    """Issue 36: "restricted to 5 hours" was red beside page 3's "3 hours" with no revision and no word why: the
    corrected sentence had the same content words, so it was refused as unchanged, unread."""
    model = FakeModel()
    model.enqueue({"Yes": 0.1, "No": 0.9}, {"Yes": answer, "No": 1 - answer})  # the sentence, then its revision
    v = verdict(Judge(model, calibration=IDENTITY), claim, [ev(page, page=3)])
    assert v["label"] == "contradicted" and v["revised"] == revised
    assert v["critique"].endswith(f"“{page}”" + reason)  # one stop: the quote's own
    assert [kind for kind, _ in model.history] == ["choose", "choose"]  # the revision was read by the judge


@pytest.mark.parametrize(
    "claim, error_type",
    [
        ("Painters chose its colour in a contest.", "invented"),
        ("Tourists love walking there at night.", "unverifiable"),
        ("The main span is 1,280 meters long and painted by robots.", "unverifiable"),
    ],
)  # sharing words is not a conflict
def test_no_conflict_is_unsupported_with_a_model_critique(claim, error_type):
    model = FakeModel()
    model.enqueue(
        {"Yes": 0.2, "No": 0.8},
        f"Critique: The source gives only the span's length.\nError type: {error_type}\n"
        "Revised: The main span is 1,280 meters long.",
        {"Yes": 0.9, "No": 0.1},
    )
    evidence = [ev("The main span is 1,280 meters long.")]
    judge = Judge(model, calibration=IDENTITY)
    v = verdict(judge, claim, evidence)
    assert (v["label"], v["error_type"], v["revised"]) == (
        "unsupported",
        error_type,
        "The main span is 1,280 meters long.",
    )
    assert v["critique"] == "The source gives only the span's length."
    assert score_sentence(judge, claim, evidence).stances == ["related"]


def test_a_revision_is_shown_only_when_it_changes_the_sentence_and_scores_supported():
    evidence = [ev("The main span is 1,280 meters long.")]
    for second, revised, expected in (
        ({"Yes": 0.3, "No": 0.7}, "The span is long and blue.", None),
        (None, "Tourists love walking there at night.", None),
    ):
        model = FakeModel()
        model.enqueue(
            {"Yes": 0.2, "No": 0.8},
            f"Critique: Not in the sources.\nError type: invented\nRevised: {revised}",
            *([second] if second else []),
        )
        v = verdict(Judge(model, calibration=IDENTITY), "Tourists love walking there at night.", evidence)
        assert v["revised"] is expected
        assert len(model.history) == 2 + bool(second)  # an unchanged sentence is refused without a pass


def test_an_uncertain_card_shows_the_closest_passage_and_asks_the_model_nothing():
    model = FakeModel()
    card = explain(Judge(model, calibration=IDENTITY), scored("The span is long.", [ev(SPAN, 4)], "uncertain"))
    assert card == {
        "error_type": None,
        "critique": f"sourcecheck is not sure: the closest passage is “{SPAN}” (a.pdf, page 4).",
        "revised": None,
    }
    assert model.history == []


def test_a_card_is_written_once_and_each_caller_gets_its_own_copy():
    model = FakeModel()
    model.enqueue("Critique: The excerpts do not mention tourists.\nError type: unverifiable\nRevised: none")
    judge = Judge(model, calibration=IDENTITY)
    score = scored("Tourists love walking there at night.", [ev(SPAN)], "unsupported")
    first = explain(judge, score)
    first["critique"] = "changed by the caller"
    again = explain(judge, score)
    assert again["critique"] == "The excerpts do not mention tourists." and len(model.history) == 1
    explain(judge, score, shown=[ev("Another excerpt."), ev(SPAN)])  # another prompt: another critique
    assert [kind for kind, _ in model.history] == ["complete", "complete"]


@pytest.mark.parametrize("label", ["unsupported", "contradicted"])
def test_a_critique_offers_the_model_only_the_error_types_that_fit_the_label(label):
    fitting = CONTRADICTING if label == "contradicted" else set(ERROR_TYPES) - CONTRADICTING
    model = FakeModel()
    model.enqueue("Critique: Wrong.\nError type: subjective\nRevised: none")
    found = explaining.critique(Judge(model, calibration=IDENTITY), "The span is 2 km.", [ev(SPAN)], [ev(SPAN)], label)
    prompt = model.history[0][1][-1]["content"]
    assert {t for t in ERROR_TYPES if f"- {t}: " in prompt} == fitting
    assert found["error_type"] == ("subjective" if label == "unsupported" else "contradictory")  # else the default


def test_a_revision_is_refused_unchanged_or_conflicting_without_a_pass_and_unsupported_after_one():
    evidence = [ev(SPAN)]
    model = FakeModel()
    judge = Judge(model, calibration=IDENTITY)
    claim = "The main span is 2,000 meters long."
    assert revision_fault(judge, claim, "The main span is 2,000 meters long.", evidence, evidence) == "unchanged"
    assert revision_fault(judge, claim, "The main span is 1,500 meters long.", evidence, evidence) == "conflict"
    assert model.history == []
    model.enqueue({"Yes": 0.2, "No": 0.8}, {"Yes": 0.9, "No": 0.1})
    assert revision_fault(judge, claim, SPAN, evidence, evidence) == "unsupported"
    assert revision_fault(judge, claim, SPAN, evidence, evidence) is None
    assert [kind for kind, _ in model.history] == ["choose", "choose"]
