"""Conflicts between a sentence and its evidence, found deterministically: a number, year, negation or direction
word that differs from the source sentence about the same thing. Only these make a sentence red: sharing many
words with the sources is not a conflict, and the model's "do they contradict it?" did worse than chance.

A detector is one function of DETECTORS: given a Source (one source sentence near the claim, and what the claim
states), it returns a Found or None. They are tried in DETECTORS' order on each sentence, most relevant evidence
first; the first Found is the sentence's Conflict. Their rules live in quantities.py (numbers: what a value counts,
rounding, a rival value) and phrases.py (negation, direction, crossed pairs, swapped comparisons). To add one: write
its rule there (or in a module of its own here), wrap it in a function of Source below, and put it in DETECTORS
where its precision ranks it; tests/unit/test_phrases.py and test_quantities.py test the rules, test_conflict.py
the stage (docs/development.md).
"""

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from sourcecheck.conflict.phrases import (
    NEGATIONS,
    OPPOSITE,
    direction_conflict,
    direction_stated,
    negation_conflict,
    pairing_conflict,
    swap_conflict,
)
from sourcecheck.conflict.quantities import (
    Stated,
    find_numbers,
    number_conflict,
    same_thing,
    same_value,
    unclaimed_numbers,
)
from sourcecheck.text.numerals import numbers
from sourcecheck.text.sentences import sentence_texts
from sourcecheck.text.words import STEM_LETTERS, STOPWORDS, content_words, names, stems

# When a source sentence is about the claim: the claim's content stems (its words other than negations and
# direction words, which are what a conflicting sentence changes) that the sentence has too.
ON_TOPIC_WORDS = 2  # a sentence with fewer shared stems (all of them, for a shorter claim) is about something
# else: one shared word ("patients", "model") is chance in a paper about one topic
ABOUT_THE_SAME = 0.5  # share of them a sentence must hold to be about the claim as a whole: only such a
# sentence settles a negation or a crossed pair, or has the only other value of a kind as the claim's rival


class EvidenceItem(Protocol):
    """What the finders read of an evidence item (evidence.Evidence is one)."""

    @property
    def document_id(self) -> str: ...
    @property
    def passage(self) -> str: ...
    @property
    def quote(self) -> str: ...


def states_claim(claim: str, item: EvidenceItem) -> bool:
    """Whether an evidence item states the claim as far as the data tells: each value the claim states is in the
    item's passage, each name the claim uses mid-sentence too, and the item states none of them otherwise. What a
    card may tag "supports": never a quote whose value or name differs from the sentence's."""
    text = item.passage
    if not numbers(claim) <= numbers(text):
        return False
    if not names(claim, sentence_starts=False) <= {w.lower() for w in re.findall(r"[\w'’-]+", text)}:
        return False
    return find_conflict(claim, [item]) is None


def unnamed(claim: str, evidence: Sequence[EvidenceItem]) -> tuple[set[str], set[str]]:
    """(the names the claim uses mid-sentence, those of them that none of the items' passages has): what a second
    read may not clear (check.reread_sentence), and the evaluation's names_missing."""
    # each name as its words ("Kaplan-Meier", "Cox's", "GPT-4": the passage's words are split the same way)
    named = {n for n in names(claim, sentence_starts=False) - STOPWORDS if content_words(n)}
    found = set(content_words(" ".join(e.passage for e in evidence)))
    return named, {n for n in named if not set(content_words(n)) <= found}


def _public(found: "Conflict | Disagreement") -> dict[str, str]:
    """What the API shows of a Conflict or a Disagreement (docs/api.md, `conflict`)."""
    return {k: getattr(found, k) for k in ("kind", "claim_value", "source_value", "quote")}


@dataclass
class Conflict:
    """A value of the sentence that its source states otherwise."""

    kind: str  # number | year | percent | negation | direction
    claim_value: str
    source_value: str
    evidence: int  # index of the evidence item whose passage says otherwise
    quote: str  # the source sentence, verbatim from the passage
    fixable: bool = True  # whether putting source_value in place of claim_value corrects the sentence

    def to_dict(self) -> dict[str, str]:
        return _public(self)


