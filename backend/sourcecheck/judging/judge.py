"""What the model is asked for a verdict, and what its answers are read as: a claim's P(Yes) over its evidence and
where that lies on the judge's scale, the second read's P(Yes) per item and both reads' P, and the swaps reading
tries. The stages these serve run in order in check.py; the stages that ask the model through the judge are
reading.read_conflict (3b) and explaining.explain (5, the card)."""

from __future__ import annotations

import math
import re
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Sequence

from sourcecheck.conflict.reading import Swap, swaps
from sourcecheck.errors import ConfigError
from sourcecheck.evidence import Evidence
from sourcecheck.judging.calibration import PLAIN_BANDS, calibrated, for_judge, logit, sigmoid
from sourcecheck.judging.prompting import messages, sources_text
from sourcecheck.llm.base import Model

if TYPE_CHECKING:  # annotations only: a check hands show() its block, explain() a Score
    from sourcecheck.evidence import EvidenceBlock

CACHE_SIZE = 4096  # verdicts kept: a re-check of the same answer (a page re-render, a retry) costs nothing
# Prompt profiles (a model's "profile" in llm/catalog.json) → the system prompt that goes with its verify prompt,
# prompts/<profile>.txt. MiniCheck was trained with a system prompt of its own (MiniCheck's minicheck/utils.py; Ollama's
# bespoke-minicheck carries the same one), so it gets that one, not ours.
PROFILES = {"verify": "system", "minicheck": "minicheck_system"}
# The second read (issue 48): a sentence the first read is not sure of is read again against each of its most
# relevant items on its own, MiniCheck's way (a claim is supported if one passage supports it), each item a window
# around the sentence picked as the one that settles it (evidence.select_evidence). Three: the settling quote is among
# a check's top three items for most sentences, and each item read costs about a third of the first read.
READ_ALONE = 3


class Asking:
    """How a judge asks for a verdict: what a sentence's prompt shows, the words that ask, a claim's P(Yes) and the
    swaps reading tries. The product asks this way; the evaluation measures other ways by giving a judge its own
    (Judge(model, asking=...): sourcecheck_eval.judge.LabAsking, prompt_ab.VariantAsking)."""

    def show(self, judge: Judge, claim: str, evidence: list[Evidence], block: EvidenceBlock) -> list[Evidence]:
        """The check's evidence block with this sentence's evidence added (evidence.EvidenceBlock)."""
        return block.add(evidence)

    def verify_messages(
        self, judge: Judge, claim: str, evidence: Sequence[Evidence], shown: Sequence[Evidence]
    ) -> list[dict[str, str]]:
        """The chat that asks "do the excerpts support the claim?" in the judge's prompt profile."""
        return messages(judge.profile, PROFILES[judge.profile], sources=sources_text(evidence, shown), claim=claim)

    def answer(self, judge: Judge, claim: str, evidence: Sequence[Evidence], shown: Sequence[Evidence]) -> float:
        """A claim's P(Yes) as scoring and reading ask for it: one prompt that shows `shown`."""
        return judge.p_yes(claim, evidence, shown)

    def swaps(self, judge: Judge, claim: str, evidence: Sequence[Evidence]) -> list[Swap]:
        """The swaps reading tries for a flagged sentence: its numbers for its sources' (reading.swaps)."""
        return swaps(claim, evidence)


