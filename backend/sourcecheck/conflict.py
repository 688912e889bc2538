"""Conflicts between a sentence and its evidence, found deterministically: a number, year, negation or direction
word that differs from the source sentence about the same thing. Only these make a sentence red: sharing many
words with the sources is not a conflict, and the model's "do they contradict it?" did worse than chance.
"""

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from sourcecheck.text import (
    STOPWORDS,
    TENS,
    UNITS,
    WORD_NUMBER,
    WORD_NUMBERS,
    content_words,
    read_numbers,
    sentence_texts,
)

TIME_UNITS = {
    "seconds",
    "minutes",
    "hours",
    "days",
    "weeks",
    "months",
    "years",
    "second",
    "minute",
    "hour",
    "day",
    "week",
    "month",
    "year",
}
HEDGES = {
    "about",
    "around",
    "roughly",
    "approximately",
    "nearly",
    "almost",
    "over",
    "some",
    "~",
    "circa",
    "close",
    "under",
    "than",
    "just",
}
NEGATIONS = {
    "not",
    "no",
    "never",
    "without",
    "none",
    "neither",
    "nor",
    "cannot",
    "fail",
    "fails",
    "failed",
    "lack",
    "lacks",
    "lacked",
    "unable",
}
_PAIRS = (
    "increase decrease|increased decreased|increases decreases|increasing decreasing|higher lower|"
    "more fewer|more less|larger smaller|greater smaller|greater lower|improved worsened|improves worsens|"
    "improve worsen|positive negative|positively negatively|rise fall|rises falls|rose fell|gain loss|"
    "increased reduced|increases reduces|increase reduce|increased lowered|before after|above below|"
    "maximum minimum|stronger weaker|strong weak|effective ineffective|better worse|benefit harm|"
    "beneficial harmful|faster slower|longer shorter|younger older|earlier later|highest lowest|"
    "largest smallest|most least|enhanced impaired|enhances impairs|promotes inhibits|promoted inhibited|"
    "activates inhibits|activated inhibited|upregulated downregulated|common rare|significant insignificant|"
    "associated unassociated|increase reduction|safe unsafe|accurate inaccurate|lowered raised|"
    "lower raise|raised reduced|small large|smaller larger|supported rejected|accepted rejected|"
    "declined increased|declining increasing|good poor|favourable unfavourable|favorable unfavorable|"
    "high low|strongest weakest|best worst|aligned misaligned|consistent inconsistent|adequate inadequate|"
    "sufficient insufficient|likely unlikely|successful unsuccessful|feasible infeasible|valid invalid|"
    "reliable unreliable|efficient inefficient|appropriate inappropriate|satisfied dissatisfied"
)
OPPOSITE: dict[str, set[str]] = {}
for _pair in _PAIRS.split("|"):
    _a, _b = _pair.split()
    OPPOSITE.setdefault(_a, set()).add(_b)
    OPPOSITE.setdefault(_b, set()).add(_a)
ABOUT_THE_SAME = 0.5  # share of the claim's other content words a source sentence must hold to be about it
NEAR = 45  # characters on either side of a value whose words say what it is about ("95 days after sowing")
_WORD = re.compile(r"[a-z0-9]+(?:[.,'’][a-z0-9]+)*", re.IGNORECASE)


@dataclass
class Stated:
    """A number as a sentence states it, with the words that say what it counts."""

    text: str  # as written: "350,000", "35k", "76.2%", "five"
    value: float
    kind: str  # year | percent | count
    before: str  # the lower-cased words just before it (hedges: "about 35,000" is a rounding)
    after: str  # the content word after it (its unit: "instances")
    near: frozenset = frozenset()  # stems of the words around it: what it is about


@dataclass
class Conflict:
    """A value of the sentence that its source states otherwise."""

    kind: str  # number | year | percent | negation | direction
    claim_value: str
    source_value: str
    evidence: int  # index of the evidence item whose passage says otherwise
    quote: str  # the source sentence, verbatim from the passage
    fixable: bool = True  # whether putting source_value in place of claim_value corrects the sentence

    def to_dict(self):
        return {
            "kind": self.kind,
            "claim_value": self.claim_value,
            "source_value": self.source_value,
            "quote": self.quote,
        }


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

    def to_dict(self):
        return {
            "kind": self.kind,
            "claim_value": self.claim_value,
            "source_value": self.source_value,
            "quote": self.quote,
        }