@dataclass
class Disagreement:
    """Two documents that state different values for what a sentence states: one the sentence's, one another."""

    claim_value: str
    source_value: str
    evidence: int  # the evidence item that states another value
    quote: str  # its sentence, verbatim
    agrees: int  # the evidence item that states the sentence's value
    agreeing_quote: str
    kind: str = "disagreement"

    def to_dict(self) -> dict[str, str]:
        return _public(self)


@dataclass(frozen=True)
class Source:
    """One source sentence near the claim, as each detector sees it."""

    claim: str
    sentence: str
    shared: set[str]  # the claim's content stems (about) that the sentence has
    about: set[str]  # the claim's content stems
    whole: bool  # the sentence is about the claim as a whole (ABOUT_THE_SAME of about)
    claimed: Sequence[Stated]  # every number the claim states
    missing: Sequence[Stated]  # the claim's numbers no evidence states (and this document does not excuse)
    numbers: Sequence[Stated]  # the numbers this sentence states
    directions: Mapping[str, int]  # the claim's direction words some source sentence states as the claim does


@dataclass(frozen=True)
class Found:
    """What a detector found: its kind, the claim's value or phrase and the source's, and whether putting the
    source's in place of the claim's corrects the sentence."""

    kind: str
    claim_value: str
    source_value: str
    fixable: bool = True


def number(s: Source) -> Found | None:
    found = number_conflict(s.missing, unclaimed_numbers(s.claimed, s.numbers), s.whole)
    return Found(*found) if found else None


def negation(s: Source) -> Found | None:
    found = negation_conflict(s.claim, s.sentence, s.shared, s.about) if s.whole else None
    return Found(*found) if found else None


def direction(s: Source) -> Found | None:
    found = direction_conflict(s.claim, s.sentence, s.directions)
    return Found(*found) if found else None


def pairing(s: Source) -> Found | None:  # a phrase of the claim, not one word: no replacement corrects it
    found = pairing_conflict(s.claim, s.sentence) if s.whole else None
    return Found("direction", *found, fixable=False) if found else None


def swap(s: Source) -> Found | None:
    found = swap_conflict(s.claim, s.sentence)
    return Found("direction", *found, fixable=False) if found else None


Detector = Callable[[Source], Found | None]
DETECTORS: tuple[Detector, ...] = (number, negation, direction, pairing, swap)  # tried in this order


def find_conflict(claim: str, evidence: Sequence[EvidenceItem]) -> Conflict | None:
    """The first conflict of the claim with the evidence (most relevant first, searched in that order), or None."""
    return find_conflicts(claim, evidence)[0]


