"""Sentences with exact code-point offsets, which of them are claims, citation markers, and the one number reader.

Over 300 lines for a reason: it is the package's leaf for reading words (sentences, abbreviations, citations,
content words, numbers), which everything else imports; about 60 of its lines are the abbreviation list.
"""

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

# Tokens that end with a period but do not end a sentence (lower-cased, without the final period).
ABBREVIATIONS = {
    "e.g",
    "i.e",
    "al",
    "etc",
    "vs",
    "cf",
    "fig",
    "figs",
    "eq",
    "eqs",
    "no",
    "nos",
    "vol",
    "pp",
    "p",
    "dr",
    "mr",
    "mrs",
    "ms",
    "prof",
    "sr",
    "jr",
    "st",
    "mt",
    "inc",
    "ltd",
    "co",
    "corp",
    "dept",
    "univ",
    "approx",
    "est",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "u.s",
    "u.k",
    "u.n",
    "e.u",
    "ph.d",
    "a.m",
    "p.m",
    "sec",
    "ch",
    "ed",
    "eds",
    "ref",
    "refs",
    "tab",
}
_LONGEST = max(map(len, ABBREVIATIONS))
_TOKEN_CHAR = re.compile(r"[\w.]")
_TOKEN_END = re.compile(r"[\w.]*\Z")
_LINE_MARKER = re.compile(
    r"[ \t]*(?:#{1,6}[ \t]+|>[ \t]*|[-*+•◦▪][ \t]+|\(?\d{1,3}[.)][ \t]+|\(?[a-zA-Z][.)][ \t]+(?=[A-Z]))"
)
_HEADING = re.compile(r"[ \t]*#{1,6}[ \t]")
_EMOJI = "[\u2600-\u27bf\U0001f000-\U0001faff\ufe0f\u200d]+"  # "Great question! 🙂" keeps its emoji
# (?<![.!?]): a match never starts just after . ! or ? (one a character earlier matches first, or the last
# match ended on a space), but without it each period of a run of n was tried again: n² steps for "....".
_STOP = rf"(?<![.!?])[.!?]+[\"'”’)\]*_]*(?:\s*{_EMOJI})?"  # never from inside a run of stops: each run matched once
_END = re.compile(rf"{_STOP}(?=\s+[\"'“‘(\[*_]*[A-Z0-9À-ÖØ-Þ])|{_STOP}$")
_INTRO = re.compile(r"[^.!?:\n]{0,60}:(?=\s+[\"'“(\[*_]*[A-Z])")
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_NOT_CLAIM = re.compile(
    r"^(hi|hello|hey|thanks|thank you|sure|certainly|of course|absolutely|great question|good question|"
    r"i hope (this|that) helps|hope (this|that) helps|let me know|feel free|happy to help|"
    r"here(?:'s| is| are)|below (?:is|are))\b",
    re.IGNORECASE,
)
_NARRATIVE = re.compile(
    r"\b([A-Z][A-Za-z'’\-]+)(?:\s+et\s+al\.?|\s+(?:and|&)\s+[A-Z][A-Za-z'’\-]+)?\s+\((\d{4})[a-z]?\)"
)
_PAREN = re.compile(r"\(([^()]*?\b\d{4}[a-z]?)\)")
_PAREN_ITEM = re.compile(r"([A-Z][A-Za-z'’\-]+)(?:\s+et\s+al\.?|\s+(?:and|&)\s+[A-Z][A-Za-z'’\-]+)?,?\s+(\d{4})[a-z]?")
_NAME_RUN = re.compile(r"[A-Za-z'’\-]+")  # what the name in the three patterns above is made of
_NAME_START = re.compile(r"[A-Z]")
_NAME_START_WORD = re.compile(r"\b[A-Z]")
_NAME_CHAR = re.compile(r"[\w'’\-]")
_CONTENT_WORD = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")


@dataclass
class Sentence:
    index: int
    start: int
    end: int
    text: str
    checkable: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "checkable": self.checkable,
        }


@dataclass
class Citation:
    text: str
    author: str
    year: int
    start: int
    end: int