def find_numbers(text):
    """The numbers a text states (text.read_numbers), with their unit word and the words before and around them."""
    return [
        Stated(
            n.text,
            n.value,
            n.kind,
            text[max(0, n.start - 25) : n.start].lower(),
            _next_word(text, n.end),
            _near(text, n.start, n.end),
        )
        for n in read_numbers(text)
    ]


def stems(text):
    """Content words cut to five letters, numbers left out: "grades" and "grade", "significantly" and
    "significant" meet."""
    return {w[:5] for w in content_words(text) if not any(ch.isdigit() for ch in w)} - set(WORD_NUMBERS) - set(TENS)


def _near(text, start, end):
    return frozenset(stems(text[max(0, start - NEAR) : start] + " " + text[end : end + NEAR]))


def _next_word(text, at):
    """The first word after a number, past other numbers ("3.8 ± 1.2 cm", "5 to 15 years"): its unit."""
    words = [w for w in content_words(text[at : at + 40]) if not any(ch.isdigit() for ch in w)]
    return words[0] if words else ""


def same_value(claimed, stated):
    """Whether a claimed number is what the source states, allowing honest rounding ("about 35,000"). Values of
    different kinds (a count and a percent) match only exactly; years only exactly."""
    a, b = claimed.value, stated.value
    if "year" in (claimed.kind, stated.kind):
        return claimed.kind == stated.kind and a == b
    if claimed.kind != stated.kind:
        return a == b
    hedged = bool(set(claimed.before.split()[-2:]) & HEDGES)
    tolerance = 0.15 if hedged else 0.02
    return abs(a - b) <= tolerance * max(abs(a), abs(b))


def find_conflict(claim, evidence):
    """The first conflict of the claim with the evidence (most relevant evidence first), or None."""
    return find_conflicts(claim, evidence)[0]


def find_conflicts(claim, evidence, also=()):
    """(conflict, disagreement): the claim's first conflict with the evidence, or None; and, when there is
    none, a Disagreement between documents, or None: the claim's number is stated by one document while
    another states another value for the same thing.

    also: (document id, text) of the claim's candidate passages (the search's hits). A value that a sentence of
    the same document as the conflicting item states, of the same kind and the same thing, near the claim's
    topic, is no conflict there: "34 colleges" is not contradicted by the paper's "40,000 students" when another
    of its passages says 34 colleges. Another document's value excuses nothing (a value taken from another
    study is the typical error)."""
    claim_numbers = find_numbers(claim)
    about = stems(claim) - {w[:5] for w in NEGATIONS | set(OPPOSITE)}
    sentences = []  # (evidence index, sentence, its numbers, shared stems, about the claim as a whole)
    for i in reversed(range(len(evidence))):  # most relevant first
        for sentence in (" ".join(t.split()) for t in sentence_texts(evidence[i].passage)):  # a title: a line
            shared = about & stems(sentence)
            whole = len(shared) >= min(2, len(about)) > 0 and len(shared) >= ABOUT_THE_SAME * len(about)
            sentences.append((i, sentence, find_numbers(sentence), shared, whole))
    # A claimed value counts as stated where a sentence near the claim's topic states it, or any with its unit.
    stated = [(n, len(shared) >= min(2, len(about))) for _, _, here, shared, _ in sentences for n in here]
    missing = [
        c
        for c in claim_numbers
        if not any(
            same_value(c, n) and (near or not c.after or not n.after or c.after == n.after) for n, near in stated
        )
    ]
    excused = _stated_in(missing, also, about) if missing else {}
    # "more likely for gang involvement (OR = 8.12)" is stated: "less likely when fires…" next to it is no conflict
    directions = _direction_stated(claim, [sentence for _, sentence, _, _, _ in sentences])
    for i, sentence, here, shared, whole in sentences:
        if len(shared) < min(2, len(about)):
            continue
        own = [c for c in missing if evidence[i].document_id not in excused.get(c.text, ())]
        found = (
            _number_conflict(own, _unclaimed(claim_numbers, here), whole)
            or (whole and _negation_conflict(claim, sentence, shared, about))
            or _direction_conflict(claim, sentence, directions)
        )
        if found:
            return Conflict(found[0], found[1], found[2], i, sentence), None
        found = (whole and _pairing_conflict(claim, sentence)) or _swap_conflict(claim, sentence)
        if found:  # a phrase of the claim, not one word: no replacement corrects it
            return Conflict("direction", found[0], found[1], i, sentence, fixable=False), None
    on_topic = [(i, sentence, here) for i, sentence, here, _, whole in sentences if whole]
    # Found once each, not for each claimed value: in a sentence full of numbers that was quadratic. Missing by
    # identity: whether a number is missing depends on its fields only, so `c not in missing` said the same, slowly.
    unclaimed, is_missing = {}, {id(c) for c in missing}
    for c in (c for c in claim_numbers if id(c) not in is_missing):
        agree = next(((i, q) for i, q, here in on_topic if any(same_value(c, n) for n in here)), None)
        if agree is None:
            continue
        for k, (j, sentence, here) in enumerate(on_topic):
            if evidence[j].document_id == evidence[agree[0]].document_id:
                continue
            if k not in unclaimed:
                unclaimed[k] = _unclaimed(claim_numbers, here)
            found = _number_conflict([c], unclaimed[k], True)
            if found:
                return None, Disagreement(c.text, found[2], j, sentence, agree[0], agree[1])
    return None, None


