"""sentences.py: where sentences end, in scripts and page texts the English rules do not cover."""

import pytest
from sourcecheck.sentences import split_sentences


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
