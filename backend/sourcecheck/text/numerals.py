"""The one number reader: the numbers a text states, in digits or words, with their values ("35k" is 35,000),
so that two ways of writing one number meet; a figure, table or page number or a numbered citation is no value."""

import re
from bisect import bisect_right
from dataclasses import dataclass

from sourcecheck.text.citations import numbered_spans

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
    cited = numbered_spans(text)
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
