"""The evaluation's aligned prompts (`sourcecheck eval --prompt-evidence aligned`): only the source sentences that
bear on the claim, in place of whole passages. Measured against the shared block users get (docs/quality.md); not on
the product's path."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace

from sourcecheck.evidence import Evidence, rarity, split_passage
from sourcecheck.text.numerals import numbers
from sourcecheck.text.words import content_words

ALIGNED_WORDS = 90  # most words of source sentences an aligned prompt shows
# A sentence that opens by pointing back ("It", "These models", "Such a test") needs the one before it.
POINTS_BACK = re.compile(
    r"^[\W_]*(it|its|they|their|them|this|these|those|such|he|she|his|her|both|the latter|"
    r"the former|here|there|however|thus|therefore|moreover)\b",
    re.IGNORECASE,
)


def aligned(claim: str, evidence: Sequence[Evidence], budget_words: int = ALIGNED_WORDS) -> list[Evidence]:
    """The source sentences that bear on the claim, in place of whole passages: a short prompt.

    Greedy cover: each next sentence is the one that adds the most of the claim's words (weighted by rarity
    among the candidates) and numbers not yet covered, until nothing is added or the budget is spent; at
    least two when there are two. A sentence that points back brings the one before it. Returns evidence items
    whose passage is just their chosen sentences, in the given order (the prompt's: most relevant last); the items
    themselves (quote, page) are unchanged, so the card shows the same evidence.
    """
    claim_words, claim_numbers = set(content_words(claim)), numbers(claim)
    candidates = []  # (item, position, sentence, words, numbers)
    for i, e in enumerate(evidence):
        split = split_passage(e.passage)  # a title line is no source sentence
        for j, s in enumerate(split.sentences):
            if j not in split.labels:
                candidates.append((i, j, s, set(content_words(s)), numbers(s)))
    by_place = {c[:2]: c for c in candidates}
    weight = rarity([c[3] for c in candidates], claim_words)
    top = max(weight.values(), default=1.0)
    chosen: set[tuple[int, int]] = set()
    words_left, numbers_left, spent = set(claim_words), set(claim_numbers), 0

    def gain(
        c: tuple[int, int, str, set[str], set[str]],
    ) -> tuple[
        float, int, int
    ]:  # ties go to the more relevant item (later in the prompt), then to the earlier sentence
        return (math.fsum(weight[w] for w in words_left & c[3]) + top * len(numbers_left & c[4]), c[0], -c[1])

    while True:
        left = [c for c in candidates if (c[0], c[1]) not in chosen and spent + len(c[2].split()) <= budget_words]
        if not left:
            break
        best = max(left, key=gain)
        if gain(best)[0] <= 0 and len(chosen) >= 2:
            break
        chosen.add((best[0], best[1]))
        spent += len(best[2].split())
        words_left -= best[3]
        numbers_left -= best[4]
        before = (best[0], best[1] - 1)
        if before in by_place and POINTS_BACK.match(best[2]) and before not in chosen:
            chosen.add(before)
            spent += len(by_place[before][2].split())
    out = []
    for i, e in enumerate(evidence):
        picked = [c[2] for c in candidates if c[0] == i and (i, c[1]) in chosen]
        if picked:
            out.append(replace(e, passage=" ".join(picked)))
    # no sentence fits the budget (a run-on "sentence" from a table or a reference list): the best quote, cut
    return out or [replace(e, passage=" ".join(e.quote.split()[:budget_words])) for e in evidence[-1:]]
