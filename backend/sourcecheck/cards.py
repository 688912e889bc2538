"""What a card says: the model's critique read and checked against the sources, the error type, the plain notes.

Pure text functions: the judge (judge.py) asks the model; these decide whether what it wrote can be shown.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from sourcecheck.numerals import numbers
from sourcecheck.phrases import NEGATIONS, OPPOSITE
from sourcecheck.words import STOPWORDS, content_words, stems

if TYPE_CHECKING:  # for the annotations only: cards need no more than the text of evidence
    from sourcecheck.evidence import Evidence

_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?", re.IGNORECASE)

NOT_FOUND = "Your PDFs do not say this; the closest passages are shown below."
# A clause that says what the sources state, unless it denies it ("the excerpts do not mention ...")
_ATTRIBUTION = re.compile(
    r"\b(according to|as (?:stated|reported|described|given) (?:in|by)|per the)\b|"
    r"\b(excerpts?|sources?|passages?|papers?|text|documents?|study|studies|authors?)\b"
    r".{0,60}?\b(states?|stated|says?|said|reports?|reported|mentions?|mentioned|shows?|notes?|"
    r"indicates?|describes?|lists?|finds?|found|gives?|claims?|confirms?|confirmed|supports?|has|have|had|"
    r"contains?|uses?|is|are|was|were)\b",
    re.IGNORECASE,
)
_DENIAL = re.compile(r"\b(not|no|never|nothing|neither)\b|n't", re.IGNORECASE)
# A critique that says the sentence holds, under a verdict that says it does not ("both statements are essentially
# correct"): the card would contradict itself
_AFFIRMS = re.compile(
    r"\b(?:is|are|was|were|seems?|appears?)\s+(?:\w+\s+){0,2}?(?:correct|accurate|true|right|"
    r"supported|consistent with|in line with|confirmed)\b|\b(?:accurately|correctly)\s+(?:states?|"
    r"describes?|reflects?|reports?|summari[sz]es?|captures?)\b|"
    r"\b(?:matches|aligns with|agrees with)\b|"
    r"\b(?:supports?|confirms?|corroborates?)\s+(?:the|this|that)\s+(?:claim|sentence|statement)\b",
    re.IGNORECASE,
)
# A clause that says the sources state what the sentence says, in its words ("The excerpts state that Factored
# Verification checks each sentence..."): it repeats this share of the sentence's content stems, at least
# RESTATED_STEMS of them, adds no more than RESTATED_NEW new stems for each of the sentence's, and puts none in place
# of one it leaves out (_restates())
RESTATED = 0.7
RESTATED_STEMS = 3
RESTATED_NEW = 0.5
INFLECTED = 4  # letters two stems share when they are one word inflected otherwise ("cited", "cites")
_CONTRAST = re.compile(r"\b(?:but|however|whereas|while|although|though|yet|except)\b", re.IGNORECASE)
_OBJECTS = re.compile(
    r"\b(?:wrong|incorrect|inaccurate|missing|differs?|different|instead|rather than|contradicts?|"
    r"misstates?|overstates?|understates?|error|mistaken|only|unsupported)\b",
    re.IGNORECASE,
)
# Words that make a sentence an opinion rather than a fact; one the sources do not use makes it FAVA's subjective
_OPINION = re.compile(
    r"\b(?:best|worst|elegant\w*|superior|inferior|excellent|outstanding|remarkabl\w*|impressive\w*|"
    r"powerful|clearly|obviously|undoubtedly|arguably|ideal|perfect\w*|beautiful\w*|brilliant\w*|"
    r"state-of-the-art|gold standard|recommend\w*|by far|trustworthy|should (?:always|never)|than (?:any|all) other|"
    r"most (?:important|useful|elegant|popular|intuitive|reliable|robust|convenient|natural|flexible|informative|"
    r"effective|powerful|accurate|efficient|valuable))\b",
    re.IGNORECASE,
)
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


def critique_is_sound(critique: str, claim: str, evidence: Sequence[Evidence]) -> bool:
    """False when a critique says the sources state something of the sentence's own that they do not (the
    sentence's numbers, names or opinion put in the sources' mouth: a small model swaps claim and source), or says
    the flagged sentence is right after all."""
    found = " ".join(e.passage for e in evidence)
    found_words, found_numbers = set(content_words(found)), numbers(found)
    own = {n for n in numbers(claim) if n not in found_numbers}
    own_names = _names(claim) - found_words - STOPWORDS
    own_words = set(content_words(claim)) - found_words
    clauses = [c for c in re.split(r"(?<=[.;])\s+|,?\s+(?:but|while|whereas|however)\s+", critique) if c.strip()]
    if not any(_DENIAL.search(c) or _OBJECTS.search(c) for c in clauses) and (
        any(_AFFIRMS.search(c) for c in clauses)
        or not _CONTRAST.search(critique)
        and all(_restates(c, claim) for c in clauses)
    ):
        return False  # it only says the flagged sentence holds: the card would contradict its verdict
    for clause in clauses:
        if not _ATTRIBUTION.search(clause) or _DENIAL.search(clause):
            continue
        if (
            numbers(clause) & own
            or numbers(clause) - found_numbers
            or _names(clause) & own_names
            or _OPINION.search(clause)
            and set(content_words(clause)) & own_words
        ):
            return False
    return True


def _restates(clause: str, claim: str) -> bool:
    """Whether a clause puts the sentence itself in the sources' mouth ("The excerpts state that <the sentence>"):
    it attributes, denies nothing, repeats RESTATED of the sentence's stems, and brings no number, name, negation or
    opposite word of its own (a critique that says "the excerpts state that ChatGPT, not FAVA, ..." corrects)."""
    said = _ATTRIBUTION.search(clause)
    if not said or _DENIAL.search(clause):
        return False
    rest = clause[said.end() :]
    ours, theirs, words = stems(claim), stems(rest), set(_WORD.findall(rest.lower()))
    names = _names(rest) - _names(claim) - set(content_words(claim))
    dropped, added = ours - theirs, theirs - ours
    # a word of the sentence left out and another put in is a correction ("each paragraph" for "each sentence"),
    # unless it is the same word inflected otherwise ("cited" for "cites")
    swapped = {w for w in added if not any(w[:INFLECTED] == d[:INFLECTED] for d in dropped)} if dropped else set()
    return (
        len(ours) >= RESTATED_STEMS
        and len(ours & theirs) >= RESTATED * len(ours)
        and len(added) <= RESTATED_NEW * len(ours)
        and not swapped
        and numbers(rest) <= numbers(claim)
        and not names - STOPWORDS
        and not (words & NEGATIONS) - set(_WORD.findall(claim.lower()))
        and not any(OPPOSITE.get(w, set()) & words for w in _WORD.findall(claim.lower()) if w not in words)
    )


def _names(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"\b[A-Z][\w'’-]+", text)}


def opinion(claim: str, evidence: Sequence[Evidence]) -> bool:
    """Whether the sentence holds an evaluative word ("the most elegant", "clearly superior") its sources do not
    use: an opinion stated as a fact, FAVA's subjective, whatever type the model named."""
    found = " ".join(e.passage for e in evidence).lower()
    return any(m.group(0).lower() not in found for m in _OPINION.finditer(claim))