def split_sentences(text: str) -> list[Sentence]:
    """Split text into sentences; text[s.start:s.end] == s.text for every one."""
    sentences: list[Sentence] = []
    for seg_start, seg_end, heading in _segments(text):
        for start, end in _split_segment(text, seg_start, seg_end):
            body = text[start:end]
            sentences.append(Sentence(len(sentences), start, end, body, not heading and is_claim(body)))
    return sentences


def sentence_texts(text: str) -> list[str]:
    """The text of each sentence; the text itself when it has none (a run-on from a table, a title)."""
    return [s.text for s in split_sentences(text)] or [text]


def is_claim(sentence: str) -> bool:
    """True for a sentence that states something checkable (not a question, greeting or heading)."""
    s = sentence.strip().strip("*_` ")
    words = _WORD.findall(s)
    if len(words) < 3 or s.endswith("?") or s.endswith(":"):
        return False
    if _NOT_CLAIM.match(s) and (s.endswith(":") or s.endswith("!") or len(words) < 12):
        return False
    if not re.search(r"[.!)\]\"'”’*_`]$|\d$", s) and len(words) <= 6 and s[:1].isupper():
        return False  # a short line without final punctuation: a title or a label
    return bool(content_words(s))  # "That is all.": nothing but function words, nothing to check


def _segments(text: str) -> Iterator[tuple[int, int, bool]]:
    """Lines (or soft-wrapped runs of lines) with list markers and heading hashes cut off the front."""
    pos, pending = 0, None
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        start, end = pos, pos + len(body)
        pos += len(line)
        if not body.strip():
            if pending:
                yield pending
            pending = None
            continue
        heading = bool(_HEADING.match(body))
        marker = _LINE_MARKER.match(body)
        content_start = start + (marker.end() if marker else 0)
        content_start += len(text[content_start:end]) - len(text[content_start:end].lstrip())
        if pending and not marker and not heading and _continues(text, pending, content_start):
            pending = (pending[0], end, False)  # a soft-wrapped line: same sentence goes on
            continue
        if pending:
            yield pending
        pending = (content_start, end, heading)
    if pending:
        yield pending


def _continues(text: str, pending: tuple[int, int, bool], next_start: int) -> bool:
    """A line that does not end a sentence, followed by one starting in lower case, is a soft wrap."""
    if pending[2]:
        return False
    # Its last character, found by stepping back over its last line's trailing spaces: copying the whole
    # pending run of lines for each new line was quadratic in a long soft-wrapped block.
    end = pending[1]
    while end > pending[0] and text[end - 1].isspace():
        end -= 1
    last = text[end - 1 : end] if end > pending[0] else ""
    return last not in ".!?:;" and text[next_start : next_start + 1].islower()


