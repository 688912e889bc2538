import pytest
from sourcecheck.citations import find_citations, keep_citations, strip_citations
from sourcecheck.numerals import numbers, read_numbers
from sourcecheck.sentences import is_claim, split_sentences


def texts(text):
    return [(s.text, s.checkable) for s in split_sentences(text)]


def test_offsets_are_exact_code_points():
    text = "Caf\u00e9 owners 😀 earn more. The rate is 76.2% (Benton, 2010). Really?"
    sentences = split_sentences(text)
    assert [s.text for s in sentences] == [
        "Caf\u00e9 owners 😀 earn more.",
        "The rate is 76.2% (Benton, 2010).",
        "Really?",
    ]
    for s in sentences:
        assert text[s.start : s.end] == s.text


def test_abbreviations_decimals_and_et_al_do_not_split():
    text = "Smith et al. (2010) found e.g. a 3.5 i.e. large gain vs. the U.S. baseline. Dr. J. Doe agreed."
    assert [t for t, _ in texts(text)] == [
        "Smith et al. (2010) found e.g. a 3.5 i.e. large gain vs. the U.S. baseline.",
        "Dr. J. Doe agreed.",
    ]


def test_markdown_lists_headings_and_newlines():
    text = (
        "## Key findings\nHere is a summary:\n- The bridge opened in 1937.\n* It is painted orange.\n"
        "1. Its span is 1,280 m long.\n2) It was the longest span for 27 years\n\nThanks!"
    )
    assert texts(text) == [
        ("Key findings", False),
        ("Here is a summary:", False),
        ("The bridge opened in 1937.", True),
        ("It is painted orange.", True),
        ("Its span is 1,280 m long.", True),
        ("It was the longest span for 27 years", True),
        ("Thanks!", False),
    ]


def test_soft_wrapped_line_stays_one_sentence():
    text = "The bridge was painted in a colour\nchosen by Irving Morrow. It stands."
    assert [t for t, _ in texts(text)] == ["The bridge was painted in a colour\nchosen by Irving Morrow.", "It stands."]


def test_preamble_before_colon_is_its_own_sentence():
    assert texts("Here is a summary: The bridge opened in 1937.") == [
        ("Here is a summary:", False),
        ("The bridge opened in 1937.", True),
    ]


def test_non_claims():
    assert not is_claim("Is the bridge orange?")
    assert not is_claim("I hope this helps!")
    assert not is_claim("Sure!")
    assert not is_claim("Background and Motivation")
    assert not is_claim("That is all.")  # function words only
    assert is_claim("The bridge is orange.")
    assert is_claim("Note: the value is 5.")


def test_empty_and_whitespace():
    assert split_sentences("") == []
    assert split_sentences("  \n\n ") == []


def test_citations():
    found = find_citations("As Benton (2010) and (Mishra et al., 2024; Lee 2021) show, Smith and Jones (1999) agree.")
    assert [(c.author, c.year) for c in found] == [("Benton", 2010), ("Mishra", 2024), ("Lee", 2021), ("Smith", 1999)]
    sentence = "As Benton (2010) showed."
    c = find_citations(sentence)[0]
    assert sentence[c.start : c.end] == "Benton (2010)"


def test_numbers_are_normalised():
    assert numbers("35,074 items at 76.2% in 2010") == {"35074", "76.2", "2010"}


def test_an_emoji_stays_with_the_sentence_before_it():
    text = "Great question! 🙂 Here is what the paper says. Café owners liked it 🚀. The span is 1,280 m."
    assert texts(text) == [
        ("Great question! 🙂", False),
        ("Here is what the paper says.", False),
        ("Café owners liked it 🚀.", True),
        ("The span is 1,280 m.", True),
    ]


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


@pytest.mark.parametrize(
    "sentence, revised, expected",
    [
        (
            "Its span is 2,000 m long (Strauss et al., 1937).",
            "Its span is 1,280 m long.",
            "Its span is 1,280 m long (Strauss et al., 1937).",
        ),
        ("Strauss (1937) gave 2,000 m.", "Strauss gave 1,280 m.", "Strauss (1937) gave 1,280 m."),
        (
            "It is 2,000 m [1], the longest [2, 3].",
            "It is 1,280 m, the longest.",
            "It is 1,280 m [1], the longest [2, 3].",
        ),
        ("Strauss (1937) gave 2,000 m.", "The span is 1,280 m.", "The span is 1,280 m (1937)."),  # its word is gone
    ],
)
def test_a_revision_gets_the_sentences_citations_back(sentence, revised, expected):
    assert strip_citations(sentence) != sentence
    assert keep_citations(sentence, revised) == expected