def name_excerpts(critique: str, block: Sequence[Evidence]) -> str:
    """The prompt numbers its excerpts; the card has no numbers: "[3]" becomes "paper.pdf, page 2"."""

    def name(m: re.Match[str]) -> str:
        k = int(m.group(1))
        return f"{block[k - 1].filename}, page {block[k - 1].page}" if 1 <= k <= len(block) else "an excerpt"

    return re.sub(r"\[(\d{1,2})\]", name, critique)


def normal(text: str) -> str:
    """What a sentence says, for telling whether a revision changed it: its content words, its values, and its
    negations and direction words. Content words alone leave out one-character words and stopwords, so "5 hours"
    and "3 hours", "before" and "after", "is not" and "is" read the same: issue 36's red card for 5 where its page
    said 3 had its correction refused as unchanged, unread."""
    turns = [w for w in _WORD.findall(text.lower()) if w in OPPOSITE or w in NEGATIONS]
    return " ".join(content_words(text) + sorted(numbers(text)) + turns)


def supported_note(evidence: Sequence[Evidence]) -> str | None:
    return f"Supported by {evidence[-1].filename}, page {evidence[-1].page}." if evidence else None


def uncertain_note(evidence: Sequence[Evidence]) -> str:
    """An uncertain card's words: the closest passage and where it is, and no critique the judge did not make
    (its score lies where its scale moves between kinds of text, so neither verdict would be honest)."""
    if not evidence:
        return "sourcecheck is not sure: no passage in your PDFs is close to it."
    best = evidence[-1]  # evidence lists are most relevant last
    return f"sourcecheck is not sure: the closest passage is “{best.quote}” ({best.filename}, page {best.page})."


def parse_critique(reply: str, claim: str, types: Collection[str] = ERROR_TYPES) -> dict[str, str | None]:
    """Read the three fields of a critique reply, tolerating a small model's formatting.

    Fields may share a line ("... not five. Error type: entity. Revised: ..."), so each runs to the next label.
    """
    labels = list(_LABEL.finditer(reply))
    fields: dict[str, str] = {}
    for m, nxt in zip(labels, labels[1:] + [None]):
        key = m.group(1).lower().replace("_", " ").replace(" claim", "")
        value = reply[m.end() : nxt.start() if nxt else len(reply)]
        fields.setdefault(key, value.strip().strip("*\"' \t.").strip())
    # The label was decided by the scores; the type is one that fits it.
    default = "unverifiable" if "unverifiable" in types else "contradictory"
    error_type = next((t for t in ERROR_TYPES if t in types and t in fields.get("error type", "").lower()), default)
    revised: str | None = fields.get("revised", "")
    # A small model sometimes answers about the claim instead of rewriting it: that is no revision.
    if (
        not revised
        or revised.lower().startswith("none")
        or revised.strip() == claim.strip().rstrip(".")
        or re.search(r"\b(claim|excerpts?)\b", revised, re.IGNORECASE)
    ):
        revised = None
    elif not revised.endswith((".", "!", "?")):
        revised += "."
    critique = fields.get("critique") or reply.strip().split("\n")[0][:400].strip("*: ")
    critique = critique or "The sources do not support this."
    return {
        "error_type": error_type,
        "critique": critique if critique.endswith(".") else critique + ".",
        "revised": revised,
    }


_LABEL = re.compile(r"(?:^|(?<=[\s*.]))\**(critique|error[ _]type|revised(?: claim)?)\**\s*:\**", re.IGNORECASE)
