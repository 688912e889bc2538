"""verdict.decide: the one place a label and the stances are decided; cards.stated_card: a card stated from data."""

import pytest
from sourcecheck.conflict import Conflict, Disagreement
from sourcecheck.judging.cards import stated_card
from sourcecheck.judging.verdict import decide

CONFLICT = Conflict("number", "35,074", "34,000", 0, "FAVA uses 34,000 instances.")
DISAGREEMENT = Disagreement("35,074", "34,000", 0, "FAVA uses 34,000 instances.", 2, "It has 35,074 instances.")


@pytest.mark.parametrize(
    "p, conflict, disagreement, label, stances",
    [
        (0.9, None, None, "supported", ["supports", "related", "related"]),  # the most relevant (first) supports
        (0.3, None, None, "unsupported", ["related", "related", "related"]),
        (0.5, None, None, "uncertain", ["related", "related", "related"]),  # inside the band: no stance taken
        (0.5, None, DISAGREEMENT, "uncertain", ["related", "related", "related"]),
        (0.5, CONFLICT, None, "contradicted", ["refutes", "related", "related"]),
        (0.9, CONFLICT, None, "contradicted", ["refutes", "related", "related"]),  # red whatever p says
        (0.1, CONFLICT, None, "contradicted", ["refutes", "related", "related"]),
        (0.9, None, DISAGREEMENT, "supported", ["refutes", "related", "supports"]),  # the items the disagreement names
        (0.3, None, DISAGREEMENT, "unsupported", ["related", "related", "related"]),
    ],
)
def test_decide(p, conflict, disagreement, label, stances):
    v = decide(p, (0.4, 0.6), conflict, disagreement, [True, True, True])
    assert (v.label, v.stances) == (label, stances)
    assert v.found is (conflict if label == "contradicted" else disagreement if label == "supported" else None)


def test_decide_at_the_band_edges_and_without_evidence():
    """The high edge is supported, the low edge uncertain; a band of no width has no uncertain sentences."""
    assert (decide(0.6, (0.4, 0.6), None, None, []).label, decide(0.6, (0.4, 0.6), None, None, []).stances) == (
        "supported",
        [],
    )
    assert decide(0.5999, (0.4, 0.6), None, None, [True]).label == "uncertain"
    assert decide(0.4, (0.4, 0.6), None, None, [True]).label == "uncertain"
    assert decide(0.3999, (0.4, 0.6), None, None, [True]).label == "unsupported"
    assert [decide(p, (0.5, 0.5), None, None, [True]).label for p in (0.4999, 0.5)] == ["unsupported", "supported"]


def test_only_an_item_that_states_the_claim_is_tagged_supports():
    assert decide(0.9, (0.4, 0.6), None, None, [False, True, True]).stances == ["related", "supports", "related"]
    assert decide(0.9, (0.4, 0.6), None, None, [False, False]).stances == ["related", "related"]
    # documents that disagree: the one that agrees on the value is tagged supports only if it states the claim whole
    # (a sentence of three values, one of which the agreeing page states, found on fullpapers-dev)
    assert decide(0.9, (0.4, 0.6), None, DISAGREEMENT, [True, True, False]).stances == ["refutes", "related", "related"]


@pytest.mark.parametrize(
    "claim, passage, states",
    [
        ("Stock and Watson used 76 monthly series.", "Stock and Watson (1996) analyse 76 monthly time series.", True),
        ("Stock and Watson used 76 quarterly series.", "The study of 67 monthly time series found it.", False),
        ("The vignette was written by Zeileis and Hothorn.", "The vignette was written by Achim Zeileis.", False),
        ("HC3 weighs influential observations more.", "HC3 gives influential observations more weight.", True),
        ("In the study, HC3 weighs influential ones more.", "HC4 gives influential observations more weight.", False),
    ],
)
def test_an_item_states_a_claim_only_where_its_values_and_names_agree(claim, passage, states):
    from sourcecheck.conflict import states_claim
    from sourcecheck.evidence import Evidence

    assert states_claim(claim, Evidence("d1", "a.pdf", 1, passage, passage, 0.5)) is states


def test_stated_card_for_a_conflict_carries_both_values_and_the_source_value_as_revision():
    card = stated_card("FAVA was trained on 35,074 instances.", CONFLICT, [("fava.pdf", 3)])
    assert card == {
        "error_type": "entity",
        "critique": "The sentence says 35,074; fava.pdf, page 3 says 34,000: “FAVA uses 34,000 instances.”",
        "revised": "FAVA was trained on 34,000 instances.",
    }


def test_stated_card_for_a_disagreement_names_both_documents_and_changes_nothing():
    card = stated_card("FAVA has 35,074 instances.", DISAGREEMENT, [("a.pdf", 3), ("b.pdf", 1), ("c.pdf", 9)])
    assert card == {
        "error_type": None,
        "critique": "Your sources disagree: c.pdf, page 9 says 35,074 (“It has 35,074 instances.”); "
        "a.pdf, page 3 says 34,000 (“FAVA uses 34,000 instances.”)",
        "revised": None,
    }


def test_a_red_card_with_no_value_to_put_in_says_why():
    """Issue 36: a red card without a revision said nothing of why; now it does, in words."""
    negation = Conflict("negation", "not", "(no negation)", 0, "FAVA uses 34,000 instances.")
    card = stated_card("FAVA does not use 34,000 instances.", negation, [("fava.pdf", 3)])
    assert card["revised"] is None and card["critique"] == (
        "fava.pdf, page 3 says the opposite: “FAVA uses 34,000 instances.” "
        "No revision offered: the sentence needs rewording, not one word put in place of another."
    )
    card = stated_card("FAVA was trained on thirty-five thousand instances.", CONFLICT, [("fava.pdf", 3)])
    assert card["revised"] is None
    assert card["critique"].endswith(
        "No revision offered: 35,074 could not be replaced in the sentence as it is written."
    )
