"""citations.py: citation markers found, stripped for the models and put back into a revision."""

import pytest
from sourcecheck.text.citations import find_citations, find_name_pairs, keep_citations, strip_citations


def test_citations():
    found = find_citations("As Benton (2010) and (Mishra et al., 2024; Lee 2021) show, Smith and Jones (1999) agree.")
    assert [(c.author, c.year) for c in found] == [("Benton", 2010), ("Mishra", 2024), ("Lee", 2021), ("Smith", 1999)]
    sentence = "As Benton (2010) showed."
    c = find_citations(sentence)[0]
    assert sentence[c.start : c.end] == "Benton (2010)"


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


def test_a_citation_of_two_authors_names_the_second_and_names_compare_as_whole_words_without_accents():
    from sourcecheck.text.citations import is_author

    found = find_citations("As Zeileis and Kleiber (2002) show, HC is fine (Lee & O’Brien, 2019; Smith et al., 2020).")
    assert [(c.author, c.coauthor, c.year) for c in found] == [
        ("Zeileis", "Kleiber", 2002),
        ("Lee", "O’Brien", 2019),
        ("Smith", None, 2020),
    ]
    assert is_author("Hothorn", ["Torsten Hothorn"]) and not is_author("Hothorn", ["Lena Hothornson"])
    assert is_author("Muller", ["Anna Müller"]) and is_author("Mueller", ["Anna Müller"])
    assert is_author("O’Brien", ["Mary O'Brien"]) and is_author("Waals", ["Johannes van der Waals"])
    assert not is_author("Kleiber", []) and is_author("Smith-Jones", ["Ann Smith-Jones"])
    assert is_author("Ostergaard", ["Søren Østergaard"]) and is_author("Michalowski", ["Jan Michałowski"])


def test_name_pairs_are_two_capitalised_words_joined_by_and_outside_author_year_markers():
    found = find_name_pairs(
        "Zeileis & Hothorn's package (Zeileis and Hothorn, 2002) and Lumley and Zeileis (2004) agree."
    )
    assert [(c.text, c.author, c.coauthor, c.year) for c in found] == [("Zeileis & Hothorn's", "Zeileis", "Hothorn", 0)]
    assert [c.coauthor for c in find_name_pairs("The package by Zeileis and Hothorn.")] == ["Hothorn"]
    assert find_name_pairs("zeileis and hothorn wrote it, as did A and B.") == []


def test_a_name_pair_is_credited_with_something_and_ends_where_its_letters_end():
    pairs = {
        "The paper by Mishra and Muñoz shows it.": [("Mishra", "Muñoz")],
        "As Zeileis and O'Brien's paper shows.": [("Zeileis", "O'Brien")],
        "Zeileis and Hothorn propose a test.": [("Zeileis", "Hothorn")],
        "Between May and June 1937 it rose.": [],  # nothing credited
        "A benchmark by Mishra and GPT-4.": [],  # no name
        "Box and Cox transformation of the data.": [],
        "The paper by Abhika Mishra and Akari Asai.": [],  # full names
        "Work by Wang, Mishra and Kleiber.": [],  # a list
    }
    for sentence, want in pairs.items():
        assert [(c.author, c.coauthor) for c in find_name_pairs(sentence)] == want, sentence
