"""The conflict stage's word rules: a negation, a direction word, two direction words crossed over two things, or
the two sides of a comparison swapped, where a source sentence about the same thing says otherwise. Each rule
needs words around both places in common: "higher" and "lower", "not" and "no" occur in most papers, about
something else."""

import re
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence

from sourcecheck.text.words import STEM_LETTERS, STOPWORDS, near_stems, stems

# The one negation list, with any word ending in n't (is_negation). DENIALS deny what follows them, so a critique's
# clause with one says the sources do not state something (cards.py); the others negate a verb's content ("fails to",
# "without"), often the very subject of a sentence, so a clause with one of them denies nothing.
DENIALS = {"not", "no", "never", "nothing", "none", "neither", "nor", "cannot"}
NEGATIONS = DENIALS | {"without", "fail", "fails", "failed", "lack", "lacks", "lacked", "unable"}
# After "nothing", the words that make it affirm: "nothing but attention", "nothing short of", "nothing more than"
AFFIRMING = (("but",), ("short", "of"), ("more", "than"), ("less", "than"))
# Words whose opposite in the same place says the opposite: directions and comparatives, and the evaluative
# words a summary turns around ("effective" for "ineffective"). "word opposite" pairs; each is the other's.
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
    "lower raise|raised reduced|small large|supported rejected|accepted rejected|"
    "declined increased|declining increasing|good poor|favourable unfavourable|favorable unfavorable|"
    "high low|strongest weakest|best worst|aligned misaligned|consistent inconsistent|adequate inadequate|"
    "sufficient insufficient|likely unlikely|successful unsuccessful|feasible infeasible|valid invalid|"
    "reliable unreliable|efficient inefficient|appropriate inappropriate|satisfied dissatisfied"
)
# Closed sets of values that exclude each other: one said of a thing where the source says another of the same thing
# ("76 quarterly series" beside "76 monthly time series") is a conflict as a reversed direction is. Each word's
# opposites are the rest of its set. (Not the months: "may" and "march" are verbs as often; nor units of time: "two
# weeks" is "14 days".)
_EXCLUSIVE = (
    "hourly daily weekly fortnightly monthly quarterly annual yearly|"
    "monday tuesday wednesday thursday friday saturday sunday|"
    "univariate multivariate"
)
# (Not linear/nonlinear and the like: "non-linear" reads as "non" and "linear", and a prefixed word, "semi-annual",
# "self-supervised", is another value than its stem.)
OPPOSITE: dict[str, set[str]] = {}
for _pair in _PAIRS.split("|"):
    _a, _b = _pair.split()
    OPPOSITE.setdefault(_a, set()).add(_b)
    OPPOSITE.setdefault(_b, set()).add(_a)
_SAME = {"annual": "yearly", "yearly": "annual"}  # one value under two names
EXCLUSIVE_WORDS = set(_EXCLUSIVE.replace("|", " ").split())
for _set in _EXCLUSIVE.split("|"):
    _members = set(_set.split())
    for _a in _members:
        OPPOSITE.setdefault(_a, set()).update(_members - {_a, _SAME.get(_a, _a)})
# Verbs that state one thing about a method's premises: "requires normality" is what "does not assume normality" denies
# (their stems, as a negation's scope is read, one stem for all).
# Only the verbs, as whole words ("presumably" is none); a scope of two of them ("need to assume", "require the
# assumption") is no scope (_scopes), and the verb must stand right before the premise (_stands_plain).
PREMISE_VERBS = {
    f"{stem}{end}"
    for stem, ends in (("requir", "e es ed ing"), ("assum", "e es ed ing"), ("presuppos", "e es ed ing"))
    for end in ends.split()
} | {"need", "needs", "needed", "needing"}
PREMISE = "assum"  # the stem they all stand for
PREMISE_REACH = 3  # words from the verb to the premise's stem ("requires stationary regressors")
# "before" and "after" name moments, not directions: "before and after treatment" states both for one thing, so
# a claim that pairs them with other words than its source does is reworded, not crossed.
NOT_PAIRED = {"before", "after"}