def _stated_in(missing, also, about):
    """{claimed value's text: ids of the documents that state it of the same thing, near the claim's topic}."""
    out = {}
    for doc_id, text in also:
        for sentence in sentence_texts(" ".join(text.split())):
            if len(about & stems(sentence)) < min(2, len(about)):
                continue
            for n in find_numbers(sentence):
                for c in missing:
                    if (
                        c.kind == n.kind
                        and same_value(c, n)
                        and (c.after and n.after == c.after or len(c.near & n.near) >= 2)
                    ):
                        out.setdefault(c.text, set()).add(doc_id)
    return out


def _unclaimed(claim_numbers, here):
    """The numbers of a sentence that state none of the claim's values; None when the claim has several and the
    sentence states none of them (a sentence about another study or sample)."""
    claimed = [any(same_value(c, n) for c in claim_numbers) for n in here]
    if len(claim_numbers) > 1 and not any(claimed):
        return None
    return [n for n, stated in zip(here, claimed) if not stated]


def _number_conflict(missing, unclaimed, whole):
    """A number of the claim that no evidence states, where this sentence states another value for the same
    thing: the same unit, or two words around both values in common, or (in a sentence about the whole claim)
    the only other value of its kind. unclaimed: _unclaimed() of the sentence, found once for all the missing
    numbers (for each, it was quadratic in a claim full of numbers)."""
    if unclaimed is None:
        return None
    for c in missing:
        rivals = [s for s in unclaimed if s.kind == c.kind]
        rivals = [s for s in rivals if not (c.after in TIME_UNITS and s.after in TIME_UNITS and c.after != s.after)]
        # Different unit words ("108 pituitary adenomas", "5 other adenomas") need more shared context
        same_thing = [
            s
            for s in rivals
            if (c.after and s.after == c.after) or len(c.near & s.near) >= (2 if _same_unit(c, s) else 3)
        ]
        only = len({s.value for s in rivals}) == 1 and whole and _same_unit(c, rivals[0])
        if same_thing or only:
            rival = max(
                same_thing or rivals, key=lambda s: (bool(c.after) and s.after == c.after, len(c.near & s.near))
            )
            return {"year": "year", "percent": "percent"}.get(c.kind, "number"), c.text, rival.text
    return None


def _same_unit(a, b):
    """Whether two numbers may count the same thing: percents and years always (their kind is their unit), counts
    when the same word follows both or no word follows one."""
    return a.kind != "count" or not (a.after and b.after and a.after != b.after)


def _negation_conflict(claim, sentence, shared, about):
    """One says "not" where the other, about the very same thing, does not: the words a negation governs in
    one ("no significant difference") stand un-negated, side by side, in the other."""
    if len(shared) < max(3, 0.6 * len(about)):
        return None
    for negated, other in ((claim, sentence), (sentence, claim)):
        about_negated = stems(negated)
        if any(set(scope) & about_negated for _, scope in _scopes(other)):
            continue  # both negate something the sentence is about: "no cases among the vaccinated" vs "cases in 12,
            # none among the vaccinated" say the same; word scopes cannot tell which negation matches which
        for word, scope in _scopes(negated):
            if _stands_plain(scope, other):
                return ("negation",) + ((word, "(no negation)") if negated is claim else ("(no negation)", word))
    return None


