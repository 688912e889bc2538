"""The judge as `sourcecheck eval` runs it: the product's Judge with the ways of asking that were measured against
what users get and not shipped (docs/quality.md, "What was tried"), and the hidden state read with each answer.

* prompt_evidence, what each sentence's prompt shows: "shared" (what users get), one evidence block per check, a
  KV-cache prefix its sentences share; "passages", its own evidence only; "aligned", only the source sentences that
  bear on it (aligned.py); "each", each evidence item on its own, the highest P(Yes) kept (MiniCheck's and FactCG's
  max over chunks: a claim is supported if one chunk supports it).
* reading, the swaps tried for a contradiction by reading (reading.py): "numbers" (what users get); "names",
  numbers and then names of one shape (name_swaps); "off", none.
* states: the model's hidden state at each answer (a backend that reads one: llama.cpp), kept by its raw score's
  key (state_of, key()) for the run to store with it, so a verifier head can be fitted on it (head.py).

A judge asks this way when it is given a LabAsking (lab_judge()): the product's seam (judge.Asking) is composition,
not a subclass.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from sourcecheck.conflict import Conflict, unnamed
from sourcecheck.conflict.reading import ALIGNED, MAX_SWAPS, Swap, swap
from sourcecheck.errors import ConfigError
from sourcecheck.evidence import Evidence, prompt_order
from sourcecheck.judging.calibration import logit
from sourcecheck.judging.judge import Asking, Judge, yes_probability
from sourcecheck.text.numerals import numbers
from sourcecheck.text.words import content_words

from sourcecheck_eval.aligned import aligned

if TYPE_CHECKING:
    from sourcecheck.conflict import EvidenceItem
    from sourcecheck.evidence import EvidenceBlock
    from sourcecheck.judging.verdict import Score
    from sourcecheck.llm.base import Model

PROMPT_EVIDENCE = ("shared", "passages", "aligned", "each")
READING = ("numbers", "names", "off")

# Names a sentence can get wrong in a way a swap can test: code-like names with a digit ("HC0", "Llama2"), calls
# ("lmrob()"), names with an inner capital ("monoMDS") and acronyms ("OLS", "MASS"). Each shape is swapped only for a
# name of the same shape: a function for a function, an acronym for an acronym.
NAME_SHAPES = {
    "call": re.compile(r"(?<![\w.])[A-Za-z][\w.]*\(\)"),
    "code": re.compile(r"\b(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z][A-Za-z\d]*\d[A-Za-z\d]*\b"),
    "inner capital": re.compile(r"\b[a-z]+[A-Z][A-Za-z]*\b"),
    "acronym": re.compile(r"\b[A-Z]{2,}s?\b"),
}


class LabAsking(Asking):
    """A way of asking as prompt_evidence and reading say; with states, each answer's hidden state is read and kept
    (state_of, by what it answered: key())."""

    def __init__(self, prompt_evidence: str = "shared", reading: str = "numbers", states: bool = False) -> None:
        if prompt_evidence not in PROMPT_EVIDENCE:
            raise ConfigError(f"Unknown prompt evidence {prompt_evidence!r}; use one of {', '.join(PROMPT_EVIDENCE)}.")
        if reading not in READING:
            raise ConfigError(f"Unknown reading {reading!r}; use one of {', '.join(READING)}.")
        self.prompt_evidence, self.reading, self.states = prompt_evidence, reading, states
        self.state_of: dict[tuple, Any] = {}  # key() -> hidden state; an eval run's sentences, so not bounded

    def show(self, judge: Judge, claim: str, evidence: list[Evidence], block: EvidenceBlock) -> list[Evidence]:
        if self.prompt_evidence == "shared":
            return super().show(judge, claim, evidence, block)
        laid_out = prompt_order(evidence)
        return aligned(claim, laid_out) if self.prompt_evidence == "aligned" else laid_out

    def answer(self, judge: Judge, claim: str, evidence: Sequence[Evidence], shown: Sequence[Evidence]) -> float:
        """P(Yes) as prompt_evidence says ("each": the highest of each item on its own), its state kept."""
        if self.prompt_evidence == "each" and evidence:
            p, state = max((self._ask(judge, claim, [e], [e]) for e in prompt_order(evidence)), key=lambda a: a[0])
        else:
            p, state = self._ask(judge, claim, evidence, shown)
        if state is not None:
            self.state_of[self.key(claim, evidence, shown)] = state
        return p

    def _ask(
        self, judge: Judge, claim: str, evidence: Sequence[Evidence], shown: Sequence[Evidence]
    ) -> tuple[float, Any]:
        probs, text, state = judge.model.choose(
            judge.verify_messages(claim, evidence, shown), ("Yes", "No"), self.states
        )
        return yes_probability(probs, text), state

    @staticmethod
    def key(claim: str, evidence: Sequence[Evidence], shown: Sequence[Evidence]) -> tuple:
        """What state_of keeps an answer's hidden state under: what it answered. A decomposed sentence's parts are
        answered each on its own, so the whole sentence has none."""
        return claim, tuple(e.passage for e in evidence), tuple(e.passage for e in shown)

    def swaps(self, judge: Judge, claim: str, evidence: Sequence[Evidence]) -> list[Swap]:
        if self.reading == "off":
            return []
        found = super().swaps(judge, claim, evidence)
        if self.reading == "names":  # then names, up to MAX_SWAPS in all
            seen = {s.revised for s in found}
            for s in name_swaps(claim, evidence):
                if len(found) == MAX_SWAPS:
                    break
                if s.revised and s.revised not in seen:
                    seen.add(s.revised)
                    found.append(s)
        return found


def lab_judge(
    model: Model, *, prompt_evidence: str = "shared", reading: str = "numbers", states: bool = False, **kwargs: Any
) -> Judge:
    """The product's Judge, asking as a LabAsking does (kwargs: the Judge's own)."""
    return Judge(model, asking=LabAsking(prompt_evidence, reading, states), **kwargs)


def name_swaps(claim: str, evidence: Sequence[EvidenceItem]) -> Iterator[Swap]:
    """Each name of the claim that no evidence passage states, paired with a name of the same shape that an aligned
    quote (reading.ALIGNED) states and the claim does not."""
    passages = " ".join(e.passage for e in evidence)
    nearest = range(min(ALIGNED, len(evidence)))
    claimed = _names(claim)
    for shape, name in sorted(claimed):
        if name in passages:
            continue
        for i in nearest:
            for other_shape, other in sorted(_names(evidence[i].quote)):
                if other_shape == shape and other != name and (shape, other) not in claimed:
                    yield swap("name", name, other, i, evidence[i].quote, claim)


def _names(text: str) -> set[tuple[str, str]]:
    return {(shape, m.group(0)) for shape, pattern in NAME_SHAPES.items() for m in pattern.finditer(text)}


def features(score: Score) -> dict[str, float]:
    """What the evaluation records with a sentence's raw score for a score model to read (fitting.py): the signals
    of signal_features and whether a conflict made it red. Here, not in run.py: this file is part of the cache key."""
    return {
        **signal_features(score.claim, score.evidence, score.p_raw),
        "conflict": float(isinstance(score.conflict, Conflict)),
    }


def signal_features(claim: str, evidence: Sequence[Evidence], p_raw: float) -> dict[str, float]:
    """Signals besides the judge's P(Yes): how much of the claim the evidence contains, word for word."""
    found_text = " ".join(e.passage for e in evidence)
    found_words, found_numbers = set(content_words(found_text)), numbers(found_text)
    claim_numbers = numbers(claim)
    # '350,000' is a content word and the number '350000': count it once, as a number
    words = {w for w in content_words(claim) if not (numbers(w) and numbers(w) <= claim_numbers)}
    named, missing = unnamed(claim, evidence)
    return {
        "logit_p": logit(p_raw),
        "overlap": len(words & found_words) / len(words) if words else 1.0,
        "numbers_missing": len(claim_numbers - found_numbers) / len(claim_numbers) if claim_numbers else 0.0,
        "names_missing": len(missing) / len(named) if named else 0.0,
        "rerank": max((e.relevance for e in evidence), default=0.0),
    }