# A negation and what it negates: "no significant difference" negates "significant difference".
SCOPE_WORDS = 5  # words after a negation that it governs ("did not show any significant difference")
SCOPE_STEMS = 2  # content stems that name what is negated: one ("significant") is too common to match on
SHORT_WORD = 2  # letters of the longest word too short to name anything ("p", "et", "vs")
PLAIN_WORDS = 5  # the two stems must stand in a window of this many words to state the same thing un-negated
NEGATION_REACH = 4  # words before them in which a negation still negates them ("did not show any significant")
# A negation conflict needs a source sentence about the very same statement, not only its topic: this many of
# the claim's stems, and this share of them ("not" is common; a sentence sharing the topic states other things).
NEGATION_SHARED_WORDS = 3
NEGATION_SHARED_SHARE = 0.6
SUBJECT_LETTERS = 4  # the two sides' words compared on this many letters when telling their subjects apart
BOTH_WAYS_WORDS = 4  # words before "without" that may hold its "with": "with retrieval and without", "with
# the retriever or without"

DIRECTION_SHARED_WORDS = 3  # stems around a direction word and around its opposite in common: "higher" and
# "lower" occur in most results sections, about different things

# A comparison: "<comparative word> <thing> ... than <other side>".
THAN_CHARS = 80  # the comparative word and its "than" within this many characters: a comparison names its thing
# in a few words; a "than" further on belongs to another comparison
THAN_SEARCH_CHARS = THAN_CHARS + 40  # the search window: reaches past the longest phrase _THAN finds starting
# before THAN_CHARS ("in comparison with")
SIDE_WORDS = 4  # content words that name each side of a comparison
_THAN = re.compile(r"\b(?:than|compared (?:with|to)|in comparison (?:with|to)|relative to|versus|vs)\b", re.IGNORECASE)
_CLAUSE = re.compile(r"[,;:()]|\b(?:and|but|while|whereas|although|though|which|who)\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]+(?:[.,'’][a-z0-9]+)*", re.IGNORECASE)


def negation_conflict(claim: str, sentence: str, shared: set[str], about: set[str]) -> tuple[str, str, str] | None:
    """One says "not" where the other, about the very same thing, does not: the words a negation governs in
    one ("no significant difference") stand un-negated, side by side, in the other. shared: the claim's stems
    (about) that the sentence has. Returns ("negation", claim's word, source's word) or None."""
    if len(shared) < max(NEGATION_SHARED_WORDS, NEGATION_SHARED_SHARE * len(about)):
        return None
    for negated, other in ((claim, sentence), (sentence, claim)):
        about_negated = stems(negated)
        if any(set(scope) & about_negated for _, _, scope in _scopes(other, both_ways=True)):
            continue  # both negate something the sentence is about: "no cases among the vaccinated" vs "cases in 12,
            # none among the vaccinated" say the same; word scopes cannot tell which negation matches which (a
            # "with and without" counts here as before: it is no reason to find more conflicts)
        for at, word, scope in _scopes(negated):
            plain_at = _stands_plain(scope, other)
            if plain_at is not None and not _other_subjects(negated, at, other, plain_at):
                return ("negation",) + ((word, "(no negation)") if negated is claim else ("(no negation)", word))
    return None


def is_negation(word: str, denial: bool = False) -> bool:
    """Whether a (lower-case) word negates; with denial, only one that denies what follows (DENIALS)."""
    return word in (DENIALS if denial else NEGATIONS) or word.endswith(("n't", "n’t"))


def negates(words: Sequence[str], i: int, denial: bool = False) -> bool:
    """Whether words[i] (lower case) negates where it stands: a negation word, unless it is the "nothing" of "nothing
    but" and the like (AFFIRMING); with denial, only one that denies what follows (DENIALS)."""
    if not is_negation(words[i], denial):
        return False
    return words[i] != "nothing" or not any(tuple(words[i + 1 : i + 1 + len(a)]) == a for a in AFFIRMING)


def _both_ways(words: Sequence[str], i: int) -> bool:
    """Whether the negation words[i] is one side of a phrase that states both ways: "with and without retrieval",
    "with or without", "with/without", "without and with", "whether or not", "retrieved or not". It negates
    nothing: a sentence that says X holds is one of the two ways, not the opposite (issue 36: "FAVA is a
    retrieval-augmented model" was red beside "we compare FAVA with and without retrieval")."""
    w, before, after = words[i], words[max(0, i - BOTH_WAYS_WORDS) : i], words[i + 1 : i + 3]
    if w == "not":
        return before[-1:] == ["or"]  # "or no" is not both ways: "little or no effect" is no effect
    if w != "without":
        return False
    return (
        before[-1:] == ["with"]
        or before[-1:] in (["and"], ["or"])
        and "with" in before[:-1]
        or after in (["and", "with"], ["or", "with"])
    )