def _scopes(text):
    """(negation word, the first two content stems after it) for each negation in the text."""
    words = [w.lower() for w in _WORD.findall(text)]
    out = []
    for i, w in enumerate(words):
        if w in NEGATIONS or w.endswith(("n't", "n’t")):
            scope = [
                x[:5]
                for x in words[i + 1 : i + 6]
                if x not in STOPWORDS and x not in NEGATIONS and len(x) > 2 and not x.isdigit()
            ][:2]
            if len(scope) == 2:
                out.append((w, scope))
    return out


def _stands_plain(scope, text):
    """Whether both stems stand within four words of each other in text, no negation just before them."""
    words = [w.lower() for w in _WORD.findall(text)]
    stems_at = [w[:5] for w in words]
    for i, st in enumerate(stems_at):
        if st not in scope:
            continue
        window = stems_at[i : i + 5]
        if set(scope) <= set(window) and not any(
            w in NEGATIONS or w.endswith(("n't", "n’t")) for w in words[max(0, i - 4) : i]
        ):
            return True
    return False


def _direction_stated(claim, sentences):
    """{direction word of the claim: the most words around it that a source sentence stating the same word has in
    common with the claim}: a sentence with the opposite word, less close to the claim, is about something else."""
    claim_words = {m.group(0).lower(): m.start() for m in _WORD.finditer(claim)}
    out = {}
    for w in (w for w in claim_words if w in OPPOSITE):
        for sentence in sentences:
            at = next((m.start() for m in _WORD.finditer(sentence) if m.group(0).lower() == w), None)
            if at is not None:
                near = len(_near(claim, claim_words[w], claim_words[w] + len(w)) & _near(sentence, at, at + len(w)))
                out[w] = max(out.get(w, 0), near)
    return out


def _direction_conflict(claim, sentence, stated=None):
    """A direction word (higher, increased, improves, aligned…) where the source has its opposite, about the same
    thing: three words around both in common, and more than around a source sentence that states the same word
    (stated: _direction_stated)."""
    claim_words = {w.lower(): m.start() for m in _WORD.finditer(claim) for w in [m.group(0)]}
    source_words = {w.lower(): m.start() for m in _WORD.finditer(sentence) for w in [m.group(0)]}
    for w in sorted(claim_words):
        rivals = {r for r in OPPOSITE.get(w, set()) & set(source_words) if r not in claim_words}
        if not rivals or w in source_words:
            continue
        rival = sorted(rivals)[0]
        near = len(
            _near(claim, claim_words[w], claim_words[w] + len(w))
            & _near(sentence, source_words[rival], source_words[rival] + len(rival))
        )
        if near >= 3 and near >= (stated or {}).get(w, 0):  # the words around both say they are about the same thing
            return "direction", w, rival
    return None


def _pairing_conflict(claim, sentence):
    """Two direction words crossed over two things: the claim's "high sensitivity but low specificity" where the
    source has "low sensitivity, but high specificity" (both words are in both, so _direction_conflict cannot
    see it). Only a full cross counts: one pair reworded ("B lower than A" for "A higher than B") does not."""
    claim_pairs, source_pairs = _pairs(claim), _pairs(sentence)
    for (word, thing), phrase in claim_pairs.items():
        for rival in sorted(OPPOSITE.get(word, ()) - {"before", "after"}):
            if (rival, thing) not in source_pairs or (word, thing) in source_pairs:
                continue  # tested first: listing the claim's other pairs for each of its pairs was quadratic
            others = [t for (w, t) in claim_pairs if w == rival and t != thing]
            if any((word, t) in source_pairs and (rival, t) not in source_pairs for t in others):
                return phrase, source_pairs[(rival, thing)]
    return None


def _pairs(text):
    """{(direction word, stem of the content word right after it): the two words as written}."""
    words = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(text)]
    out = {}
    for (w, start, _), (nxt, _, end) in zip(words, words[1:]):
        if w.lower() in OPPOSITE and nxt.lower() not in STOPWORDS and not any(ch.isdigit() for ch in nxt):
            out.setdefault((w.lower(), nxt.lower()[:5]), text[start:end])
    return out


_THAN = re.compile(r"\b(?:than|compared (?:with|to)|in comparison (?:with|to)|relative to|versus|vs)\b", re.IGNORECASE)
_CLAUSE = re.compile(r"[,;:()]|\b(?:and|but|while|whereas|although|though|which|who)\b", re.IGNORECASE)


