"""One claim + its evidence → a verdict: P(Yes) from the model, then a critique for what is not supported."""

import functools
import json
import math
import re
from collections import OrderedDict
from importlib import resources
from string import Template

from sourcecheck.evidence import format_sources
from sourcecheck.text import STOPWORDS, content_words, numbers

CACHE_SIZE = 4096  # verdicts kept: a re-check of the same answer (a page re-render, a retry) costs nothing

ERROR_TYPES = ("entity", "relation", "contradictory", "invented", "subjective", "unverifiable")
CONTRADICTING = {"entity", "relation", "contradictory"}  # FAVA types where the sources say otherwise
TYPE_HELP = {
    "entity": "a wrong name, number or date",
    "relation": "a wrong relation between right things",
    "contradictory": "the excerpts say the opposite",
    "invented": "something the excerpts never mention as existing",
    "subjective": "an opinion",
    "unverifiable": "the excerpts say nothing about it",
}


@functools.cache  # read once: prompt() is on the path of every model call
def prompt(name):
    return Template(resources.files("sourcecheck").joinpath(f"prompts/{name}.txt").read_text(encoding="utf-8"))


def load_calibration():
    return json.loads(resources.files("sourcecheck").joinpath("calibration.json").read_text())


def linear(rule, features):
    """A logistic rule's score, {"weights": {signal: w}, "bias": b} over signal_features(): ≥ 0 means yes."""
    return rule["bias"] + sum(w * features[name] for name, w in rule["weights"].items())