def _scopes(text: str, both_ways: bool = False) -> list[tuple[int, str, list[str]]]:
    """(word number, negation word, the first SCOPE_STEMS content stems after it) for each negation in the text;
    those that state both ways (_both_ways) only with both_ways."""
    words = [w.lower() for w in _WORD.findall(text)]
    out = []
    for i, w in enumerate(words):
        if not negates(words, i):
            continue
        if both_ways or not _both_ways(words, i):
            scope = [
                _stem(x)
                for x in words[i + 1 : i + 1 + SCOPE_WORDS]
                if x not in STOPWORDS and x not in NEGATIONS and len(x) > SHORT_WORD and not x.isdigit()
            ][:SCOPE_STEMS]
            # two stems: "need to assume" ("assum" twice) names nothing to find plain, but still negates it
            if len(set(scope)) == SCOPE_STEMS or (both_ways and len(scope) == SCOPE_STEMS):
                out.append((i, w, scope))
    return out


def _stem(word: str) -> str:
    return PREMISE if word in PREMISE_VERBS else word[:STEM_LETTERS]


def _stands_plain(scope: Sequence[str], text: str) -> int | None:
    """The word number where the scope's stems stand within PLAIN_WORDS words of each other in text, no negation
    in the NEGATION_REACH words before them; None if they do nowhere."""
    words = [w.lower() for w in _WORD.findall(text)]
    stems_at = [_stem(w) for w in words]
    for i, st in enumerate(stems_at):
        if st not in scope:
            continue
        window = stems_at[i : i + (PREMISE_REACH if scope[0] == PREMISE else PLAIN_WORDS)]
        if set(scope) <= set(window) and not any(negates(words, j) for j in range(max(0, i - NEGATION_REACH), i)):
            return i
    return None


def _other_subjects(negated: str, at: int, plain: str, plain_at: int) -> bool:
    """Whether the two say it of different things: before the negation, and before where the negated words stand
    plain, each has a word the other lacks in the same place, next to a word both have in the same clause ("The car
    package provides HC (but not HAC)" is about car, "The sandwich package provides HC and HAC" about sandwich: car
    and sandwich each stand next to "package"). Issue 48: a true sentence was red for it. Only a word in the same
    place: any two wordings of one finding differ in some word ("found no difference" beside "results indicated a
    difference"), and an opening phrase ("In the trial, the drug" beside "Overall, the drug") is no subject."""
    mine, theirs = _content_words(negated, at), _content_words(plain, plain_at)
    own = _unmatched(mine, _content_words(plain, None))
    # the plain side's words against the negated side's up to the end of the negation's clause: its subject may
    # follow the negation ("in older patients"), but "…, while sandwich provides both" is another clause
    whole = _content_words(negated, None)
    clause = whole[len(mine)][1] if len(whole) > len(mine) else (mine[-1][1] if mine else 0)
    other = _unmatched(theirs, [w for w in whole if w[1] <= clause])
    return bool({n for i in own for n in _neighbours(mine, i)} & {n for i in other for n in _neighbours(theirs, i)})


_CLAUSE_MARK = re.compile(r"[,;:()\[\]]")
_WORD_OR_MARK = re.compile(rf"{_WORD.pattern}|{_CLAUSE_MARK.pattern}", re.IGNORECASE)


def _content_words(text: str, at: int | None) -> list[tuple[str, int]]:
    """(word, clause number) of the content words before word number `at` (as _WORD counts them; None: all), in
    order, the clause counted by the commas, colons and brackets before it; no numbers (a value is what two
    sentences disagree on, not what they are about)."""
    out, clause, n = [], 0, 0
    for m in _WORD_OR_MARK.finditer(text):
        if _CLAUSE_MARK.fullmatch(m.group(0)):
            clause += 1
            continue
        if at is not None and n >= at:
            break
        n += 1
        w = m.group(0).lower()
        if w not in STOPWORDS and w not in NEGATIONS and len(w) > SHORT_WORD and not any(c.isdigit() for c in w):
            out.append((w, clause))
    return out