def _swap_conflict(claim, sentence):
    """The two sides of a comparison swapped: "bacterial isolates showed higher activity than fungal ones" where
    the source has "fungal isolates had higher activity compared with the bacterial isolates"."""
    ours, theirs = _sides(claim), _sides(sentence)
    if not ours or not theirs or ours[0] != theirs[0]:  # the same comparison of the same thing ("higher amylase")
        return None
    (_, left, right, phrase), (_, left2, right2, phrase2) = ours, theirs
    if (left - right) & (right2 - left2) and (right - left) & (left2 - right2):
        return phrase, phrase2
    return None


def _sides(text):
    """((comparative word, stem of the thing compared), stems of up to four content words before it, of up to four
    after "than", the comparison as written) for the text's first comparison of a named thing, or None. "More
    than 50" compares no thing; each side stops at its clause ("…, and …").

    The words, content words and clause marks are found once and looked up by position (bisect): scanning the
    text again from each comparative word was quadratic in a long sentence full of them."""
    words = [(m.group(0).lower(), m.start(), m.end()) for m in _WORD.finditer(text)]
    starts = [at for _, at, _ in words]
    content = [j for j, (x, _, _) in enumerate(words) if x not in STOPWORDS and not x.isdigit()]
    content_starts = [words[j][1] for j in content]
    clauses = [m.span() for m in _CLAUSE.finditer(text)]  # the same marks as a search from any word's start finds
    clause_starts, clause_ends = [a for a, _ in clauses], [b for _, b in clauses]
    for i, (w, start, _) in enumerate(words):
        if w not in OPPOSITE:
            continue
        # "than" within 80 characters; the window reaches past the longest phrase _THAN finds starting there
        than = _THAN.search(text, start, start + 120)
        if not than or than.start() >= start + 80:
            continue
        between = [x for x, _, _ in words[i + 1 : bisect_left(starts, than.start())] if x not in STOPWORDS]
        if not between or any(ch.isdigit() for ch in between[0]) or _CLAUSE.search(text, start, than.start()):
            continue
        k = bisect_right(clause_ends, start)
        cut = clause_ends[k - 1] if k else 0  # where the last clause before the word ends
        k = bisect_left(clause_starts, than.end())
        stop = clause_starts[k] if k < len(clauses) else len(text)  # where the first one after "than" starts
        lo, hi = bisect_left(content_starts, cut), bisect_left(content, i)
        before = [words[j][0][:5] for j in content[max(lo, hi - 4) : hi]]
        lo = bisect_left(content_starts, than.end())
        after = [(words[j][0][:5], words[j][2]) for j in content[lo : lo + 4] if words[j][1] < stop]
        if not before or not after:
            continue
        return (w, between[0][:5]), set(before), {x for x, _ in after}, text[start : after[-1][1]]
    return None


def describe(conflict, filename, page, agreeing=None):
    """The card's critique for a found conflict, from the data alone; agreeing: (filename, page) of the
    document that states the claim's value, for a disagreement between documents."""
    where = f"{filename}, page {page}"
    if isinstance(conflict, Disagreement):
        return (
            f"Your sources disagree: {agreeing[0]}, page {agreeing[1]} says {conflict.claim_value} "
            f"(“{conflict.agreeing_quote}”); {where} says {conflict.source_value} (“{conflict.quote}”)"
        )
    if conflict.kind == "negation":
        return f"{where} says the opposite: “{conflict.quote}”"
    return f"The sentence says {conflict.claim_value}; {where} says {conflict.source_value}: “{conflict.quote}”"


def corrected(claim, conflict):
    """The claim with its value replaced by the source's (None where no replacement is known)."""
    if conflict.kind == "negation" or not conflict.fixable:
        return None
    pattern = r"(?<![\w.,])" + re.escape(conflict.claim_value) + r"(?![\w])"  # the whole word or number only
    value, first = conflict.source_value, conflict.source_value.split()[0].lower()
    if first in UNITS or first == "a" or WORD_NUMBER.fullmatch(first):
        value = value[0].lower() + value[1:]  # a word number that opened the source's sentence: not mid-sentence
    fixed, n = re.subn(pattern, value.replace("\\", "\\\\"), claim, count=1, flags=re.IGNORECASE)
    return fixed if n else None
