"""Contradictions found by reading: a flagged sentence's value put in its source's place and verified.

The conflict detectors see a conflict only where the source says "the same thing" in words they can match;
a chat answer restates the fact in its own words. So for a sentence the judge did not find supported and the
rules found nothing in, each number of the sentence that its evidence does not state is swapped for a number of
the same kind (a count, a year, a percentage) that the evidence's aligned sentences do state, and the judge
reads the changed sentence against the same excerpts. When one swap turns "not supported" into "supported"
by a clear margin, the source states another value for the same thing: the sentence is contradicted, both values
are known, and the changed sentence is its revision, already verified.

Measured before it was built (on the 221 source-naming sentences of tests/data/chatpdfs): with the 1.5B judge,
substitute-and-verify found conflicts the rules missed and hit no true sentence, where asking the model to name the
value was noisy. Swapping
names (a model, a function, an estimator) and direction words as well was built and measured on the full-paper set
(docs/quality.md, "What was tried"): it made true sentences red and, restricted to names of one shape, found no
conflict on the development half, so only numbers are swapped; names stay an evaluation option
(`sourcecheck eval --reading names`, sourcecheck_eval/judge.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sourcecheck.conflict import Conflict, EvidenceItem, put_value
from sourcecheck.conflict.quantities import find_numbers, same_thing, same_value

if TYPE_CHECKING:  # annotations only: the check hands read_conflict its judge
    from sourcecheck.evidence import Evidence
    from sourcecheck.judging.judge import Judge

# A swap counts when the judge's P(Yes) rises by at least RISE and ends at least at the flagging threshold:
# a swap that merely nudges a borderline sentence over the line is no evidence of a conflict (measured on
# tests/data/chatpdfs: a rise of 0.3 to at least 0.5 gave 0 false conflicts on 130 true sentences).
RISE = 0.3
MAX_SWAPS = 4  # judge passes per flagged sentence at most (each reads only the changed claim: the prefix is cached)
ALIGNED = 3  # evidence items (most relevant first) whose quotes give the candidate values


@dataclass
class Swap:
    kind: str  # count | year | percent | name
    claim_value: str
    source_value: str
    evidence: int  # index of the evidence item whose quote states source_value
    quote: str
    revised: str | None  # None when the claim's value was not found to replace


def swaps(claim: str, evidence: Sequence[EvidenceItem]) -> list[Swap]:
    """Candidate swaps, most plausible first, at most MAX_SWAPS: each value of the claim that no evidence passage
    states, paired with a value of the same kind that an aligned quote states and the claim does not."""
    out, seen = [], set()
    for s in _candidates(claim, evidence):  # lazily: a long claim with many values stops at MAX_SWAPS
        if s.revised and s.revised not in seen:
            seen.add(s.revised)
            out.append(s)
            if len(out) == MAX_SWAPS:
                break
    return out


def _candidates(claim: str, evidence: Sequence[EvidenceItem]) -> Iterator[Swap]:
    passages = " ".join(e.passage for e in evidence)
    aligned = range(min(ALIGNED, len(evidence)))  # the most relevant quotes
    claim_numbers = find_numbers(claim)
    stated = find_numbers(passages)
    # per aligned quote, once: its numbers that state none of the claim's values
    rivals = {
        i: [s for s in find_numbers(evidence[i].quote) if not any(same_value(x, s) for x in claim_numbers)]
        for i in aligned
    }
    for c in claim_numbers:
        if any(same_value(c, s) for s in stated):
            continue
        for i in aligned:
            for s in rivals[i]:
                if s.kind == c.kind and same_thing(c, s):
                    yield swap(c.kind, c.text, s.text, i, evidence[i].quote, claim)


def swap(kind: str, claim_value: str, source_value: str, i: int, quote: str, claim: str) -> Swap:
    """A Swap of claim_value for source_value (stated by evidence item i's quote), with the claim so changed."""
    return Swap(kind, claim_value, source_value, i, quote, put_value(claim, claim_value, source_value, quote))


def find_by_reading(
    candidates: Sequence[Swap], p_before: float, verify: Callable[[str], float], threshold: float
) -> Conflict | None:
    """The first of the candidate swaps (swaps()) that the judge finds supported (verify(text) -> calibrated p) with
    p at least threshold and RISE above p_before: the Conflict it shows, or None."""
    for s in candidates:
        p = verify(s.revised)  # type: ignore[arg-type]  # swaps() keeps only swaps with a revision
        if p >= threshold and p - p_before >= RISE:
            kind = "number" if s.kind == "count" else s.kind
            return Conflict(kind, s.claim_value, s.source_value, s.evidence, s.quote)
    return None


def read_conflict(
    judge: Judge, claim: str, evidence: Sequence[Evidence], shown: Sequence[Evidence], p: float, threshold: float
) -> Conflict | None:
    """Stage 3b: a conflict found by swapping the sentence's values for its sources' (judge.swaps) and reading
    again, or None; cached by the judge, since a re-check would read the same swaps."""
    key = (claim, tuple(e.passage for e in evidence), tuple(e.passage for e in shown), threshold)
    found = judge.cache.get("reading", key)
    if found is None:

        def verify(text: str) -> float:
            return judge.calibrate(judge.answer(text, evidence, shown))

        found = (find_by_reading(judge.swaps(claim, evidence), p, verify, threshold),)  # a 1-tuple: None is found
        judge.cache.put("reading", key, found)
    return found[0]