class Judge:
    """Prompting and parsing for every backend; the model only moves tokens. How it asks is its Asking's."""

    def __init__(
        self,
        model: Model,
        calibration: dict | None = None,
        sensitivity: str = "balanced",
        calibrations: str | None = None,
        reread: tuple[float, float] | None = None,
        asking: Asking | None = None,
    ) -> None:
        """calibration: the scale to judge by (calibration.py); default: the judge's own from the calibrations
        folder, else the shipped one (then `calibrated` is False unless the judge is the default one). reread: read
        again every sentence whose first P(supported) lies in [low, high), whatever its grade (the evaluation
        measures the second read that way); default: the sentences the first read grades uncertain, when the
        calibration has a second read's scale. asking: how it asks (Asking); default the product's way."""
        self.model, self.asking = model, asking or Asking()
        if calibration is None:
            self.calibration, self.calibrated = for_judge(model.judge_id(), calibrations, model.profile)
        else:
            self.calibration, self.calibrated = calibration, True
        bands = self.calibration.get("bands") or PLAIN_BANDS
        self.bands: dict[str, tuple[float, float]] = {s: (b[0], b[1]) for s, b in bands.items()}
        if sensitivity not in self.bands:
            raise ConfigError(f"Unknown sensitivity {sensitivity!r}; use one of {', '.join(self.bands)}.")
        self.band, self.sensitivity = self.bands[sensitivity], sensitivity
        self.second: dict[str, Any] | None = self.calibration.get("second")
        self.reread_window = reread
        second_bands = (self.second or {}).get("bands") or self.bands
        self.second_bands: dict[str, tuple[float, float]] = {s: (b[0], b[1]) for s, b in second_bands.items()}
        self.profile = model.profile
        if self.profile not in PROFILES:
            raise ConfigError(f"Unknown prompt profile {self.profile!r}; use one of {', '.join(PROFILES)}.")
        self.cache = Cache()  # what a re-check would ask again: scores, second reads, swaps read, cards

    def prepare(self) -> None:
        """Load the model now; raise ModelError if it cannot work (a clear error before a stream starts)."""
        self.model.prepare()

    def warm_up(self) -> None:
        """Load the model and, where it keeps its last prompt's prefix (Model.read_ahead), read what every check's
        prompts open with: the system turn and the verify prompt up to its excerpts. The server does this at start,
        so its first check reads only its own excerpts and sentences, as every later one does (issue 35)."""
        self.prepare()
        self.model.read_ahead(self.verify_messages("Warm-up.", [], []))

    def show(self, claim: str, evidence: list[Evidence], block: EvidenceBlock) -> list[Evidence]:
        """What a sentence's prompt shows, in the prompt's order (Asking.show)."""
        return self.asking.show(self, claim, evidence, block)

    def verify_messages(
        self, claim: str, evidence: Sequence[Evidence], shown: Sequence[Evidence]
    ) -> list[dict[str, str]]:
        """The chat that asks "do the excerpts support the claim?"; shown: the excerpts the prompt presents, in its
        order (evidence.prompt_order)."""
        return self.asking.verify_messages(self, claim, evidence, shown)

    def p_yes(self, claim: str, evidence: Sequence[Evidence], shown: Sequence[Evidence]) -> float:
        """The model's probability of "Yes" to "do the excerpts support the claim?" (raw, uncalibrated).
        shown: the excerpts the prompt presents."""
        probs, text, _ = self.model.choose(self.verify_messages(claim, evidence, shown), ("Yes", "No"))
        return yes_probability(probs, text)

    def answer(self, claim: str, evidence: Sequence[Evidence], shown: Sequence[Evidence]) -> float:
        """A claim's P(Yes) as scoring and reading ask for it (Asking.answer)."""
        return self.asking.answer(self, claim, evidence, shown)

    def raw(
        self, claim: str, evidence: Sequence[Evidence], shown: Sequence[Evidence], decompose: bool = False
    ) -> float:
        """A sentence's P(Yes), cached; a decomposed sentence holds only if all its claims hold (Factored
        Verification): the product of theirs."""
        key = (claim, tuple(e.passage for e in evidence), tuple(e.passage for e in shown), decompose)
        found = self.cache.get("score", key)
        if found is None:
            claims = self.decompose(claim) if decompose and len(claim.split()) > 12 else [claim]
            found = math.prod([self.answer(c, evidence, shown) for c in claims])
        self.cache.put("score", key, found)
        return found

    @property
    def rereads_any(self) -> bool:
        """Whether this judge reads any sentence a second time."""
        return self.second is not None or self.reread_window is not None

    def rereads(self, p: float, label: str) -> bool:
        """Whether a sentence gets a second read: one the first read graded uncertain (p its P(supported)), once a
        second read's scale is fitted for this judge; a red one never (its conflict settles it)."""
        if label == "contradicted":
            return False
        if self.reread_window is not None:
            return self.reread_window[0] <= p < self.reread_window[1]
        return self.second is not None and label == "uncertain"

    def alone(self, claim: str, evidence: Sequence[Evidence]) -> list[float]:
        """The second read: the claim's P(Yes) against each of its READ_ALONE most relevant items on its own, cached
        (a prompt showing one item, so its words are that item's and nothing else's)."""
        items = list(evidence)[:READ_ALONE]
        key = (claim, tuple(e.passage for e in items))
        found = self.cache.get("alone", key)
        if found is None:
            found = tuple(self.p_yes(claim, [e], [e]) for e in items)
            self.cache.put("alone", key, found)
        return list(found)

    def combine(self, p_raw: float, alone: Sequence[float]) -> float:
        """P(supported) after both reads: σ(a₁·logit P₁ + a₂·logit max P_alone + b) under the calibration's second
        scale; the first read's P(supported) while none is fitted."""
        if not self.second or not alone:
            return self.calibrate(p_raw)
        (a1, a2), b = self.second["a"], self.second["b"]
        return sigmoid(a1 * logit(p_raw) + a2 * logit(max(alone)) + b)

    def calibrate(self, p: float) -> float:
        """The probability that a claim is supported: the model's P(Yes) on the judge's calibrated scale
        (calibration.py)."""
        return calibrated(p, self.calibration)

    def decompose(self, sentence: str) -> list[str]:
        """Atomic claims of a long sentence (FacTool's claim extraction); the sentence itself if that fails."""
        msgs = messages("decompose", sentence=sentence)
        lines = [
            re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line).strip()
            for line in self.model.complete(msgs, max_tokens=160).splitlines()
        ]
        claims = [line for line in lines if len(line.split()) >= 3][:4]
        return claims or [sentence]

    def swaps(self, claim: str, evidence: Sequence[Evidence]) -> list[Swap]:
        """The swaps reading tries for a flagged sentence (Asking.swaps)."""
        return self.asking.swaps(self, claim, evidence)


def yes_probability(probs: dict[str, float] | None, text: str) -> float:
    """P(Yes) from a model's answer: its probability, or 1/0 from the word when the backend gives none."""
    if probs is None:
        return 1.0 if text.strip().lower().startswith("yes") else 0.0
    return probs["Yes"]


class Cache:
    """What a judge has asked, by kind ("score", "alone", "reading", "card") and what it was asked of: the latest
    CACHE_SIZE answers of all kinds. Request threads, and a check's own scoring threads, share it."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._lock = threading.Lock()  # another thread may be evicting from the OrderedDict at this moment
        self._items: OrderedDict[tuple[str, tuple], Any] = OrderedDict()

    def get(self, kind: str, key: tuple) -> Any:
        with self._lock:
            return self._items.get((kind, key))

    def put(self, kind: str, key: tuple, value: Any) -> None:
        with self._lock:
            self._items[(kind, key)] = value
            self._items.move_to_end((kind, key))
            while len(self._items) > self.size:
                self._items.popitem(last=False)
