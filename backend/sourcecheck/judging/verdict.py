"""The one place that decides a sentence's verdict (its label and each evidence item's stance), and the Score that
records how a sentence got there, stage by stage (check.score_sentence). Pure: the judge computes the score and
the conflict finders find conflicts; this decides."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sourcecheck.conflict import Conflict, Disagreement
from sourcecheck.judging.calibration import grade

if TYPE_CHECKING:  # annotations only
    from sourcecheck.evidence import Evidence


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
    states: Sequence[bool],
) -> Verdict:
    """Red only for a conflict found in the sources, whatever P(supported) says (the model says Yes to sentences
    close to the excerpts, docs/quality.md); otherwise by the judge's band (calibration.grade): supported at its
    high edge or above, uncertain inside it, unsupported below it. states: per evidence item, whether it states the
    claim (reading.states_claim): only such an item is tagged "supports", never one whose value or name differs."""
    n_evidence = len(states)
    stances = ["related"] * n_evidence
    if conflict is not None:
        stances[conflict.evidence] = "refutes"
        return Verdict("contradicted", stances, conflict)
    label = grade(p, band)
    if label != "supported":
        return Verdict(label, stances, None)
    if disagreement is not None:  # the card shows both documents; the one that agrees supports only if it states it all
        stances[disagreement.evidence] = "refutes"
        if states[disagreement.agrees]:
            stances[disagreement.agrees] = "supports"
    else:  # the most relevant item that states the claim, if one does
        stating = [i for i, ok in enumerate(states) if ok]
        if stating:
            stances[stating[0]] = "supports"
    return Verdict("supported", stances, disagreement)


@dataclass
class Score:
    """One sentence's way to its verdict, a field for each stage's output (check.score_sentence runs them)."""

    claim: str  # the sentence without its citation markers
    evidence: list[Evidence]  # 1 evidence: the items the sentence is judged on, most relevant first
    shown: list[Evidence]  # the excerpts its prompt presents (the check's shared block)
    p_raw: float  # 2 score: the model's P(Yes), a product over the claims of a decomposed sentence
    p_supported: float  # its P(Yes) on the judge's calibrated scale
    # 3 conflicts and 4 decide (Verdict.found): a value of the sentence its source states otherwise (red), or on a
    # supported sentence the documents that disagree; None otherwise
    conflict: Conflict | Disagreement | None
    label: str  # 4 decide: supported | uncertain | unsupported | contradicted
    stances: list[str]  # one per evidence item, in the evidence's order: supports | refutes | related
    # 2b the second read, for a sentence the first was not sure of (check.reread_sentence): P(Yes) against each of its
    # most relevant items alone; p_supported is then both reads' (judge.combine)
    alone: list[float] = field(default_factory=list)