def _split_segment(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """(start, end) of each sentence of text[start:end], without the spaces around it."""
    seg = text[start:end]
    cuts = []
    intro = _INTRO.match(seg)
    if intro:  # "Here is a summary: The bridge ..." — the preamble is a sentence of its own
        cuts.append(intro.end())
    for m in _END.finditer(seg):
        if seg[m.start()] != "." or not _is_abbreviation(seg, m.start()):
            cuts.append(m.end())
    if not cuts or cuts[-1] < len(seg):
        cuts.append(len(seg))
    spans, cut = [], 0
    for stop in cuts:
        span = _trimmed(start + cut, start + stop, text)
        if span:
            spans.append(span)
        cut = stop
    return spans


def _is_abbreviation(seg: str, dot: int) -> bool:
    r"""Is the period at seg[dot] part of an abbreviation, an initial or a number like 'No. 5'?

    The token is the run of word characters and periods before it. Only its last _LONGEST + 1 characters
    (past any final periods) can make it one, so only they are searched: `[\w.]+$` searched in seg[:dot]
    for every period was cubic (a DNA sequence followed by many sentences: minutes).
    """
    stem_end = dot
    while stem_end and seg[stem_end - 1] == ".":  # none in practice: _END never starts just after a period
        stem_end -= 1
    window = max(0, stem_end - _LONGEST - 1)
    start = _TOKEN_END.search(seg, window, stem_end).start()  # type: ignore[union-attr]  # [\w.]*\Z always matches
    if start == window and start and _TOKEN_CHAR.match(seg, start - 1):
        return False  # longer than any abbreviation, and no initial
    token = seg[start:dot].lower()
    if token in ABBREVIATIONS or token.rstrip(".") in ABBREVIATIONS:
        return True
    return len(token) == 1 and token.isalpha() and seg[dot - 1].isupper()  # an initial: "J. Smith"


def _trimmed(start: int, end: int, text: str) -> tuple[int, int] | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if end > start else None


def find_citations(sentence: str) -> list[Citation]:
    """Author-year citation markers such as 'Benton (2010)' or '(Benton et al., 2010; Lee 2021)'."""
    found = []
    for m in _first_per_run(_NARRATIVE, _NAME_START_WORD, sentence):
        found.append(Citation(m.group(0), m.group(1), int(m.group(2)), m.start(), m.end()))
    starts = [c.start for c in found]
    for m in _PAREN.finditer(sentence):
        i = bisect_right(starts, m.start()) - 1  # the narrative citations are sorted and do not overlap
        if i >= 0 and m.start() < found[i].end:
            continue
        for item in _first_per_run(_PAREN_ITEM, _NAME_START, m.group(1)):
            s = m.start(1) + item.start()
            found.append(Citation(item.group(0), item.group(1), int(item.group(2)), s, m.start(1) + item.end()))
    return sorted(found, key=lambda c: c.start)


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


def content_words(text: str) -> list[str]:
    """Lower-cased words that carry meaning (for lexical search and overlap)."""
    return [w for w in _CONTENT_WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 1]


WORD_NUMBERS = {
    w: n
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen".split()
    )
    if n >= 2
}  # "one" is mostly not a count ("one of the")
TENS = {w: 10 * n for n, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}
UNITS = {w: n for n, w in enumerate("one two three four five six seven eight nine".split(), 1)}
WORD_NUMBER = re.compile(
    r"\b(?:(" + "|".join(TENS) + r")(?:[-\s](" + "|".join(UNITS) + r"))?|(" + "|".join(WORD_NUMBERS) + r"))\b",
    re.IGNORECASE,
)
# "one hundred and twenty-eight": the hundreds before a word number belong to it
_HUNDREDS = re.compile(r"\b(a|" + "|".join(UNITS) + r")[\s-]+hundred(?:[\s-]+and)?[\s-]+$", re.IGNORECASE)
_THOUSANDS = re.compile(r"\b(thousand|million|billion)[\s,-]+(?:and[\s-]+)?$", re.IGNORECASE)
_SCALE_WORD = re.compile(r"[\s-]+(hundred|thousand|million|billion)\b", re.IGNORECASE)
SCALE = {"k": 1e3, "hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9, "bn": 1e9, "B": 1e9}
# Digits that are a value: not part of a name ("COVID-19", "GPT-4", "x2"), a version or section path ("3.5.1"), a
# power ("10^6") or a product ("3 × 4", "3x4"). "35k" and "35K" but not "300 K" (kelvin) or "K-12": a k right after
# the digits, not before a hyphen; "13B" (a model size) is 13 billion, "13 b" is not; a unit or an ordinal stuck to
# the digits ("5mg", "1990s", "2nd", "10x") leaves the number its value.
_NUMBER = re.compile(
    r"(?<![A-Za-z\d.,^?])(?<![A-Za-z]-)(?<![\d)] [x×] )(?<![\d)][×])(\d+(?:,\d{3})*(?:\.\d+)?)(?!\.\d)"
    r"(?:\s?(%|percent\b|(?i:hundred|thousand|million|billion|bn)\b)|([kK])\b(?!-)|(B)\b|"
    r"(?:s|st|nd|rd|th|x|mg|kg|ml|mm|cm|km|ms|GB|MB|TB)\b)?(?![A-Za-z\d^])"
)
# A figure, table, section or page number is a reference, not a value ("Figure 3B", "Table 2", "p. 264")
_REFERENCE = re.compile(
    r"\b(?:fig(?:ure)?s?\.?|tables?|sections?|sec\.|eqs?\.|equations?|appendix|chapters?|algorithms?|pp?\.|pages?)"
    r"\s*",
    re.IGNORECASE,
)
_YEAR = re.compile(r"1[5-9]\d\d|20\d\d")


@dataclass(frozen=True)
class Number:
    """A number a text states: as written, its value, and where."""

    text: str  # as written: "350,000", "35k", "76.2%", "five", "one hundred and twenty-eight"
    value: float
    kind: str  # year | percent | count
    start: int
    end: int

    @property
    def key(self) -> str:
        """The value as one string, so two ways of writing a number meet: "10.0" and "10", "35k" and "35,000"."""
        return str(int(self.value)) if self.value.is_integer() else repr(round(self.value, 6))


def read_numbers(text: str) -> list[Number]:
    """Every number the text states, in digits or words, in the order: digits first, then words."""
    out = []
    # "[3]": a citation, not a value. The markers are sorted and disjoint, so each number looks up the one it may
    # lie in: comparing every number with every marker was quadratic ("[1] 7 " repeated: seconds).
    cited = _numbered_spans(text)
    cited_starts = [a for a, _ in cited]
    # where "Table ", "p. "... end: a number there is a reference. Found in one pass, not searched for before each
    # number (that search was a third of the reading's time)
    references = {m.end() for m in _REFERENCE.finditer(text)}
    for m in _NUMBER.finditer(text):
        i = bisect_right(cited_starts, m.start()) - 1
        if (i >= 0 and m.start() < cited[i][1]) or m.start() in references:
            continue
        raw, suffix = m.group(1), (m.group(2) or m.group(3) or m.group(4) or "")
        value = float(raw.replace(",", "")) * SCALE.get(suffix if suffix == "B" else suffix.lower(), 1.0)
        kind = (
            "percent"
            if suffix.lower() in ("%", "percent")
            else "year"
            if _YEAR.fullmatch(raw) and not suffix
            else "count"
        )
        out.append(Number(m.group(0), value, kind, m.start(), m.end()))
    for m in WORD_NUMBER.finditer(text):
        if _SCALE_WORD.match(text, m.end()):  # at m.end(), not in a copy of the rest: once per word number
            continue  # "two million": a scale this reader does not multiply out, so no value to compare
        tens, unit, small = (g.lower() if g else g for g in m.groups())
        value = TENS[tens] + UNITS.get(unit, 0) if tens else WORD_NUMBERS[small]
        start, hundreds = m.start(), _HUNDREDS.search(text[max(0, m.start() - 20) : m.start()])
        if hundreds:
            value += 100 * UNITS.get(hundreds.group(1).lower(), 1)
            start = max(0, m.start() - 20) + hundreds.start()
        if _THOUSANDS.search(text[max(0, start - 15) : start]):
            continue  # "one thousand two hundred and fifty": the thousands are not read, so no value to compare
        out.append(Number(text[start : m.end()], float(value), "count", start, m.end()))
    return out


def numbers(text: str) -> set[str]:
    """The values a text states ('35,074' → '35074', '76.2%' → '76.2', '35k', 'thirty-five thousand' is not read),
    so that two ways of writing one number meet."""
    return {n.key for n in read_numbers(text)}


STOPWORDS = set(
    "a an the and or but if then than that this these those is are was were be been being of in on at to for "
    "from by with as it its into about over under between through during after before above below up down out "
    "off again further once here there when where why how all any both each few more most other some such only "
    "own same so too very can will just should now also not no nor do does did has have had having he she they "
    "them his her their we our you your i me my which who whom what while because until against".split()
)


# "[3]", "[1, 4]", "[2–5]": numbered citation markers, no values to check
_NUMBERED_CITATION = re.compile(r"\[\d{1,3}(?:\s*[,–-]\s*\d{1,3})*\]")
_OPENING = re.compile(r"\[\d{0,3}\Z")  # "[" and an outer marker's digits, just before an inner one


def citation_spans(sentence: str) -> list[tuple[int, int]]:
    """The (start, end) of each citation marker strip_citations leaves out: whole '(Benton, 2010)' groups, the
    year of a narrative 'Benton (2010)', numbered markers '[3]'."""
    spans = []
    for m in _PAREN.finditer(sentence):
        narrative = re.fullmatch(r"\d{4}[a-z]?", m.group(1)) and _name_before(sentence, m.start())
        if next(_first_per_run(_PAREN_ITEM, _NAME_START, m.group(1)), None) or narrative:
            spans.append((m.start(), m.end()))
    return sorted(spans + _numbered_spans(sentence))


def _numbered_spans(text: str) -> list[tuple[int, int]]:
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
