"""Sentences with exact code-point offsets, and which of them are claims: something checkable, not a question, a
greeting or a heading. About 60 of its lines are the abbreviation list."""

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sourcecheck.text.words import content_words

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
# a word that ends a sentence: its stop, then any closing quotes or brackets ("1993).", "end.”")
WORD_ENDS_SENTENCE = re.compile(r"[.!?][\"'”’)\]]*$")
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
_ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"  # not \s, yet what separates two sentences on a page that has them
# stops of scripts written without a space after them (Chinese and Japanese 。！？, Devanagari । ॥, Armenian ։,
# Ethiopic ።): a sentence ends there whatever follows
_WIDE_STOP = r"[。！？।॥։።]+[」』”’)\]]*"
_END = re.compile(rf"{_STOP}(?=[\s{_ZERO_WIDTH}]+[\"'“‘(\[*_]*[A-Z0-9À-ÖØ-Þ])|{_STOP}$|{_WIDE_STOP}")
_INTRO = re.compile(r"[^.!?:。！？।॥։።\n]{0,60}:(?=\s+[\"'“(\[*_]*[A-Z])")  # no sentence's end inside it
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_NOT_CLAIM = re.compile(
    r"^(hi|hello|hey|thanks|thank you|sure|certainly|of course|absolutely|great question|good question|"
    r"i hope (this|that) helps|hope (this|that) helps|let me know|feel free|happy to help|"
    r"here(?:'s| is| are)|below (?:is|are))\b",
    re.IGNORECASE,
)


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
    cuts = sorted(set(cuts))  # an intro's end and a stop's may come in either order
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
    while start < end and (text[start].isspace() or text[start] in _ZERO_WIDTH):
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in _ZERO_WIDTH):
        end -= 1
    return (start, end) if end > start else None
