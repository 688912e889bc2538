"""Citation markers: author-year ones ("Benton (2010)", "(Benton et al., 2010; Lee 2021)") found, and with the
numbered ones ("[3]", "[1, 4]") stripped from a sentence before it is checked and put back into its revision."""

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

_NARRATIVE = re.compile(
    r"\b([A-Z][A-Za-z'’\-]+)(?:\s+et\s+al\.?|\s+(?:and|&)\s+([A-Z][A-Za-z'’\-]+))?\s+\((\d{4})[a-z]?\)"
)
_PAREN = re.compile(r"\(([^()]*?\b\d{4}[a-z]?)\)")
_PAREN_ITEM = re.compile(
    r"([A-Z][A-Za-z'’\-]+)(?:\s+et\s+al\.?|\s+(?:and|&)\s+([A-Z][A-Za-z'’\-]+))?,?\s+(\d{4})[a-z]?"
)
# Two surnames joined by "and" (no year), each ending where its letters end ("Muñoz", not "Mu"; "GPT-4" is none): a
# paper's authors credited in prose, where the words around say so (find_name_pairs)
_NAME = r"[A-Z][^\W\d_]*(?:['’\-][^\W\d_]{2,})*"  # "O'Brien", "Hothorn's" (the possessive is not the name)
_NAME_PAIR = re.compile(rf"({_NAME})\s+(?:and|&)\s+({_NAME})(['’]s?)?(?![\w'’\-])")
_CREDIT_BEFORE = re.compile(r"\b(?:by|from)\s+$", re.IGNORECASE)  # "the package by Zeileis and Hothorn"
_CREDIT_AFTER = re.compile(  # "Zeileis and Hothorn propose", "… (", "… et al."
    r"\s+(?:\(|et\s+al\b|(?:also\s+|first\s+)?(?:propos|introduc|develop|describ|present|show|wrote|writ|suggest"
    r"|argu|report|demonstrat|deriv|discuss|defin|extend|implement|recommend|conclud|explain|outlin)\w*)",
    re.IGNORECASE,
)
_WORD_BEFORE = re.compile(r"([^\W\d_]+)\s+$")
_NAME_RUN = re.compile(r"[A-Za-z'’\-]+")  # what the name in the three patterns above is made of
_NAME_START = re.compile(r"[A-Z]")
_NAME_START_WORD = re.compile(r"\b[A-Z]")
_NAME_CHAR = re.compile(r"[\w'’\-]")
# "[3]", "[1, 4]", "[2–5]": numbered citation markers, no values to check
_NUMBERED_CITATION = re.compile(r"\[\d{1,3}(?:\s*[,–-]\s*\d{1,3})*\]")
_OPENING = re.compile(r"\[\d{0,3}\Z")  # "[" and an outer marker's digits, just before an inner one


@dataclass
class Citation:
    text: str
    author: str
    year: int
    start: int
    end: int
    coauthor: str | None = None  # the second of two named authors ("Zeileis and Hothorn (2002)"), else None


def find_citations(sentence: str) -> list[Citation]:
    """Author-year citation markers such as 'Benton (2010)' or '(Benton et al., 2010; Lee 2021)'."""
    found = []
    for m in _first_per_run(_NARRATIVE, _NAME_START_WORD, sentence):
        found.append(Citation(m.group(0), m.group(1), int(m.group(3)), m.start(), m.end(), m.group(2)))
    starts = [c.start for c in found]
    for m in _PAREN.finditer(sentence):
        i = bisect_right(starts, m.start()) - 1  # the narrative citations are sorted and do not overlap
        if i >= 0 and m.start() < found[i].end:
            continue
        for item in _first_per_run(_PAREN_ITEM, _NAME_START, m.group(1)):
            s = m.start(1) + item.start()
            found.append(
                Citation(item.group(0), item.group(1), int(item.group(3)), s, m.start(1) + item.end(), item.group(2))
            )
    return sorted(found, key=lambda c: c.start)


def find_name_pairs(sentence: str) -> list[Citation]:
    """Two surnames joined by "and" or "&" outside any author-year marker, credited with something: after "by" or
    "from", before a possessive, a bracket, "et al." or a verb of authorship ("by Zeileis and Hothorn", "Zeileis &
    Hothorn's package", "Zeileis and Hothorn propose"); year 0. Not a pair inside full names ("Abhika Mishra and Akari
    Asai"), nor the last two of a list ("Mishra, Asai and Kleiber"): a revision could not mend those."""
    taken = [(c.start, c.end) for c in find_citations(sentence)]
    out = []
    for m in _first_per_run(_NAME_PAIR, _NAME_START_WORD, sentence):
        before, after = sentence[: m.start()], sentence[m.end() :]
        word = _WORD_BEFORE.search(before)
        if (
            any(start < m.end() and m.start() < end for start, end in taken)
            or before.rstrip().endswith(",")
            or (word and word.group(1)[0].isupper() and before[: word.start()].strip())  # not the sentence's first
            or re.match(r"\s+[A-Z]", after)
            or not (_CREDIT_BEFORE.search(before) or m.group(3) or _CREDIT_AFTER.match(after))
        ):
            continue
        out.append(Citation(m.group(0), m.group(1), 0, m.start(), m.end(), m.group(2)))
    return out