class Judge:
    """Prompting and parsing for every backend; the model only moves tokens."""

    def __init__(self, model, threshold=0.5, calibration=None):
        self.model = model
        self.threshold = threshold
        shipped = load_calibration()
        calibration = calibration or shipped
        # A calibration without a stance rule (a plain Platt refit, a test's) keeps the shipped one.
        self.calibration = {**calibration, "stance": calibration.get("stance") or shipped.get("stance")}
        self._system = prompt("system").template.strip()
        self._cache = OrderedDict()

    def messages(self, name, **fields):
        return [{"role": "system", "content": self._system},
                {"role": "user", "content": prompt(name).substitute(**fields).strip()}]

    def p_yes(self, claim, evidence, shown=None):
        """The model's probability of "Yes" to "do the excerpts support the claim?" (raw, uncalibrated)."""
        msgs = self.messages("verify", sources=sources_text(evidence, shown), claim=claim)
        probs, text = self.model.choose(msgs, ("Yes", "No"))
        if probs is None:
            return 1.0 if text.strip().lower().startswith("yes") else 0.0
        return probs["Yes"]

    def calibrate(self, p, features=None):
        """The calibrated probability that a claim is supported (calibration.json, fitted on dev data)."""
        return calibrated(p, features, self.calibration)

    def contradicts(self, features):
        """Whether a claim that is not supported is contradicted (else merely unsupported), by the logistic
        rule in calibration.json's "stance" over the evidence signals, fitted on dev items whose error type
        says which (fitting.py). A claim about what its evidence talks about (most of its words are there)
        is contradicted; one mostly new to it is unsupported. Asking the model "do the excerpts contradict
        it?" did worse than chance there: it says Yes to most related claims.
        """
        rule = self.calibration["stance"]
        # no rule anywhere (a calibration.json without one): never claim the sources disagree
        return bool(rule) and linear(rule, features) >= 0.0

    def critique(self, claim, evidence, shown=None, label="unsupported"):
        """Critique, FAVA error type (one that fits the label) and a revised claim for an unsupported claim."""
        types = CONTRADICTING if label == "contradicted" else set(ERROR_TYPES) - CONTRADICTING
        listed = "\n".join(f"- {t}: {TYPE_HELP[t]}" for t in ERROR_TYPES if t in types)
        msgs = self.messages("critique", sources=sources_text(evidence, shown), claim=claim, types=listed)
        return parse_critique(self.model.complete(msgs, max_tokens=100), claim, types)

    def decompose(self, sentence):
        """Atomic claims of a long sentence (FacTool's claim extraction); the sentence itself if that fails."""
        msgs = self.messages("decompose", sentence=sentence)
        lines = [re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line).strip() for line in
                 self.model.complete(msgs, max_tokens=160).splitlines()]
        claims = [line for line in lines if len(line.split()) >= 3][:4]
        return claims or [sentence]

    def score(self, claim, evidence, decompose=False, shown=None, stance=True):
        """label and p_supported of one sentence, from single forward passes (no text is generated).

        evidence: this claim's evidence, most relevant last. shown: the evidence block the prompt presents
        when a check shares one block among its sentences (evidence.EvidenceBlock); default: evidence.
        stance: tell contradicted from unsupported for a claim that is not supported (else "unsupported").
        """
        key = (claim, tuple(e.passage for e in evidence), decompose)
        p_raw = self._cache.get(key)
        if p_raw is None:
            claims = self.decompose(claim) if decompose and len(claim.split()) > 12 else [claim]
            # Factored Verification: a sentence holds only if all its claims hold.
            p_raw = math.prod(self.p_yes(c, evidence, shown) for c in claims)
        self._remember(key, p_raw)
        # Calibrated on every call: the cache keeps the model's raw scores.
        features = signal_features(claim, evidence, p_raw)
        p = self.calibrate(p_raw, features)
        if p >= self.threshold:
            label = "supported"
        else:
            label = "contradicted" if stance and self.contradicts(features) else "unsupported"
        for e in evidence:
            e.stance = "related"
        if evidence and label != "unsupported":
            evidence[-1].stance = "supports" if label == "supported" else "refutes"
        return {"label": label, "p_supported": p}

    def explain(self, claim, evidence, label, shown=None):
        """error_type, critique and revised for a scored sentence (what its card shows)."""
        if label == "supported":
            return {"error_type": None, "critique": _supported_note(evidence), "revised": None}
        key = ("explain", claim, tuple(e.passage for e in evidence), label)
        if key not in self._cache:
            self._remember(key, self.critique(claim, evidence, shown, label))
        return dict(self._cache[key])

    def verdict(self, claim, evidence, decompose=False, critique=True, shown=None):
        """score() and, with critique, explain(): one sentence's whole verdict at once.

        critique=False: a sentence that is not supported is "unsupported" with no error type, critique or
        revision (evaluation needs only the scores).
        """
        v = self.score(claim, evidence, decompose, shown, stance=critique)
        if critique or v["label"] == "supported":
            return {**v, **self.explain(claim, evidence, v["label"], shown)}
        return {**v, "error_type": None, "critique": None, "revised": None}

    def _remember(self, key, value):
        self._cache[key] = value
        self._cache.move_to_end(key)
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)

    def revise_text(self, text, critiques):
        """The whole text rewritten from the collected critiques (Factored Verification's revision step)."""
        if not critiques:
            return text
        listed = "\n".join(f"- \"{s}\": {c}" for s, c in critiques)
        msgs = self.messages("revise", text=text, critiques=listed)
        return self.model.complete(msgs, max_tokens=max(200, len(text) // 3)).strip() or text


def calibrated(p, features, calibration):
    """P(supported) from the raw P(Yes): Platt scaling ({"a", "b"}), or a logistic model over the signals
    of signal_features() ({"weights": {name: w}, "bias": b}), the consistency + factuality paper's way of
    combining the judge with cheap checks (fitting.py fits it; docs/quality.md: not kept so far)."""
    if "weights" in calibration and features is not None:
        z = linear(calibration, features)
    else:
        z = calibration.get("a", 1.0) * _logit(p) + calibration.get("b", 0.0)
    return 1.0 / (1.0 + math.exp(-z))


def _logit(p):
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def signal_features(claim, evidence, p_raw):
    """Signals besides the judge's P(Yes): how much of the claim the evidence contains, word for word."""
    found_text = " ".join(e.passage for e in evidence)
    found_words, found_numbers = set(content_words(found_text)), numbers(found_text)
    claim_numbers = numbers(claim)
    # '350,000' is a content word and the number '350000': count it once, as a number
    words = {w for w in content_words(claim) if w.replace(",", "") not in claim_numbers}
    names = {w.lower() for w in re.findall(r"(?<!^)(?<![.!?]\s)\b[A-Z][\w'’-]+", claim)} - STOPWORDS
    return {
        "logit_p": _logit(p_raw),
        "overlap": len(words & found_words) / len(words) if words else 1.0,
        "numbers_missing": len(claim_numbers - found_numbers) / len(claim_numbers) if claim_numbers else 0.0,
        "names_missing": len(names - found_words) / len(names) if names else 0.0,
        "similarity": max((e.score for e in evidence), default=0.0),
    }


def sources_text(evidence, shown=None):
    """The prompt's excerpts: the shared block when there is one, pointing at this claim's best excerpt."""
    block = shown if shown is not None else evidence
    if not block:
        return "(none found)"
    text = format_sources(block)
    if evidence and block[-1].passage != evidence[-1].passage:  # the best excerpt is not nearest the claim
        best = next((i for i, e in enumerate(block, 1) if e.passage == evidence[-1].passage), None)
        if best:
            text += f"\n(The excerpt most relevant to the claim is [{best}].)"
    return text


def _supported_note(evidence):
    return f"Supported by {evidence[-1].filename}, page {evidence[-1].page}." if evidence else None


def parse_critique(reply, claim, types=ERROR_TYPES):
    """Read the three fields of a critique reply, tolerating a small model's formatting.

    Fields may share a line ("... not five. Error type: entity. Revised: ..."), so each runs to the next label.
    """
    labels = list(_LABEL.finditer(reply))
    fields = {}
    for m, nxt in zip(labels, labels[1:] + [None]):
        key = m.group(1).lower().replace("_", " ").replace(" claim", "")
        value = reply[m.end():nxt.start() if nxt else len(reply)]
        fields.setdefault(key, value.strip().strip("*\"' \t.").strip())
    # The label was decided by the scores; the type is one that fits it.
    default = "unverifiable" if "unverifiable" in types else "contradictory"
    error_type = next((t for t in ERROR_TYPES if t in types and t in fields.get("error type", "").lower()), default)
    revised = fields.get("revised", "")
    # A small model sometimes answers about the claim instead of rewriting it: that is no revision.
    if (not revised or revised.lower().startswith("none") or revised.strip() == claim.strip().rstrip(".")
            or re.search(r"\b(claim|excerpts?)\b", revised, re.IGNORECASE)):
        revised = None
    elif not revised.endswith((".", "!", "?")):
        revised += "."
    critique = fields.get("critique") or reply.strip().split("\n")[0][:400].strip("*: ")
    critique = critique or "The sources do not support this."
    return {"error_type": error_type, "critique": critique if critique.endswith(".") else critique + ".",
            "revised": revised}


_LABEL = re.compile(r"(?:^|(?<=[\s*.]))\**(critique|error[ _]type|revised(?: claim)?)\**\s*:\**", re.IGNORECASE)
