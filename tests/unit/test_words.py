from sourcecheck.text.words import NEAR, STEM_LETTERS, STOPWORDS, content_words, names, near_stems, stems


def test_content_words_are_lower_case_without_stopwords_or_single_letters_and_numbers_stay_whole():
    text = "The GDP grew by 3.5 percent to 35,000 users, and it was a 2x rise in 2021; I saw x."
    assert content_words(text) == ["gdp", "grew", "3.5", "percent", "35,000", "users", "2x", "rise", "2021", "saw"]
    assert content_words("It is not that this was all of them.") == []
    assert {"not", "no", "nor"} <= STOPWORDS  # negations say nothing about what a text is about


def test_names_are_capitalised_words_and_can_leave_out_sentence_openers():
    text = "The otters of Wick met Ann O’Neil. Later, Bo-Lind came.\nThen McLean left"
    assert names(text) == {"the", "wick", "ann", "o’neil", "later", "bo-lind", "then", "mclean"}
    assert names(text, sentence_starts=False) == {"wick", "ann", "o’neil", "bo-lind", "mclean"}
    assert names("no capitals here, 2021.") == set()
    # a sentence opens behind a quote, brackets or emphasis, and after two spaces or a bracket that closes one
    for text in ('"The otters swam," she said.', "Otters swam.  Farmers watched.", "(As seen.) Farmers", "**All** did"):
        assert names(text, sentence_starts=False) == set(), text


def test_stems_meet_across_endings_and_spellings_and_leave_numbers_out():
    assert stems("Grades were significantly higher") == {"grade", "signi", "highe"}
    assert stems("the grade was significant!") == {"grade", "signi"}
    assert stems("mobilisation") == stems("mobilization") == {"mobil"}
    assert all(len(s) <= STEM_LETTERS for s in stems("extraordinarily long otters"))
    assert stems("12 otters in 2021 and 3.5 of them") == {"otter"}
    assert stems("two three seven otters") == {"otter"}
    assert stems("twenty thirteen seventeen otters") == {"otter"}  # long number words too, not "twent", "thirt"


def test_near_stems_are_the_words_within_near_characters_either_side():
    text = (
        "Distant remarks about harbour boats open this long sentence, then yields rose by 12 percent in the wheat "
        "plots, and after those come unrelated closing remarks on fishing."
    )
    at = text.index("12")
    near = near_stems(text, at, at + 2)
    assert {"yield", "rose", "perce", "wheat", "plots"} <= near
    assert not {"dista", "harbo", "boats", "fishi", "closi"} & near
    assert near_stems(text, at, at + 2) == stems(text[at - NEAR : at] + " " + text[at + 2 : at + 2 + NEAR])
    assert near_stems("12", 0, 2) == frozenset() and isinstance(near, frozenset)
