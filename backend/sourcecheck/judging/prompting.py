"""What the judge's prompts say: the prompt files, the excerpts block, and the fence that keeps text from a PDF or a
page from changing the prompt around it."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from importlib import resources
from string import Template
from typing import TYPE_CHECKING

from sourcecheck.evidence import format_sources

if TYPE_CHECKING:
    from sourcecheck.evidence import Evidence


@functools.cache  # read once: prompt() is on the path of every model call
def prompt(name: str) -> Template:
    return Template(resources.files("sourcecheck").joinpath(f"prompts/{name}.txt").read_text(encoding="utf-8"))


def messages(name: str, system: str = "system", **fields: str) -> list[dict[str, str]]:
    """The chat for a prompt; every field is fenced first (fence()): the sources fully, the user's own text
    (a claim, a sentence, the text to revise) only of control tokens, so it comes back as it was written.
    system: the system prompt's name (default: ours; a profile may name its own)."""
    fenced = {k: fence(v, labels=k in ("sources", "critiques")) for k, v in fields.items()}
    return [
        {"role": "system", "content": prompt(system).template.strip()},
        {"role": "user", "content": prompt(name).substitute(**fenced).strip()},
    ]


def fence(text: object, labels: bool = True) -> str:
    """Text from a PDF or a page made unable to change the prompt around it: chat-template control tokens
    ("<|im_start|>system", "<|eot_id|>", "[INST]") are removed, since the prompt is tokenised with special tokens
    on, and the prompts' own field labels ("Claim:", "Revised:") lose their colon, so a passage cannot open a
    field of its own."""
    text = _CONTROL.sub(" ", str(text))
    return _FIELD.sub(lambda m: m.group(1) + " -", text) if labels else text


_CONTROL = re.compile(r"<\|[^|<>\s]{1,40}\|>|</?s>|\[/?INST\]|<</?SYS>>", re.IGNORECASE)
_FIELD = re.compile(
    r"\b(source excerpts|claim|critique|error type|revised|sentence|text|critiques|answer)\s*:", re.IGNORECASE
)


def sources_text(evidence: Sequence[Evidence], shown: Sequence[Evidence]) -> str:
    """The prompt's excerpts (shown), pointing at the claim's best excerpt (the first of its evidence, which is most
    relevant first) when another one stands nearest the claim."""
    if not shown:
        return "(none found)"
    text = format_sources(shown)
    if evidence and shown[-1].passage != evidence[0].passage:  # the best excerpt is not nearest the claim
        best = next((i for i, e in enumerate(shown, 1) if e.passage == evidence[0].passage), None)
        if best:
            text += f"\n(The excerpt most relevant to the claim is [{best}].)"
    return text
