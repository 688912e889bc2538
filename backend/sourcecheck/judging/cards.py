"""The one place that writes a card's words: what a conflict found in the data states, the model's critique read and
checked against the sources, the error type, why no revision is offered, and the plain notes of settled verdicts.

Pure text functions: the judge (judge.py) asks the model; these decide what the card shows.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from sourcecheck.conflict import Conflict, Disagreement, put_value
from sourcecheck.conflict.phrases import OPPOSITE, is_negation, negates
from sourcecheck.text.numerals import UNITS, WORD_NUMBER, numbers
from sourcecheck.text.words import STOPWORDS, content_words, names, stems

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
    own_names = names(claim) - found_words - STOPWORDS
    own_words = set(content_words(claim)) - found_words
    clauses = [c for c in re.split(r"(?<=[.;])\s+|,?\s+(?:but|while|whereas|however)\s+", critique) if c.strip()]
    if not any(_denies(c) or _OBJECTS.search(c) for c in clauses) and (
        any(_AFFIRMS.search(c) for c in clauses)
        or not _CONTRAST.search(critique)
        and all(_restates(c, claim) for c in clauses)
    ):
        return False  # it only says the flagged sentence holds: the card would contradict its verdict
    for clause in clauses:
        if not _ATTRIBUTION.search(clause) or _denies(clause):
            continue
        if (
            numbers(clause) & own
            or numbers(clause) - found_numbers
            or names(clause) & own_names
            or _OPINION.search(clause)
            and set(content_words(clause)) & own_words
        ):
            return False
    return True


def _denies(text: str) -> bool:
    """Whether a clause denies something ("the excerpts do not mention ...", "nothing in them says ..."): a word of
    phrases.DENIALS. Not "without" or "fails": a critique that puts "fails on 95 % of cases" in the sources' mouth
    denies nothing, and must still be checked."""
    words = _WORD.findall(text.lower())
    return any(negates(words, i, denial=True) for i in range(len(words)))


def _restates(clause: str, claim: str) -> bool:
    """Whether a clause puts the sentence itself in the sources' mouth ("The excerpts state that <the sentence>"):
    it attributes, denies nothing, repeats RESTATED of the sentence's stems, and brings no number, name, negation or
    opposite word of its own (a critique that says "the excerpts state that ChatGPT, not FAVA, ..." corrects)."""
    said = _ATTRIBUTION.search(clause)
    if not said or _denies(clause):
        return False
    rest = clause[said.end() :]
    ours, theirs, words = stems(claim), stems(rest), set(_WORD.findall(rest.lower()))
    new_names = names(rest) - names(claim) - set(content_words(claim))
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
        and not new_names - STOPWORDS
        and not {w for w in words if is_negation(w)} - set(_WORD.findall(claim.lower()))
        and not any(OPPOSITE.get(w, set()) & words for w in _WORD.findall(claim.lower()) if w not in words)
    )


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
    turns = [w for w in _WORD.findall(text.lower()) if w in OPPOSITE or is_negation(w)]
    return " ".join(content_words(text) + sorted(numbers(text)) + turns)


def supported_note(evidence: Sequence[Evidence]) -> str | None:
    return f"Supported by {evidence[0].filename}, page {evidence[0].page}." if evidence else None


def uncertain_note(evidence: Sequence[Evidence]) -> str:
    """An uncertain card's words: the closest passage and where it is, and no critique the judge did not make
    (its score lies where its scale moves between kinds of text, so neither verdict would be honest)."""
    if not evidence:
        return "sourcecheck is not sure: no passage in your PDFs is close to it."
    best = evidence[0]
    return (
        f"sourcecheck is not sure: the closest passage is {in_quotes(best.quote)} ({best.filename}, page {best.page})."
    )


def describe(
    conflict: Conflict | Disagreement, filename: str, page: int, agreeing: tuple[str, int] | None = None
) -> str:
    """The card's critique for a found conflict, from the data alone; agreeing: (filename, page) of the
    document that states the claim's value, for a disagreement between documents."""
    where = f"{filename}, page {page}"
    if isinstance(conflict, Disagreement) and agreeing:  # stated_card passes a disagreement's agreeing
        return (
            f"Your sources disagree: {agreeing[0]}, page {agreeing[1]} says {conflict.claim_value} "
            f"({in_quotes(conflict.agreeing_quote)}); {where} says {conflict.source_value} "
            f"({in_quotes(conflict.quote)})"
        )
    if conflict.kind == "negation":
        return f"{where} says the opposite: {in_quotes(conflict.quote)}"
    return (
        f"The sentence says {conflict.claim_value}; {where} says {conflict.source_value}: {in_quotes(conflict.quote)}"
    )


QUOTES = "\"'“”‘’«»„"


def in_quotes(text: str) -> str:
    """text in curly quotes, once: a quote that is itself in quotation marks is not quoted twice."""
    inner = text.strip()
    if len(inner) > 1 and inner[0] in QUOTES and inner[-1] in QUOTES:
        inner = inner[1:-1].strip()
    return f"“{inner}”"


