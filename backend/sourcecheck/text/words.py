"""Words that carry meaning: the stopwords, a text's content words (for lexical search and overlap), and their
stems, which tell whether two texts, or the words around two places, are about the same thing."""

import re

from sourcecheck.text.numerals import TENS, WORD_NUMBERS

_CONTENT_WORD = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")
# A word cut to its first five letters: "grades" and "grade", "significantly" and "significant",
# "mobilisation" and "mobilization" meet, while words of different meaning rarely share five letters.
STEM_LETTERS = 5
NEAR = 45  # characters on either side of a value (or a direction word) whose words say what it is about: a few
# words each side

STOPWORDS = set(
    "a an the and or but if then than that this these those is are was were be been being of in on at to for "
    "from by with as it its into about over under between through during after before above below up down out "
    "off again further once here there when where why how all any both each few more most other some such only "
    "own same so too very can will just should now also not no nor do does did has have had having he she they "
    "them his her their we our you your i me my which who whom what while because until against".split()
)


_NAME = re.compile(r"\b[A-Z][\w'’-]+")
# Where a sentence's first word starts: after the text's start or a sentence's end (with its closing quotes or
# brackets, and any spaces), behind opening quotes, brackets or Markdown emphasis: '"The', '.)  Farmers', '**All'
_SENTENCE_START = re.compile(r"(?:^|[.!?][\"'”’)\]]*\s+)[\"'“‘(\[*_]*(?=[A-Z])")


def names(text: str, sentence_starts: bool = True) -> set[str]:
    """A text's capitalised words, lower-cased: its names; without sentence_starts, not the word that opens the text
    or a sentence in it (capitalised for that alone)."""
    starts = set() if sentence_starts else {m.end() for m in _SENTENCE_START.finditer(text)}
    return {m.group(0).lower() for m in _NAME.finditer(text) if m.start() not in starts}


def content_words(text: str) -> list[str]:
    """Lower-cased words that carry meaning (for lexical search and overlap)."""
    return [w for w in _CONTENT_WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 1]


def stems(text: str) -> set[str]:
    """Content words cut to STEM_LETTERS, numbers left out: "grades" and "grade", "significantly" and
    "significant" meet."""
    return {  # a number word left out whole, before it is cut: "twenty" is no stem "twent"
        w[:STEM_LETTERS]
        for w in content_words(text)
        if not any(ch.isdigit() for ch in w) and w not in WORD_NUMBERS and w not in TENS
    }


def near_stems(text: str, start: int, end: int) -> frozenset[str]:
    """The stems of the words within NEAR characters of text[start:end] (a value, a direction word)."""
    return frozenset(stems(text[max(0, start - NEAR) : start] + " " + text[end : end + NEAR]))