def _unmatched(words: Sequence[tuple[str, int]], other: Sequence[tuple[str, int]]) -> list[int]:
    """The positions of the words with no word of the other list on their first SUBJECT_LETTERS ("tumour" meets
    "tumor") and no opposite there ("small" beside "large" is what the two disagree on, not what they are about)."""
    prefixes, others = {w[:SUBJECT_LETTERS] for w, _ in other}, {w for w, _ in other}
    return [
        i
        for i, (w, _) in enumerate(words)
        if w[:SUBJECT_LETTERS] not in prefixes and not OPPOSITE.get(w, set()) & others
    ]


def _neighbours(words: Sequence[tuple[str, int]], i: int) -> set[str]:
    """The stems of the content words just before and after words[i] in its clause."""
    return {_stem(words[j][0]) for j in (i - 1, i + 1) if 0 <= j < len(words) and words[j][1] == words[i][1]}


def direction_stated(claim: str, sentences: Sequence[str]) -> dict[str, int]:
    """{direction word of the claim: the most words around it that a source sentence stating the same word has in
    common with the claim}: a sentence with the opposite word, less close to the claim, is about something else
    (the claim's "more likely for X" is stated; "less likely for Y" next to it is no conflict)."""
    claim_words = {m.group(0).lower(): m.start() for m in _WORD.finditer(claim)}
    out: dict[str, int] = {}
    for w in (w for w in claim_words if w in OPPOSITE):
        for sentence in sentences:
            at = next((m.start() for m in _WORD.finditer(sentence) if m.group(0).lower() == w), None)
            if at is not None:
                near = len(
                    near_stems(claim, claim_words[w], claim_words[w] + len(w)) & near_stems(sentence, at, at + len(w))
                )
                out[w] = max(out.get(w, 0), near)
    return out


def direction_conflict(
    claim: str, sentence: str, stated: Mapping[str, int] | None = None
) -> tuple[str, str, str] | None:
    """A direction word (higher, increased, improves, aligned…) where the source has its opposite, about the same
    thing: DIRECTION_SHARED_WORDS around both in common, and no fewer than around a source sentence that states
    the same word (stated: direction_stated). Returns ("direction", claim's word, source's word) or None."""
    claim_words = _plain_words(claim)
    source_words = _plain_words(sentence)
    for w in sorted(claim_words):
        rivals = {r for r in OPPOSITE.get(w, set()) & set(source_words) if r not in claim_words}
        if not rivals or w in source_words:
            continue
        rival = sorted(rivals)[0]
        near = len(
            near_stems(claim, claim_words[w], claim_words[w] + len(w))
            & near_stems(sentence, source_words[rival], source_words[rival] + len(rival))
        )
        if (
            near >= DIRECTION_SHARED_WORDS
            and near >= (stated or {}).get(w, 0)
            and not _turned(claim, sentence, w, rivals)
        ):
            return "direction", w, rival
    return None


def _turned(claim: str, sentence: str, word: str, rivals: set[str]) -> bool:
    """Whether the sentence makes the claim's comparison (by word, the sentence's by one of its rivals) from its other
    side: "the curve is more informative than the median" and "the median is less informative compared to the curve"
    say the same. Not when either comparison is negated ("is not less informative")."""
    ours, theirs = _sides(claim), _sides(sentence)
    if not ours or not theirs or ours[0][0] != word or theirs[0][0] not in rivals or ours[0][1] != theirs[0][1]:
        return False
    if _negated_before(claim, ours[3]) or _negated_before(sentence, theirs[3]):
        return False
    (_, left, right, _), (_, left2, right2, _) = ours, theirs
    left, right, left2, right2 = left - right, right - left, left2 - right2, right2 - left2  # a word on both sides
    return bool((right & left2 or left & right2) and not right & right2 and not left & left2)  # names neither


def _negated_before(text: str, phrase: str) -> bool:
    """Whether a negation stands within NEGATION_REACH words before the comparison phrase (as _sides gives it)."""
    at = text.find(phrase)
    words = [w.lower() for w in _WORD.findall(text[: max(at, 0)])][-NEGATION_REACH:]
    return at >= 0 and any(negates(words, j) for j in range(len(words)))


