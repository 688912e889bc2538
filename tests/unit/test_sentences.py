"""sentences.py: where sentences end, in scripts and page texts the English rules do not cover."""

import pytest
from sourcecheck.text.sentences import is_claim, split_sentences


@pytest.mark.parametrize(
    "text, want",
    [
        ("模型在数据上训练。结果很好。", ["模型在数据上训练。", "结果很好。"]),
        ("東京は大きい！大阪も大きい？", ["東京は大きい！", "大阪も大きい？"]),
        ("यह पहला वाक्य है। यह दूसरा है।", ["यह पहला वाक्य है।", "यह दूसरा है।"]),
        ("Առաջին նախադասություն։ Երկրորդը։", ["Առաջին նախադասություն։", "Երկրորդը։"]),
        ("የመጀመሪያው ዓረፍተ ነገር። ሁለተኛው።", ["የመጀመሪያው ዓረፍተ ነገር።", "ሁለተኛው።"]),
        ("The model was trained.\u200bThe results hold.", ["The model was trained.", "The results hold."]),
        ("The model was trained.\u200d The results hold.", ["The model was trained.", "The results hold."]),
        ("The model was trained.\u2060\ufeffThe results hold.", ["The model was trained.", "The results hold."]),
    ],
)
def test_sentences_end_at_other_scripts_stops_and_through_zero_width_characters(text, want):
    got = split_sentences(text)
    assert [s.text for s in got] == want
    assert all(text[s.start : s.end] == s.text for s in got)


def test_a_zero_width_character_inside_a_sentence_ends_nothing():
    text = "Dr.\u200b Smith trained the model on 3.5\u200bM examples."
    assert [s.text for s in split_sentences(text)] == [text]


def test_a_wide_stop_before_an_intro_colon_gives_sentences_that_do_not_overlap():
    text = "研究表明。结论: The bridge opened in 1937."
    got = split_sentences(text)
    assert all(a.end <= b.start for a, b in zip(got, got[1:]))
    assert all(text[s.start : s.end] == s.text for s in got) and got[-1].text.endswith("The bridge opened in 1937.")


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


def test_an_emoji_stays_with_the_sentence_before_it():
    text = "Great question! 🙂 Here is what the paper says. Café owners liked it 🚀. The span is 1,280 m."
    assert texts(text) == [
        ("Great question! 🙂", False),
        ("Here is what the paper says.", False),
        ("Café owners liked it 🚀.", True),
        ("The span is 1,280 m.", True),
    ]
