"""The one place that decides a sentence's verdict: its label, each evidence item's stance, and what its card can
state from the data alone. Pure: the judge computes the score and finds the conflicts, this decides."""

from collections.abc import Sequence
from dataclasses import dataclass

from sourcecheck.calibration import grade
from sourcecheck.conflict import Conflict, Disagreement, corrected, describe

# FAVA's type for each kind of conflict conflict.py finds
CONFLICT_TYPES = {
    "number": "entity",
    "year": "entity",
    "percent": "entity",
    "name": "entity",
    "negation": "contradictory",
    "direction": "relation",
}


@dataclass(frozen=True)
class Verdict:
    label: str  # supported | uncertain | unsupported | contradicted
    stances: list[str]  # one per evidence item, in the evidence's order: supports | refutes | related
    # what the card states from the data: the conflict of a contradicted sentence, the documents' disagreement
    # on a supported one; None otherwise
    found: Conflict | Disagreement | None


def decide(
    p: float,
    band: Sequence[float],
    conflict: Conflict | None,
    disagreement: Disagreement | None,
    n_evidence: int,
) -> Verdict:
    """Red only for a conflict found in the sources, whatever P(supported) says (the model says Yes to sentences
    close to the excerpts, docs/quality.md); otherwise by the judge's band (calibration.grade): supported at its
    high edge or above, uncertain inside it, unsupported below it."""
    stances = ["related"] * n_evidence
    if conflict is not None:
        stances[conflict.evidence] = "refutes"
        return Verdict("contradicted", stances, conflict)
    label = grade(p, band)
    if label != "supported":
        return Verdict(label, stances, None)
    if disagreement is not None:  # the card shows both documents
        stances[disagreement.agrees], stances[disagreement.evidence] = "supports", "refutes"
    elif n_evidence:
        stances[-1] = "supports"  # the most relevant item (evidence lists are most relevant last)
    return Verdict("supported", stances, disagreement)


def stated_card(claim: str, found: Conflict | Disagreement, places: list[tuple[str, int]]) -> dict:
    """error_type, critique and revised of a card whose finding is data, not the model's words.
    places: (filename, page) of each evidence item."""
    if isinstance(found, Disagreement):
        return {
            "error_type": None,
            "critique": describe(found, *places[found.evidence], places[found.agrees]),
            "revised": None,
        }
    revised = corrected(claim, found)
    critique = describe(found, *places[found.evidence])
    if revised is None:
        # no value to put in (the source says the opposite), or a phrase to change; else the value was not found
        why = "reworded" if found.kind == "negation" or not found.fixable else "not placed"
        critique = without_revision(critique, found, places, why)
    return {"error_type": CONFLICT_TYPES[found.kind], "critique": critique, "revised": revised}


# Why a red card offers no revision, said on the card: a red card with no revision and no word of why reads as if
# none had been tried (issue 36)
NO_REVISION = {
    "reworded": "the sentence needs rewording, not one word put in place of another",
    "not placed": "{claim} could not be replaced in the sentence as it is written",
    "unchanged": "the sentence with page {page}'s {thing} ({source}) reads the same",
    "conflict": "the sentence with page {page}'s {thing} ({source}) still conflicts with your PDFs",
    "unsupported": "the sentence with page {page}'s {thing} ({source}) did not check out against your PDFs",
}


def without_revision(critique: str, found: Conflict, places: list[tuple[str, int]], why: str) -> str:
    """The critique of a red card with no revision, and why there is none (a key of NO_REVISION)."""
    thing = "word" if found.kind == "direction" else "value"
    reason = NO_REVISION[why].format(
        claim=found.claim_value, source=found.source_value, page=places[found.evidence][1], thing=thing
    )
    return f"{critique}. No revision offered: {reason}."
