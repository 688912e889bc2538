"""One claim + its evidence → a verdict: P(Yes) from the model, then a critique for what is not supported."""

from __future__ import annotations

import math
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from sourcecheck.calibration import PLAIN_BANDS, calibrated, for_judge, logit
from sourcecheck.cards import (
    CONTRADICTING,
    ERROR_TYPES,
    NOT_FOUND,
    TYPE_HELP,
    critique_is_sound,
    name_excerpts,
    normal,
    opinion,
    parse_critique,
    supported_note,
    uncertain_note,
)
from sourcecheck.conflict import Conflict, Disagreement, find_conflict, find_conflicts
from sourcecheck.errors import ConfigError
from sourcecheck.evidence import Evidence
from sourcecheck.llm.base import Model
from sourcecheck.numerals import numbers
from sourcecheck.prompting import messages, sources_text
from sourcecheck.reading import Swap, find_by_reading, swaps
from sourcecheck.verdict import decide, stated_card, without_revision
from sourcecheck.words import STOPWORDS, content_words

if TYPE_CHECKING:  # annotations only: a check hands show() its block
    from sourcecheck.evidence import EvidenceBlock

CACHE_SIZE = 4096  # verdicts kept: a re-check of the same answer (a page re-render, a retry) costs nothing
# Prompt profiles (a model's "profile" in llm/catalog.json) → the system prompt that goes with its verify prompt,
# prompts/<profile>.txt. MiniCheck was trained with a system prompt of its own (MiniCheck's minicheck/utils.py; Ollama's
# bespoke-minicheck carries the same one), so it gets that one, not ours.
PROFILES = {"verify": "system", "minicheck": "minicheck_system"}


@dataclass
class Score:
    """What scoring one sentence found: its label and calibrated p, and what they were computed from."""

    label: str  # supported | uncertain | unsupported | contradicted (verdict.decide)
    p_supported: float  # calibrated
    p_raw: float  # the model's P(Yes), a product over the claims of a decomposed sentence
    signals: dict[str, float]  # signal_features(): what the calibration reads
    stances: list[str]  # one per evidence item, in the evidence's order: supports | refutes | related
    # contradicted: a value of the sentence its source states otherwise; supported: sources that disagree;
    # verdict.decide
    conflict: Conflict | Disagreement | None = None