def find_conflicts(
    claim: str, evidence: Sequence[EvidenceItem], also: Iterable[tuple[str, str]] = ()
) -> tuple[Conflict | None, Disagreement | None]:
    """(conflict, disagreement): the claim's first conflict with the evidence, or None; and, when there is
    none, a Disagreement between documents, or None: the claim's number is stated by one document while
    another states another value for the same thing. The evidence is most relevant first, as select_evidence
    orders it, and searched in that order.

    also: (document id, text) of the claim's candidate passages (the search's hits). A value that a sentence of
    the same document as the conflicting item states, of the same kind and the same thing, near the claim's
    topic, is no conflict there: "34 colleges" is not contradicted by the paper's "40,000 students" when another
    of its passages says 34 colleges. Another document's value excuses nothing (a value taken from another
    study is the typical error)."""
    claim_numbers = find_numbers(claim)
    about = stems(claim) - {w[:STEM_LETTERS] for w in NEGATIONS | set(OPPOSITE)}
    on_topic_words = min(ON_TOPIC_WORDS, len(about))
    sentences = []  # (evidence index, sentence, its numbers, shared stems, about the claim as a whole)
    for i in range(len(evidence)):
        for sentence in (" ".join(t.split()) for t in sentence_texts(evidence[i].passage)):  # a title: a line
            shared = about & stems(sentence)
            whole = len(shared) >= on_topic_words > 0 and len(shared) >= ABOUT_THE_SAME * len(about)
            sentences.append((i, sentence, find_numbers(sentence), shared, whole))
    # A claimed value counts as stated where a sentence near the claim's topic states it, or any with its unit.
    stated = [(n, len(shared) >= on_topic_words) for _, _, here, shared, _ in sentences for n in here]
    missing = [
        c
        for c in claim_numbers
        if not any(
            same_value(c, n) and (near or not c.after or not n.after or c.after == n.after) for n, near in stated
        )
    ]
    excused = _stated_in(missing, also, about) if missing else {}
    # A direction word of the claim that a source sentence states, in the same words, is stated: an opposite word
    # in another sentence is about something else ("more likely for X" stated, "less likely for Y" next to it).
    directions = direction_stated(claim, [sentence for _, sentence, _, _, _ in sentences])
    for i, sentence, here, shared, whole in sentences:
        if len(shared) < on_topic_words:
            continue
        own = [c for c in missing if evidence[i].document_id not in excused.get(c.text, ())]
        source = Source(claim, sentence, shared, about, whole, claim_numbers, own, here, directions)
        for detect in DETECTORS:
            found = detect(source)
            if found:
                return Conflict(found.kind, found.claim_value, found.source_value, i, sentence, found.fixable), None
    on_topic = [(i, sentence, here) for i, sentence, here, _, whole in sentences if whole]
    # Found once each, not for each claimed value: in a sentence full of numbers that was quadratic. Missing by
    # identity: whether a number is missing depends on its fields only, so `c not in missing` said the same, slowly.
    unclaimed_in, is_missing = {}, {id(c) for c in missing}
    for c in (c for c in claim_numbers if id(c) not in is_missing):
        agree = next(((i, q) for i, q, here in on_topic if any(same_value(c, n) for n in here)), None)
        if agree is None:
            continue
        for k, (j, sentence, here) in enumerate(on_topic):
            if evidence[j].document_id == evidence[agree[0]].document_id:
                continue
            if k not in unclaimed_in:
                unclaimed_in[k] = unclaimed_numbers(claim_numbers, here)
            rival = number_conflict([c], unclaimed_in[k], True)
            if rival:
                return None, Disagreement(c.text, rival[2], j, sentence, agree[0], agree[1])
    return None, None


def _stated_in(missing: Sequence[Stated], also: Iterable[tuple[str, str]], about: set[str]) -> dict[str, set[str]]:
    """{claimed value's text: ids of the documents that state it of the same thing (quantities.same_thing), near
    the claim's topic}."""
    out: dict[str, set[str]] = {}
    on_topic_words = min(ON_TOPIC_WORDS, len(about))
    for doc_id, text in also:
        for sentence in sentence_texts(" ".join(text.split())):
            if len(about & stems(sentence)) < on_topic_words:
                continue
            for n in find_numbers(sentence):
                for c in missing:
                    if c.kind == n.kind and same_value(c, n) and same_thing(c, n):
                        out.setdefault(c.text, set()).add(doc_id)
    return out


# A unit that numerals.read_numbers reads stuck to its value ("5ms", "10x", "3GB"); not an ordinal or a decade's s
_GLUED_UNIT = re.compile(r"^(\d[\d,.]*)(x|mg|kg|ml|mm|cm|km|ms|GB|MB|TB)$")


def put_value(claim: str, claim_value: str, source_value: str, quote: str = "") -> str | None:
    """The claim with its value (the whole word or number only, its first occurrence) replaced by the source's, each
    unit kept as written: "5ms" with the quote's "3 ms" becomes "3ms", not "3" (the unit lost); "5 ms" with the
    quote's "3ms" becomes "3 ms", not "3ms ms". None when the claim does not have the value."""
    found = re.search(r"(?<![\w.,])" + re.escape(claim_value) + r"(?![\w])", claim, flags=re.IGNORECASE)
    if not found:
        return None
    ours, theirs = _GLUED_UNIT.match(claim_value), _GLUED_UNIT.match(source_value)
    if ours and not theirs and _unit_after(quote, source_value, ours.group(2)):
        source_value += ours.group(2)
    elif theirs and not ours and _unit_after(claim[found.start() :], claim_value, theirs.group(2)):
        source_value = theirs.group(1)
    return claim[: found.start()] + source_value + claim[found.end() :]


def _unit_after(text: str, value: str, unit: str) -> bool:
    """Whether the text writes the value with the unit a space apart ("3 ms")."""
    return bool(re.search(r"(?<![\w.,])" + re.escape(value) + r"\s+" + re.escape(unit) + r"\b", text, re.I))