def _plain_words(text: str) -> dict[str, int]:
    """{word, lower-cased: where it starts}, without a closed set's word that is part of a compound ("semi-annual",
    "bi-weekly"): the compound is another value than the word."""
    return {
        w: m.start()
        for m in _WORD.finditer(text)
        for w in [m.group(0).lower()]
        if w not in EXCLUSIVE_WORDS or text[max(0, m.start() - 1) : m.start()] != "-"
    }


def pairing_conflict(claim: str, sentence: str) -> tuple[str, str] | None:
    """Two direction words crossed over two things: the claim's "high sensitivity but low specificity" where the
    source has "low sensitivity, but high specificity" (both words are in both, so direction_conflict cannot
    see it). Only a full cross counts: one pair reworded ("B lower than A" for "A higher than B") does not.
    Returns (the claim's phrase, the source's) or None."""
    claim_pairs, source_pairs = _pairs(claim), _pairs(sentence)
    for (word, thing), phrase in claim_pairs.items():
        for rival in sorted(OPPOSITE[word] - NOT_PAIRED):  # _pairs() keeps only words in OPPOSITE
            if (rival, thing) not in source_pairs or (word, thing) in source_pairs:
                continue  # tested first: listing the claim's other pairs for each of its pairs was quadratic
            others = [t for (w, t) in claim_pairs if w == rival and t != thing]
            if any((word, t) in source_pairs and (rival, t) not in source_pairs for t in others):
                return phrase, source_pairs[(rival, thing)]
    return None


def _pairs(text: str) -> dict[tuple[str, str], str]:
    """{(direction word, stem of the content word right after it): the two words as written}."""
    words = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(text)]
    out: dict[tuple[str, str], str] = {}
    for (w, start, _), (nxt, _, end) in zip(words, words[1:]):
        if w.lower() in OPPOSITE and nxt.lower() not in STOPWORDS and not any(ch.isdigit() for ch in nxt):
            out.setdefault((w.lower(), nxt.lower()[:STEM_LETTERS]), text[start:end])
    return out


def swap_conflict(claim: str, sentence: str) -> tuple[str, str] | None:
    """The two sides of a comparison swapped: "bacterial isolates showed higher activity than fungal ones" where
    the source has "fungal isolates had higher activity compared with the bacterial isolates". Returns (the
    claim's comparison, the source's) or None."""
    ours, theirs = _sides(claim), _sides(sentence)
    if not ours or not theirs or ours[0] != theirs[0]:  # the same comparison of the same thing ("higher amylase")
        return None
    (_, left, right, phrase), (_, left2, right2, phrase2) = ours, theirs
    if (left - right) & (right2 - left2) and (right - left) & (left2 - right2):
        return phrase, phrase2
    return None


def _sides(text: str) -> tuple[tuple[str, str], set[str], set[str], str] | None:
    """((comparative word, stem of the thing compared), stems of up to SIDE_WORDS content words before it, of up
    to SIDE_WORDS after "than", the comparison as written) for the text's first comparison of a named thing, or
    None. "More than 50" compares no thing; each side stops at its clause ("…, and …").

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
        than = _THAN.search(text, start, start + THAN_SEARCH_CHARS)
        if not than or than.start() >= start + THAN_CHARS:
            continue
        between = [x for x, _, _ in words[i + 1 : bisect_left(starts, than.start())] if x not in STOPWORDS]
        if not between or any(ch.isdigit() for ch in between[0]) or _CLAUSE.search(text, start, than.start()):
            continue
        k = bisect_right(clause_ends, start)
        cut = clause_ends[k - 1] if k else 0  # where the last clause before the word ends
        k = bisect_left(clause_starts, than.end())
        stop = clause_starts[k] if k < len(clauses) else len(text)  # where the first one after "than" starts
        lo, hi = bisect_left(content_starts, cut), bisect_left(content, i)
        before = [words[j][0][:STEM_LETTERS] for j in content[max(lo, hi - SIDE_WORDS) : hi]]
        lo = bisect_left(content_starts, than.end())
        after = [(words[j][0][:STEM_LETTERS], words[j][2]) for j in content[lo : lo + SIDE_WORDS] if words[j][1] < stop]
        if not before or not after:
            continue
        return (w, between[0][:STEM_LETTERS]), set(before), {x for x, _ in after}, text[start : after[-1][1]]
    return None