class Judge:
    """Prompting and parsing for every backend; the model only moves tokens.

    What a check asks of it goes through a few methods that the evaluation's judge overrides to measure other ways
    of asking, and to read the model's hidden state (sourcecheck_eval.judge): show() (what a prompt shows), answer()
    (a claim's P(Yes)), p_yes() (one prompt's), raw() (a sentence's, cached) and swaps() (the values reading tries)."""

    def __init__(
        self,
        model: Model,
        calibration: dict | None = None,
        sensitivity: str = "balanced",
        calibrations: str | None = None,
    ) -> None:
        """calibration: the scale to judge by (calibration.py); default: the judge's own from the calibrations
        folder, else the shipped one (then `calibrated` is False unless the judge is the default one)."""
        self.model = model
        if calibration is None:
            self.calibration, self.calibrated = for_judge(model.judge_id(), calibrations)
        else:
            self.calibration, self.calibrated = calibration, True
        bands = self.calibration.get("bands") or PLAIN_BANDS
        self.bands: dict[str, tuple[float, float]] = {s: (b[0], b[1]) for s, b in bands.items()}
        if sensitivity not in self.bands:
            raise ConfigError(f"Unknown sensitivity {sensitivity!r}; use one of {', '.join(self.bands)}.")
        self.band = self.bands[sensitivity]
        self.profile = model.profile
        if self.profile not in PROFILES:
            raise ConfigError(f"Unknown prompt profile {self.profile!r}; use one of {', '.join(PROFILES)}.")
        self._lock = threading.Lock()  # request threads, and a check's own scoring threads, share the cache
        self._cache: OrderedDict[tuple, Any] = OrderedDict()

    def prepare(self) -> None:
        """Load the model now; raise ModelError if it cannot work (a clear error before a stream starts)."""
        self.model.prepare()

    def show(self, claim: str, evidence: list[Evidence], block: EvidenceBlock) -> list[Evidence]:
        """What a sentence's prompt shows: the check's evidence block with this evidence added, a prompt prefix
        the check's sentences share (evidence.EvidenceBlock)."""
        return block.add(evidence)

    def verify_messages(
        self, claim: str, evidence: Sequence[Evidence], shown: Sequence[Evidence]
    ) -> list[dict[str, str]]:
        """The chat that asks "do the excerpts support the claim?"; shown: the excerpts the prompt presents."""
        return messages(self.profile, PROFILES[self.profile], sources=sources_text(evidence, shown), claim=claim)

    def p_yes(self, claim: str, evidence: Sequence[Evidence], shown: Sequence[Evidence]) -> float:
        """The model's probability of "Yes" to "do the excerpts support the claim?" (raw, uncalibrated).
        shown: the excerpts the prompt presents."""
        probs, text, _ = self.model.choose(self.verify_messages(claim, evidence, shown), ("Yes", "No"))
        return yes_probability(probs, text)

    def answer(self, claim: str, evidence: Sequence[Evidence], shown: Sequence[Evidence]) -> float:
        """A claim's P(Yes) as scoring and reading ask for it: one prompt that shows `shown`."""
        return self.p_yes(claim, evidence, shown)

    def raw(
        self, claim: str, evidence: Sequence[Evidence], shown: Sequence[Evidence], decompose: bool = False
    ) -> float:
        """A sentence's P(Yes), cached; a decomposed sentence holds only if all its claims hold (Factored
        Verification): the product of theirs."""
        key = (claim, tuple(e.passage for e in evidence), tuple(e.passage for e in shown), decompose)
        found = self._recall(key)
        if found is None:
            claims = self.decompose(claim) if decompose and len(claim.split()) > 12 else [claim]
            found = math.prod([self.answer(c, evidence, shown) for c in claims])
        self._remember(key, found)
        return found

    def calibrate(self, p: float, features: dict[str, float] | None = None) -> float:
        """The probability that a claim is supported: the calibrated P(Yes) (calibration.py). features: the
        signals it was scored with (signal_features), which the evaluation's calibrations may read."""
        return calibrated(p, self.calibration)

    def critique(
        self, claim: str, evidence: Sequence[Evidence], shown: Sequence[Evidence], label: str = "unsupported"
    ) -> dict[str, Any]:
        """Critique, FAVA error type (one that fits the label) and a revised claim for an unsupported claim."""
        types = CONTRADICTING if label == "contradicted" else set(ERROR_TYPES) - CONTRADICTING
        listed = "\n".join(f"- {t}: {TYPE_HELP[t]}" for t in ERROR_TYPES if t in types)
        msgs = messages("critique", sources=sources_text(evidence, shown), claim=claim, types=listed)
        return parse_critique(self.model.complete(msgs, max_tokens=100), claim, types)

    def decompose(self, sentence: str) -> list[str]:
        """Atomic claims of a long sentence (FacTool's claim extraction); the sentence itself if that fails."""
        msgs = messages("decompose", sentence=sentence)
        lines = [
            re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line).strip()
            for line in self.model.complete(msgs, max_tokens=160).splitlines()
        ]
        claims = [line for line in lines if len(line.split()) >= 3][:4]
        return claims or [sentence]

    def score(
        self,
        claim: str,
        evidence: Sequence[Evidence],
        decompose: bool = False,
        shown: Sequence[Evidence] | None = None,
        sensitivity: str | None = None,
        also: Sequence[tuple[str, str]] = (),
    ) -> Score:
        """Score one sentence from single forward passes (no text is generated): a Score.

        sensitivity: "relaxed", "balanced" or "strict": which of the calibration's bands grades the sentence;
        default: the judge's.
        evidence: this claim's evidence, most relevant last. shown: the excerpts the prompt presents when they are
        not the evidence itself (a block shared among a check's sentences, evidence.EvidenceBlock; the source
        sentences aligned with the claim); default: evidence.
        also: (document id, text) of the claim's candidate passages, where a value may be stated that a shown
        passage seems to contradict (conflict.find_conflicts).
        """
        shown = evidence if shown is None else shown
        p_raw = self.raw(claim, evidence, shown, decompose)
        # Calibrated on every call: the cache keeps the model's raw scores.
        conflict, disagreement = find_conflicts(claim, evidence, also)
        signals = {**signal_features(claim, evidence, p_raw), "conflict": float(conflict is not None)}
        p = self.calibrate(p_raw, signals)
        band = self.bands[sensitivity] if sensitivity else self.band
        # a decomposed sentence's p is its parts' product, which a swapped whole sentence's p cannot be compared with
        if conflict is None and p < band[1] and not decompose:
            conflict = self.read_conflict(claim, evidence, shown, p, band[1])
            signals["conflict"] = float(conflict is not None)
        v = decide(p, band, conflict, disagreement, len(evidence))
        return Score(v.label, p, p_raw, signals, v.stances, v.found)

    def swaps(self, claim: str, evidence: Sequence[Evidence]) -> list[Swap]:
        """The swaps reading tries for a flagged sentence: its numbers for its sources' (reading.swaps)."""
        return swaps(claim, evidence)

    def read_conflict(
        self, claim: str, evidence: Sequence[Evidence], shown: Sequence[Evidence], p: float, threshold: float
    ) -> Conflict | None:
        """A conflict found by swapping the sentence's values for its sources' and reading again (reading.py),
        or None; cached like the scores, since a re-check would read the same swaps."""
        key = ("reading", claim, tuple(e.passage for e in evidence), tuple(e.passage for e in shown), threshold)
        found = self._recall(key)
        if found is None:

            def verify(text: str) -> float:
                p_raw = self.answer(text, evidence, shown)
                return self.calibrate(p_raw, signal_features(text, evidence, p_raw))

            found = (find_by_reading(self.swaps(claim, evidence), p, verify, threshold),)  # a 1-tuple: None is found
            self._remember(key, found)
        return found[0]

    def explain(
        self, claim: str, evidence: Sequence[Evidence], score: Score, shown: Sequence[Evidence] | None = None
    ) -> dict[str, Any]:
        """error_type, critique and revised for a scored sentence (what its card shows), each checked first:
        a found conflict is stated from the data; a model critique that misstates the sources is replaced by a
        plain true sentence; a revision is kept only if it differs from the sentence and scores supported.
        shown: as for score()."""
        shown = evidence if shown is None else shown
        places = [(e.filename, e.page) for e in evidence]
        if score.label == "uncertain":
            return {"error_type": None, "critique": uncertain_note(evidence), "revised": None}
        if score.label == "supported":
            if score.conflict:  # one document says what the sentence says, another says otherwise
                return stated_card(claim, score.conflict, places)
            return {"error_type": None, "critique": supported_note(evidence), "revised": None}
        key = (
            "explain",
            claim,
            tuple(e.passage for e in evidence),
            tuple(e.passage for e in shown),  # the critique's prompt shows these
            score.label,
            repr(score.conflict),
        )
        cached = self._recall(key)
        if cached is not None:
            return dict(cached)
        if score.conflict:
            found = stated_card(claim, score.conflict, places)
        else:
            found = self.critique(claim, evidence, shown, score.label)
            if not critique_is_sound(found["critique"], claim, evidence):
                found["critique"] = NOT_FOUND
            if opinion(claim, evidence):
                found["error_type"] = "subjective"
            elif found["error_type"] == "subjective":  # the 1.5B judge calls most flagged sentences subjective
                found["error_type"] = "invented"  # (docs/quality.md): without an opinion word, "not in your PDFs"
            found["critique"] = name_excerpts(found["critique"], shown)
        fault = found["revised"] and self.revision_fault(claim, found["revised"], evidence, shown)
        if fault:
            found["revised"] = None
            if isinstance(score.conflict, Conflict):  # a red card says why it offers no revision
                found["critique"] = without_revision(found["critique"], score.conflict, places, fault)
        self._remember(key, found)
        return dict(found)

    def revision_fault(
        self, claim: str, revised: str, evidence: Sequence[Evidence], shown: Sequence[Evidence]
    ) -> str | None:
        """Why a revision is not worth showing (a key of verdict.NO_REVISION), or None when it is: it changes the
        sentence, states no value its sources state otherwise, and its sources support it (one more pass)."""
        if normal(revised) == normal(claim):
            return "unchanged"
        if find_conflict(revised, evidence):
            return "conflict"
        p_raw = self.p_yes(revised, evidence, shown)
        if self.calibrate(p_raw, signal_features(revised, evidence, p_raw)) < self.band[1]:
            return "unsupported"
        return None

    def _recall(self, key: tuple) -> Any:
        # under the lock: another thread may be evicting from the OrderedDict at this moment
        with self._lock:
            return self._cache.get(key)

    def _remember(self, key: tuple, value: Any) -> None:
        with self._lock:
            self._cache[key] = value
            self._cache.move_to_end(key)
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)


