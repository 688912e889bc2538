"""Stage 5, the card of a scored sentence (check.py's stage list): a settled one's words from the data; a flagged
one's from its conflict, else from the model's critique, each field checked (cards.model_card); a revision kept
only if it changes the sentence, states no value its sources state otherwise and scores supported (one more pass).
The words are cards.py's; the model is asked through the judge (judge.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sourcecheck.conflict import Disagreement, find_conflict
from sourcecheck.evidence import Evidence, prompt_order
from sourcecheck.judging.cards import (
    CONTRADICTING,
    ERROR_TYPES,
    TYPE_HELP,
    model_card,
    normal,
    parse_critique,
    places,
    refused,
    settled_card,
    stated_card,
)
from sourcecheck.judging.prompting import messages, sources_text

if TYPE_CHECKING:  # annotations only: the check hands each function its judge and a Score
    from sourcecheck.judging.judge import Judge
    from sourcecheck.judging.verdict import Score


def explain(judge: Judge, score: Score, shown: Sequence[Evidence] | None = None) -> dict[str, Any]:
    """error_type, critique and revised for a scored sentence (what its card shows), cached by the judge. shown: the
    excerpts the critique's prompt presents, in its order; default: the sentence's evidence."""
    claim, evidence = score.claim, score.evidence
    if score.label in ("supported", "uncertain"):
        found = score.conflict if isinstance(score.conflict, Disagreement) else None
        return settled_card(score.label, claim, evidence, found)
    shown = prompt_order(evidence) if shown is None else shown
    key = (
        claim,
        tuple(e.passage for e in evidence),
        tuple(e.passage for e in shown),
        score.label,
        repr(score.conflict),
    )
    cached = judge.cache.get("card", key)
    if cached is not None:
        return dict(cached)
    if score.conflict:
        card = stated_card(claim, score.conflict, places(evidence))
    else:
        card = model_card(critique(judge, claim, evidence, shown, score.label), claim, evidence, shown)
    fault = card["revised"] and revision_fault(judge, claim, card["revised"], evidence, shown)
    if fault:
        card = refused(card, score.conflict, evidence, fault)
    judge.cache.put("card", key, card)
    return dict(card)


def critique(
    judge: Judge, claim: str, evidence: Sequence[Evidence], shown: Sequence[Evidence], label: str = "unsupported"
) -> dict[str, Any]:
    """Critique, FAVA error type (one that fits the label) and a revised claim for an unsupported claim."""
    types = CONTRADICTING if label == "contradicted" else set(ERROR_TYPES) - CONTRADICTING
    listed = "\n".join(f"- {t}: {TYPE_HELP[t]}" for t in ERROR_TYPES if t in types)
    msgs = messages("critique", sources=sources_text(evidence, shown), claim=claim, types=listed)
    return parse_critique(judge.model.complete(msgs, max_tokens=100), claim, types)


def revision_fault(
    judge: Judge, claim: str, revised: str, evidence: Sequence[Evidence], shown: Sequence[Evidence]
) -> str | None:
    """Why a revision is not worth showing (a key of cards.NO_REVISION), or None when it is: it changes the
    sentence, states no value its sources state otherwise, and its sources support it (one more pass)."""
    if normal(revised) == normal(claim):
        return "unchanged"
    if find_conflict(revised, evidence):
        return "conflict"
    if judge.calibrate(judge.p_yes(revised, evidence, shown)) < judge.band[1]:
        return "unsupported"
    return None