def _first_per_run(pattern: re.Pattern[str], start: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """pattern.finditer(text) for a pattern that opens with a name, trying in each run of name characters only
    the first place `start` finds: the name must run to the run's end (a space or a comma follows it), so a
    later start in the same run is followed by the same text and matches only if the first does, and then it
    lies inside the first's match. Trying every one made a sentence like "A-B-C-…" quadratic."""
    done = 0
    for run in _NAME_RUN.finditer(text):
        if run.end() <= done:
            continue
        first = start.search(text, max(run.start(), done), run.end())
        m = first and pattern.match(text, first.start())
        if m:
            done = m.end()
            yield m


def citation_spans(sentence: str) -> list[tuple[int, int]]:
    """The (start, end) of each citation marker strip_citations leaves out: whole '(Benton, 2010)' groups, the
    year of a narrative 'Benton (2010)', numbered markers '[3]'."""
    spans = []
    for m in _PAREN.finditer(sentence):
        narrative = re.fullmatch(r"\d{4}[a-z]?", m.group(1)) and _name_before(sentence, m.start())
        if next(_first_per_run(_PAREN_ITEM, _NAME_START, m.group(1)), None) or narrative:
            spans.append((m.start(), m.end()))
    return sorted(spans + numbered_spans(sentence))


def numbered_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each numbered marker ("[3]", "[1, 4]") with the brackets it is nested in: "[1[1]]" and
    "[[2]]" are one marker each. Stripping the inner marker alone left "[1]", a new marker, and the outer numbers
    read as values. The step back is over "[" and digits only, so it stops at the "]" of the marker before: each
    character is read once."""
    spans = []
    for m in _NUMBERED_CITATION.finditer(text):
        start, end = m.span()
        opens = []  # where the "[" are that the marker is nested in, nearest first
        while found := _OPENING.search(text, max(0, start - 4), start):
            start = found.start()
            opens.append(start)
        closed = 0  # of those, the ones closed by a "]" right after it
        while closed < len(opens) and text.startswith("]", end):
            closed, end = closed + 1, end + 1
        spans.append((opens[closed - 1] if closed else m.start(), end))
    return spans


def strip_citations(sentence: str) -> str:
    """The sentence without citation markers (citation_spans).

    The citation itself is checked by matching the paper; left in, its year or number reads as a value to verify.
    """
    out, last = [], 0
    for start, end in citation_spans(sentence):
        out.append(sentence[last:start].rstrip(" "))
        last = end
    out.append(sentence[last:])
    # (?<!\s): a space run is tried from its first space only (the rest end where it ends), not from each
    return re.sub(r"(?<!\s)\s+([.,;:])", r"\1", "".join(out)).strip()


def keep_citations(sentence: str, revised: str) -> str:
    """A revision of the stripped sentence with the sentence's citation markers put back: each after the word it
    followed, where the revision still has that word, else before the revision's final stop."""
    for start, end in reversed(citation_spans(sentence)):
        marker, before = sentence[start:end], re.findall(r"[\w'’-]+", sentence[:start])
        tail = sentence[end:].strip(" .!?;:,\"'”’)")
        at = None
        if before and tail:  # mid-sentence: after the same word in the revision
            found = list(re.finditer(r"(?<![\w'’-])" + re.escape(before[-1]) + r"(?![\w'’-])", revised))
            at = found[-1].end() if found else None
        if at is None:  # at the end, or its word is gone: before the final stop
            at = len(revised.rstrip().rstrip(".!?"))
        revised = revised[:at] + " " + marker + revised[at:]
    return revised


def _name_before(sentence: str, at: int) -> bool:
    r"""Whether sentence[:at] ends with a name ("Benton", "O'Neil", "et al.") and spaces: what
    `(?:[A-Z][\w'’-]+|al\.)\s*$` finds, read backwards over that word only (searching the whole prefix for
    each "(2010)" was cubic). The word steps back to the previous "(…)" at most, so each character is read once."""
    end = at
    while end and sentence[end - 1].isspace():
        end -= 1
    if sentence.endswith("al.", 0, end):
        return True
    start = end
    while start and _NAME_CHAR.match(sentence, start - 1):
        start -= 1
    return _NAME_START.search(sentence, start, end - 1) is not None


# What a citation may put where a second author goes without naming one ("Smith and Colleagues (2020)")
NOT_A_NAME = {
    "colleagues",
    "coworkers",
    "co-workers",
    "coauthors",
    "co-authors",
    "others",
    "associates",
    "collaborators",
    "team",
}
_NAME_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_UMLAUT = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ß": "ss"})
# Letters NFKD leaves whole (no accent to take off): "Østergaard" is cited "Ostergaard", "Michałowski" "Michalowski"
_PLAIN = str.maketrans(
    {
        "ø": "o",
        "Ø": "O",
        "ł": "l",
        "Ł": "L",
        "đ": "d",
        "Đ": "D",
        "æ": "ae",
        "Æ": "Ae",
        "œ": "oe",
        "Œ": "Oe",
        "ı": "i",
        "þ": "th",
        "Þ": "Th",
        "ð": "d",
        "Ð": "D",
    }
)


def _fold(name: str) -> str:
    """A name as lower-case letters only, accents and apostrophes away: 'Müller' → 'muller', 'O’Brien' → 'obrien'."""
    plain = unicodedata.normalize("NFKD", name.translate(_PLAIN))
    return "".join(ch for ch in plain if ch.isalpha() and not unicodedata.combining(ch)).lower()


def is_author(surname: str, authors: Sequence[str]) -> bool:
    """Whether a surname as a citation writes it is a whole name word of one of these authors: 'Hothorn' of 'Torsten
    Hothorn' (not of 'Hothornson'); 'Muller' and 'Mueller' of 'Anna Müller'; "O'Brien" of 'Mary O’Brien'."""
    want = {_fold(surname), _fold(surname.translate(_UMLAUT))}
    return any(_fold(w) in want or _fold(w.translate(_UMLAUT)) in want for a in authors for w in _NAME_WORD.findall(a))