def yes_probability(probs: dict[str, float] | None, text: str) -> float:
    """P(Yes) from a model's answer: its probability, or 1/0 from the word when the backend gives none."""
    if probs is None:
        return 1.0 if text.strip().lower().startswith("yes") else 0.0
    return probs["Yes"]


def signal_features(claim: str, evidence: Sequence[Evidence], p_raw: float) -> dict[str, float]:
    """Signals besides the judge's P(Yes): how much of the claim the evidence contains, word for word."""
    found_text = " ".join(e.passage for e in evidence)
    found_words, found_numbers = set(content_words(found_text)), numbers(found_text)
    claim_numbers = numbers(claim)
    # '350,000' is a content word and the number '350000': count it once, as a number
    words = {w for w in content_words(claim) if not (numbers(w) and numbers(w) <= claim_numbers)}
    names = {w.lower() for w in re.findall(r"(?<!^)(?<![.!?]\s)\b[A-Z][\w'’-]+", claim)} - STOPWORDS
    return {
        "logit_p": logit(p_raw),
        "overlap": len(words & found_words) / len(words) if words else 1.0,
        "numbers_missing": len(claim_numbers - found_numbers) / len(claim_numbers) if claim_numbers else 0.0,
        "names_missing": len(names - found_words) / len(names) if names else 0.0,
        "rerank": max((e.relevance for e in evidence), default=0.0),
    }
