"""The numbers of a sentence and when two of them conflict, for the conflict stage: what a number counts (its unit word
and the words around it), when a claimed value is what the source states (rounding allowed), and when a source
sentence states another value for the same thing."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from sourcecheck.text.numerals import read_numbers
from sourcecheck.text.words import content_words, near_stems

# What a number is about: the words on either side of it ("95 days after sowing": words.near_stems), and the first
# word after it.
UNIT_CHARS = 40  # characters after a value searched for its unit word: far enough to pass a spread or a range
# ("3.8 ± 1.2 cm", "5 to 15 years"), short enough not to reach the next clause's noun
HEDGE_CHARS = 25  # characters before a value kept to look for a hedge: room for two words, long ones included
# ("approximately", "just over")
HEDGE_WORDS = 2  # the last words before a value that may hedge it: "about 35,000", "just over 35,000"

# When a claimed value is the source's: a writer rounds. A hedged value ("about 35,000" for 35,074, "roughly 40%"
# for 37.5%) is openly a rounding, often to one significant digit; a plain one is rounded only in its last digit
# ("76%" for 76.2%, "20" for 19.6).
HEDGED_TOLERANCE = 0.15  # share of the larger value a hedged claimed value may be off
ROUNDING_TOLERANCE = 0.02  # share of the larger value a plain claimed value may be off

# When two values count the same thing: the stems around both (words.NEAR) they have in common.
SAME_THING_WORDS = 2  # two shared stems: one ("patients", "study") is shared by most values of a paper
OTHER_UNIT_WORDS = 3  # one more for counts followed by different words ("108 pituitary adenomas" and "5 other
# adenomas" count different things)

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
# Words that say the number after them is a rounding or a bound, not the exact value.
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


@dataclass(frozen=True)
class Stated:
    """A number as a sentence states it, with the words that say what it counts."""

    text: str  # as written: "350,000", "35k", "76.2%", "five"
    value: float
    kind: str  # year | percent | count
    before: str  # the lower-cased words just before it (hedges: "about 35,000" is a rounding)
    after: str  # the content word after it (its unit: "instances")
    near: frozenset[str] = frozenset()  # stems of the words around it: what it is about


@lru_cache(maxsize=256)
def find_numbers(text: str) -> tuple[Stated, ...]:
    """The numbers a text states (numerals.read_numbers), with their unit word and the words before and around them.
    The last texts read are kept: the conflict rules and the value swaps read the same claim and quotes in one check
    (a claim that runs on with thousands of numbers was read twice over)."""
    return tuple(
        Stated(
            n.text,
            n.value,
            n.kind,
            text[max(0, n.start - HEDGE_CHARS) : n.start].lower(),
            _next_word(text, n.end),
            near_stems(text, n.start, n.end),
        )
        for n in read_numbers(text)
    )


def _next_word(text: str, at: int) -> str:
    """The first word after a number, past other numbers ("3.8 ± 1.2 cm", "5 to 15 years"): its unit."""
    words = [w for w in content_words(text[at : at + UNIT_CHARS]) if not any(ch.isdigit() for ch in w)]
    return words[0] if words else ""


def same_value(claimed: Stated, stated: Stated) -> bool:
    """Whether a claimed number is what the source states, allowing honest rounding ("about 35,000"). Values of
    different kinds (a count and a percent) match only exactly; years only exactly."""
    a, b = claimed.value, stated.value
    if "year" in (claimed.kind, stated.kind):
        return claimed.kind == stated.kind and a == b
    if claimed.kind != stated.kind:
        return a == b
    hedged = bool(set(claimed.before.split()[-HEDGE_WORDS:]) & HEDGES)
    tolerance = HEDGED_TOLERANCE if hedged else ROUNDING_TOLERANCE
    return abs(a - b) <= tolerance * max(abs(a), abs(b))


def unclaimed_numbers(claim_numbers: Sequence[Stated], here: Sequence[Stated]) -> list[Stated] | None:
    """The numbers of a sentence that state none of the claim's values; None when the claim has several and the
    sentence states none of them (a sentence about another study or sample)."""
    claimed = [any(same_value(c, n) for c in claim_numbers) for n in here]
    if len(claim_numbers) > 1 and not any(claimed):
        return None
    return [n for n, stated in zip(here, claimed) if not stated]


def same_thing(a: Stated, b: Stated, words: int = SAME_THING_WORDS) -> bool:
    """The one "same thing" rule: two values count the same thing when the same unit word follows both ("1,000
    replications", "10,000 replications"), or `words` stems around them (words.NEAR) are in common. A value about
    something else put in a sentence makes it share words with the excerpts without being right ("two robots" →
    "1,280 robots" beside "1,280 meters")."""
    return bool(a.after and a.after == b.after) or len(a.near & b.near) >= words


def number_conflict(
    missing: Iterable[Stated], unclaimed: Sequence[Stated] | None, whole: bool
) -> tuple[str, str, str] | None:
    """A number of the claim that no evidence states, where this sentence states another value for the same
    thing: the same unit, or SAME_THING_WORDS around both values in common (OTHER_UNIT_WORDS for counts of
    different units), or (in a sentence about the whole claim) the only other value of its kind. unclaimed:
    unclaimed_numbers() of the sentence, found once for all the missing numbers (for each, it was quadratic in a
    claim full of numbers). Returns (kind of conflict, the claim's value, the source's) or None."""
    if unclaimed is None:
        return None
    for c in missing:
        rivals = [s for s in unclaimed if s.kind == c.kind]
        # Two different time units can be the same span ("6 months", "26 weeks"): not a rival value.
        rivals = [s for s in rivals if not (c.after in TIME_UNITS and s.after in TIME_UNITS and c.after != s.after)]
        same = [s for s in rivals if same_thing(c, s, SAME_THING_WORDS if _same_unit(c, s) else OTHER_UNIT_WORDS)]
        only = len({s.value for s in rivals}) == 1 and whole and _same_unit(c, rivals[0])
        if same or only:
            rival = max(same or rivals, key=lambda s: (bool(c.after) and s.after == c.after, len(c.near & s.near)))
            return {"year": "year", "percent": "percent"}.get(c.kind, "number"), c.text, rival.text
    return None


def _same_unit(a: Stated, b: Stated) -> bool:
    """Whether two numbers may count the same thing: percents and years always (their kind is their unit), counts
    when the same word follows both or no word follows one."""
    return a.kind != "count" or not (a.after and b.after and a.after != b.after)
