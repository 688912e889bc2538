"""One claim + its evidence → a verdict: P(Yes) from the model, then a critique for what is not supported."""

import json
import math
import re
from importlib import resources
from string import Template

from sourcecheck.evidence import format_sources

ERROR_TYPES = ("entity", "relation", "contradictory", "invented", "subjective", "unverifiable")
CONTRADICTING = {"entity", "relation", "contradictory"}  # FAVA types where the sources say otherwise


def prompt(name):
    return Template(resources.files("sourcecheck").joinpath(f"prompts/{name}.txt").read_text(encoding="utf-8"))


def load_calibration():
    return json.loads(resources.files("sourcecheck").joinpath("calibration.json").read_text())


class Judge:
    """Prompting and parsing for every backend; the model only moves tokens."""

    def __init__(self, model, threshold=0.5, calibration=None):
        self.model = model
        self.threshold = threshold
        self.calibration = calibration or load_calibration()
        self._system = prompt("system").template.strip()

    def messages(self, name, **fields):
        return [{"role": "system", "content": self._system},
                {"role": "user", "content": prompt(name).substitute(**fields).strip()}]

    def p_yes(self, claim, evidence):
        """The model's probability that the evidence supports the claim (raw, uncalibrated)."""
        msgs = self.messages("verify", sources=format_sources(evidence) or "(none found)", claim=claim)
        probs, text = self.model.choose(msgs, ("Yes", "No"))
        if probs is None:
            return 1.0 if text.strip().lower().startswith("yes") else 0.0
        return probs["Yes"]

    def calibrate(self, p):
        """Platt scaling of the model's P(Yes), fitted on development data (calibration.json)."""
        p = min(max(p, 1e-6), 1 - 1e-6)
        z = self.calibration["a"] * math.log(p / (1 - p)) + self.calibration["b"]
        return 1.0 / (1.0 + math.exp(-z))

    def critique(self, claim, evidence):
        """Critique, FAVA error type and a revised claim for a claim that is not supported."""
        msgs = self.messages("critique", sources=format_sources(evidence) or "(none found)", claim=claim)
        return parse_critique(self.model.complete(msgs, max_tokens=160), claim)

    def decompose(self, sentence):
        """Atomic claims of a long sentence (FacTool's claim extraction); the sentence itself if that fails."""
        msgs = self.messages("decompose", sentence=sentence)
        lines = [re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line).strip() for line in
                 self.model.complete(msgs, max_tokens=160).splitlines()]
        claims = [line for line in lines if len(line.split()) >= 3][:4]
        return claims or [sentence]

    def verdict(self, claim, evidence, decompose=False, critique=True):
        """label, p_supported, error_type, critique, revised for one sentence.

        critique=False skips the critique call: a sentence that is not supported is "unsupported" with
        no error type, critique or revision (evaluation needs only the scores).
        """
        claims = self.decompose(claim) if decompose and len(claim.split()) > 12 else [claim]
        # Factored Verification: a sentence holds only if all its claims hold.
        p_raw = math.prod(self.p_yes(c, evidence) for c in claims)
        p = self.calibrate(p_raw)
        if p >= self.threshold:
            for i, e in enumerate(evidence):
                e.stance = "supports" if i == len(evidence) - 1 else "related"
            quote = evidence[-1] if evidence else None
            critique = f"Supported by {quote.filename}, page {quote.page}." if quote else None
            return {"label": "supported", "p_supported": p, "error_type": None, "critique": critique,
                    "revised": None}
        if not critique:
            return {"label": "unsupported", "p_supported": p, "error_type": None, "critique": None, "revised": None}
        found = self.critique(claim, evidence)
        label = "contradicted" if found["error_type"] in CONTRADICTING else "unsupported"
        if evidence:
            evidence[-1].stance = "refutes" if label == "contradicted" else "related"
        return {"label": label, "p_supported": p, **found}

    def revise_text(self, text, critiques):
        """The whole text rewritten from the collected critiques (Factored Verification's revision step)."""
        if not critiques:
            return text
        listed = "\n".join(f"- \"{s}\": {c}" for s, c in critiques)
        msgs = self.messages("revise", text=text, critiques=listed)
        return self.model.complete(msgs, max_tokens=max(200, len(text) // 3)).strip() or text


def parse_critique(reply, claim):
    """Read the three lines of a critique reply, tolerating a small model's formatting."""
    fields = {}
    for key in ("critique", "error type", "revised"):
        m = re.search(rf"^\W*{key}\W*:\s*(.+)$", reply, re.IGNORECASE | re.MULTILINE)
        fields[key] = m.group(1).strip("*\"' \t") if m else ""
    error_type = next((t for t in ERROR_TYPES if t in fields["error type"].lower()), "unverifiable")
    revised = fields["revised"]
    # A small model sometimes answers about the claim instead of rewriting it: that is no revision.
    if (not revised or revised.lower().startswith("none") or revised.strip() == claim.strip()
            or re.search(r"\b(claim|excerpts?)\b", revised, re.IGNORECASE)):
        revised = None
    critique = fields["critique"] or reply.strip().split("\n")[0][:400] or "The sources do not support this."
    return {"error_type": error_type, "critique": critique, "revised": revised}
