"""numerals.py: the one number reader (conflicts, evidence ranking, signals and the fake model read through it)."""

import pytest
from sourcecheck.text.numerals import numbers, read_numbers


def test_numbers_are_normalised():
    assert numbers("35,074 items at 76.2% in 2010") == {"35074", "76.2", "2010"}


def test_numbers_with_a_scale_word_meet_the_same_number_written_out():
    """'35k' is 35,000, as the conflict finder reads it: a claim of 35k is not "missing" from a source of 35,000."""
    assert numbers("35k instances") == numbers("35,000 instances") == numbers("35 thousand instances") == {"35000"}
    assert numbers("1.5 million users, version 3.5.1, 10.0 km") == {"1500000", "10"}  # a version is no value
    assert numbers("300 K in 2019 K-12 schools") == {"300", "2019"}  # kelvin is no thousand, K-12 a name


# The one number reader (conflicts, evidence ranking, signals and the fake model all read numbers through it).
NUMBER_CASES = [
    ("COVID-19 cases", []),  # a name, not a value
    ("GPT-4 and Llama2-Chat", []),
    ("a 13B model", [("13B", 13e9, "count")]),
    ("13 b", [("13", 13.0, "count")]),
    ("35k instances", [("35k", 35e3, "count")]),
    ("300 K in K-12 schools", [("300", 300.0, "count")]),  # kelvin and K-12 are no thousands
    ("one hundred and twenty-eight rows", [("one hundred and twenty-eight", 128.0, "count")]),
    ("two million users", []),  # a scale on a word number is not multiplied out: no value to compare
    ("a 2.5-fold rise", [("2.5", 2.5, "count")]),
    ("1,000 people", [("1,000", 1000.0, "count")]),
    ("in 2019 and 1850", [("2019", 2019.0, "year"), ("1850", 1850.0, "year")]),
    ("from 10-20 days", [("10", 10.0, "count"), ("20", 20.0, "count")]),
    ("76.2% and 5 percent", [("76.2%", 76.2, "percent"), ("5 percent", 5.0, "percent")]),
    ("1.5 million", [("1.5 million", 1.5e6, "count")]),
    ("version 3.5.1", []),
    ("10^6 and 3 × 4", [("3", 3.0, "count")]),
    ("three epochs", [("three", 3.0, "count")]),
    ("one of the models", []),  # "one" is mostly not a count
    ("max 10 tokens, approx 30% and index 4", [("10", 10.0, "count"), ("30%", 30.0, "percent"), ("4", 4.0, "count")]),
    ("35K users", [("35K", 35e3, "count")]),
    ("3x4 and 2 × 5", [("2", 2.0, "count")]),  # a product's factors are no values of their own
    ("Figure 3B and Table 2 show 7 runs", [("7", 7.0, "count")]),  # references, not values
    ("as on p. 264 and page 12", []),  # page references
    ("the span is long [1], the longest [2, 3]", []),  # numbered citations
    (
        "5mg in the 1990s, 2nd run, 10x faster",
        [("5mg", 5.0, "count"), ("1990s", 1990.0, "year"), ("2nd", 2.0, "count"), ("10x", 10.0, "count")],
    ),
]


@pytest.mark.parametrize("text, expected", NUMBER_CASES)
def test_read_numbers(text, expected):
    assert [(n.text, n.value, n.kind) for n in read_numbers(text)] == expected


def test_read_numbers_spans_point_at_the_text():
    text = "In 2019, 76.2% of 1,280 people and thirty-five mice"
    assert [text[n.start : n.end] for n in read_numbers(text)] == ["2019", "76.2%", "1,280", "thirty-five"]


def test_numbers_meet_written_in_digits_or_words():
    assert numbers("three epochs") == numbers("3 epochs") == {"3"}
    assert numbers("10.0 km") == numbers("10 km")