def closed(text: str) -> str:
    """text ending as a sentence does: a stop added only where it has none ("… 158.”" stays, not "… 158.”.")."""
    text = text.rstrip()
    return text if text.rstrip(QUOTES + ")").endswith((".", "!", "?")) else text + "."


def corrected(claim: str, conflict: Conflict) -> str | None:
    """The claim with its value replaced by the source's (None where no replacement is known)."""
    if conflict.kind == "negation" or not conflict.fixable:
        return None
    value, first = conflict.source_value, conflict.source_value.split()[0].lower()
    if first in UNITS or first == "a" or WORD_NUMBER.fullmatch(first):
        value = value[0].lower() + value[1:]  # a word number that opened the source's sentence: not mid-sentence
    return put_value(claim, conflict.claim_value, value, conflict.quote)


# FAVA's type for each kind of conflict conflict/__init__.py finds
CONFLICT_TYPES = {
    "number": "entity",
    "year": "entity",
    "percent": "entity",
    "name": "entity",
    "negation": "contradictory",
    "direction": "relation",
}


def stated_card(claim: str, found: Conflict | Disagreement, places: list[tuple[str, int]]) -> dict:
    """error_type, critique and revised of a card whose finding is data, not the model's words.
    places: (filename, page) of each evidence item."""
    if isinstance(found, Disagreement):
        return {
            "error_type": None,
            "critique": describe(found, *places[found.evidence], places[found.agrees]),
            "revised": None,
        }
    revised = corrected(claim, found)
    critique = describe(found, *places[found.evidence])
    if revised is None:
        # no value to put in (the source says the opposite), or a phrase to change; else the value was not found
        why = "reworded" if found.kind == "negation" or not found.fixable else "not placed"
        critique = without_revision(critique, found, places, why)
    return {"error_type": CONFLICT_TYPES[found.kind], "critique": critique, "revised": revised}


def model_card(written: dict, claim: str, evidence: Sequence[Evidence], shown: Sequence[Evidence]) -> dict:
    """A card from the model's critique (parse_critique), each field checked first: a critique that misstates the
    sources says only that they do not state the sentence; an opinion word the sources do not use makes the type
    subjective, and without one the type is not; excerpt numbers become file names."""
    found = dict(written)
    if not critique_is_sound(found["critique"], claim, evidence):
        found["critique"] = NOT_FOUND
    if opinion(claim, evidence):
        found["error_type"] = "subjective"
    elif found["error_type"] == "subjective":  # the 1.5B judge calls most flagged sentences subjective
        found["error_type"] = "invented"  # (docs/quality.md): without an opinion word, "not in your PDFs"
    found["critique"] = name_excerpts(found["critique"], shown)
    return found


def settled_card(label: str, claim: str, evidence: Sequence[Evidence], found: Disagreement | None) -> dict:
    """The card of a supported or uncertain sentence, from the data alone (no model words): its best passage, or
    the documents that disagree about its value."""
    if label == "uncertain":
        return {"error_type": None, "critique": uncertain_note(evidence), "revised": None}
    if found:  # one document says what the sentence says, another says otherwise
        return stated_card(claim, found, places(evidence))
    return {"error_type": None, "critique": supported_note(evidence), "revised": None}


def places(evidence: Sequence[Evidence]) -> list[tuple[str, int]]:
    """(filename, page) of each evidence item: where a card says things are."""
    return [(e.filename, e.page) for e in evidence]


# Why a red card offers no revision, said on the card: a red card with no revision and no word of why reads as if
# none had been tried (issue 36)
NO_REVISION = {
    "reworded": "the sentence needs rewording, not one word put in place of another",
    "not placed": "{claim} could not be replaced in the sentence as it is written",
    "unchanged": "the sentence with page {page}'s {thing} ({source}) reads the same",
    "conflict": "the sentence with page {page}'s {thing} ({source}) still conflicts with your PDFs",
    "unsupported": "the sentence with page {page}'s {thing} ({source}) did not check out against your PDFs",
}


def refused(card: dict, found: Conflict | Disagreement | None, evidence: Sequence[Evidence], why: str) -> dict:
    """The card with its revision taken away, because of why (a key of NO_REVISION); a red card says why."""
    out = {**card, "revised": None}
    if isinstance(found, Conflict):
        out["critique"] = without_revision(card["critique"], found, places(evidence), why)
    return out


def without_revision(critique: str, found: Conflict, places: list[tuple[str, int]], why: str) -> str:
    """The critique of a red card with no revision, and why there is none (a key of NO_REVISION)."""
    thing = "word" if found.kind == "direction" else "value"
    reason = NO_REVISION[why].format(
        claim=found.claim_value, source=found.source_value, page=places[found.evidence][1], thing=thing
    )
    return f"{closed(critique)} No revision offered: {reason}."


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
