"""The conflict finder: red only where a number, year, negation or direction differs from the source sentence
about the same thing; rounding, merging and shared words are not conflicts."""

import pytest
from sourcecheck.conflict import find_conflict, find_conflicts
from sourcecheck.conflict.quantities import find_numbers
from sourcecheck.evidence import Evidence
from sourcecheck.judging.cards import corrected, describe

FAVA = (
    "Training data. We generated a total of 35,074 training instances by inserting synthetic errors into "
    "Wikipedia passages. The editor model is based on Llama2-Chat 7B and was fine-tuned for three epochs."
)
RESULTS = (
    "Results. FAVA improves detection F1 by 23.5 points over ChatGPT on our benchmark. Retrieval of the "
    "top five documents, followed by reranking, gives the best results."
)
BRIDGE = "The Golden Gate Bridge opened to traffic on May 27, 1937. Its main span is 1,280 meters long."


def ev(passage, doc="d_1", name="a.pdf", page=2):
    return Evidence(doc, name, page, passage, passage, 0.5)


@pytest.mark.parametrize(
    "claim, expected",
    [
        ("FAVA was trained on 350,000 training instances.", ("number", "350,000", "35,074")),
        ("The editor was fine-tuned for five epochs.", ("number", "five", "three")),  # "five" elsewhere is documents
        ("FAVA improves detection F1 by 25 points over ChatGPT.", ("number", "25", "23.5")),
        ("FAVA worsens detection F1 by 23.5 points over ChatGPT.", ("direction", "worsens", "improves")),
        ("FAVA does not improve detection F1 over ChatGPT.", ("negation", "not", "(no negation)")),
        ("The Golden Gate Bridge opened in 1938.", ("year", "1938", "1937")),
        ("Its main span is 2,000 meters long.", ("number", "2,000", "1,280")),
        ("The editor model is based on Llama2-Chat 13B.", ("number", "13B", "7B")),  # a model's size
    ],
)
def test_a_value_the_source_states_otherwise_is_a_conflict(claim, expected):
    found = find_conflict(claim, [ev(RESULTS), ev(FAVA), ev(BRIDGE)])
    assert (found.kind, found.claim_value, found.source_value) == expected


@pytest.mark.parametrize(
    "claim",
    [
        "FAVA was trained on about 35,000 training instances.",  # honest rounding
        "FAVA was trained on 35k training instances.",
        "The editor was fine-tuned for three epochs.",
        "Retrieving the top five documents and reranking them gives the best results.",
        "Its main span is roughly 1,300 meters long.",
        "The Golden Gate Bridge opened in 1937 and its main span is 1,280 meters long.",  # merged from two sentences
        "The authors also released a mobile app called FactLens.",  # invented: unsupported, not a conflict
        "The editor model is based on Llama2-Chat 7B.",  # "2" inside a name is no value
        "FAVA's training instances were made by inserting errors into Wikipedia passages, a costly process.",
    ],
)
def test_no_conflict_where_the_source_does_not_state_otherwise(claim):
    assert find_conflict(claim, [ev(RESULTS), ev(FAVA), ev(BRIDGE)]) is None


@pytest.mark.parametrize(
    "claim, source",
    [
        ("The app has two million active users.", "The app has 2 million active users."),  # a scale word
        ("Three hundred patients were enrolled in the trial.", "300 patients were enrolled in the trial."),
        ("Patients improved within two weeks of enrolment.", "Patients improved within 14 days of enrolment."),
        (
            "In order to treat older patients with sleep problems, melatonin was used.",
            "Melatonin was used to treat older patients with sleep disorder.",
        ),  # order / disorder are no opposites
        ("The tower is 5 m tall and made of steel.", "The tower is 5 metres tall and made of steel."),
        # the hundreds belong to the word number (read as 28, this was a red mark on a true sentence)
        (
            "An autopsy study examined 128 cervical discs from 30 subjects.",
            "One hundred and twenty-eight cervical discs obtained from 30 autopsied subjects were examined.",
        ),
    ],
)
def test_the_same_fact_written_another_way_is_no_conflict(claim, source):
    assert find_conflict(claim, [ev(source)]) is None


@pytest.mark.parametrize(
    "claim, source, expected",
    [
        (
            "Stock and Watson analysed 76 quarterly macroeconomic time series.",
            "Stock and Watson (1996) analyse 76 monthly U.S. macroeconomic time series.",
            ("direction", "quarterly", "monthly"),
        ),
        (
            "The survey of otters ran weekly along the coast.",
            "The survey of otters ran monthly along the coast.",
            ("direction", "weekly", "monthly"),
        ),
        (
            "The test fits a multivariate regression of the residuals.",
            "The test fits a univariate regression of the residuals.",
            ("direction", "multivariate", "univariate"),
        ),
    ],
)
def test_one_value_of_a_closed_set_where_the_source_has_another_is_a_conflict(claim, source, expected):
    found = find_conflict(claim, [ev(source)])
    assert found and (found.kind, found.claim_value, found.source_value) == expected
    assert corrected(claim, found) == claim.replace(expected[1], expected[2])


@pytest.mark.parametrize(
    "claim, source",
    [
        ("The index is updated daily.", "The index is updated daily and archived weekly."),  # both: no conflict
        ("Patients improved within two weeks of enrolment.", "Patients improved within 14 days of enrolment."),
        ("The model is trained daily on new data.", "Results are reported weekly in a newsletter about it."),
        ("The survey of otters ran semi-annual counts.", "The survey of otters ran monthly counts."),  # a compound
        ("The survey of otters ran bi-weekly counts.", "The survey of otters ran weekly counts."),
        ("The model is a non-linear regression of the counts.", "The model is a nonlinear regression of the counts."),
        ("The model is self-supervised on the counts.", "The model is unsupervised on the counts."),
    ],
)
def test_values_of_a_closed_set_said_of_different_things_are_no_conflict(claim, source):
    assert find_conflict(claim, [ev(source)]) is None


def test_a_correction_replaces_the_whole_word_only():
    claim = "Furthermore, the treated group showed more relapses than controls."
    found = find_conflict(claim, [ev("The treated group showed fewer relapses than controls.")])
    assert corrected(claim, found) == "Furthermore, the treated group showed fewer relapses than controls."


GDS = "The GDS-15 and its two subscales had low sensitivity (25-42%), but high specificity (90-100%)."


def test_a_word_number_with_hundreds_is_one_value_and_the_card_quotes_it_whole():
    found = find_conflict(
        "An autopsy study examined 138 cervical discs.",
        [ev("One hundred and twenty-eight cervical discs obtained from autopsies were examined.")],
    )
    assert (found.claim_value, found.source_value) == ("138", "One hundred and twenty-eight")
    assert corrected("An autopsy study examined 138 cervical discs.", found) == (
        "An autopsy study examined one hundred and twenty-eight cervical discs."
    )
    assert [(n.text, n.value) for n in find_numbers("two hundred twelve people")] == [("two hundred twelve", 212.0)]


def test_the_card_text_and_the_correction_come_from_the_data():
    claim = "FAVA was trained on 350,000 training instances."
    found = find_conflict(claim, [ev(FAVA)])
    assert describe(found, "fava.pdf", 2) == (
        "The sentence says 350,000; fava.pdf, page 2 says 35,074: “We generated "
        "a total of 35,074 training instances by inserting synthetic errors "
        "into Wikipedia passages.”"
    )
    assert corrected(claim, found) == "FAVA was trained on 35,074 training instances."


def test_documents_that_disagree_are_found_and_shown_both():
    evidence = [
        ev("Another count found 34,000 training instances for FAVA.", "d_2", "b.pdf", 3),
        ev("FAVA used 35,074 training instances."),
    ]
    conflict, disagreement = find_conflicts("FAVA was trained on 35,074 training instances.", evidence)
    assert conflict is None and disagreement.kind == "disagreement"
    assert (disagreement.agrees, disagreement.evidence, disagreement.source_value) == (1, 0, "34,000")
    assert describe(disagreement, "b.pdf", 3, ("a.pdf", 2)).startswith(
        "Your sources disagree: a.pdf, page 2 says 35,074"
    )
    # one document with two values is no disagreement between documents
    assert (
        find_conflicts(
            "FAVA was trained on 35,074 training instances.",
            [ev("Another count found 34,000 training instances for FAVA."), ev("FAVA used 35,074 training instances.")],
        )[1]
        is None
    )


def test_a_unit_is_the_first_word_after_the_numbers_and_different_units_need_more_in_common():
    (rate, _) = find_numbers("peat subsides at a rate of 3.8 ± 1.2 cm per year")[:2]
    assert rate.after == "cm"
    # "108 adenomas followed" and "5 other adenomas ... follow-up" share two words around them, not a unit
    source = (
        "Of them 10 were null cell adenomas and 5 other mixed adenomas,the follow-up ranged from 30 to 60 "
        "months, and 36 cases recurred."
    )  # one sentence, as a PDF without spaces after its commas gives it
    assert (
        find_conflict(
            "In a series of 108 pituitary adenomas followed for 30 to 60 months, 36 cases recurred.", [ev(source)]
        )
        is None
    )
    assert (
        find_conflict(
            "Spinal disorders of the cervical tract were found in 49.7% of the operators.",
            [ev("The prevalence of spinal disorders was 39.7% for the cervical tract.")],
        ).source_value
        == "39.7%"
    )


def test_a_value_another_passage_of_the_same_paper_states_for_the_same_thing_is_no_conflict():
    claim = "A related study across 34 community and technical colleges found robust negative effects."
    shown = [
        ev(
            "Using nearly 500,000 courses taken by over 40,000 community and technical college students, "
            "this study examines the performance gap."
        )
    ]
    assert find_conflict(claim, shown).source_value == "40,000"
    same_paper = (
        "d_1",
        "Using a large dataset from a statewide system including 34 community and technical "
        "colleges, this study estimated the effect.",
    )
    assert find_conflicts(claim, shown, [same_paper]) == (None, None)
    assert find_conflict(claim, shown) is not None  # another paper's 34 excuses nothing:
    assert find_conflicts(claim, shown, [("d_2", same_paper[1])])[0].source_value == "40,000"


@pytest.mark.parametrize(
    "claim, source, other",
    [
        (
            "The Smith trial enrolled 340 patients.",
            "The Smith trial enrolled 210 patients.",
            "The Jones trial enrolled 340 patients.",
        ),
        (
            "From soil, 12 isolates were confirmed as amylase producers.",
            "The results confirmed eight (8) isolates of amylase-producing bacteria.",
            "In total 12 soil samples were collected from farms in Gombe.",
        ),
        ("In the trial 12% of patients died.", "In the trial 8% of patients died.", "In the trial 12 patients died."),
    ],
)
def test_a_value_elsewhere_for_another_thing_or_of_another_kind_keeps_the_conflict(claim, source, other):
    assert find_conflicts(claim, [ev(source)], [("d_1" if "Jones" not in other else "d_2", other)])[0] is not None


@pytest.mark.parametrize(
    "claim, source, revised",
    [
        ("Each run took 5ms on a GPU.", "Each run took 3 ms on a GPU.", "Each run took 3ms on a GPU."),
        ("Each run took 5 ms on a GPU.", "Each run took 3ms on a GPU.", "Each run took 3 ms on a GPU."),
        ("Sessions were restricted to 5 hours.", "Sessions were restricted to 3 hours.", None),  # a unit apart
    ],
)
def test_a_correction_keeps_the_unit_as_the_sentence_writes_it(claim, source, revised):
    """Before, "5ms" for the source's "3 ms" became "3" (the unit lost), "5 ms" for "3ms" became "3ms ms"."""
    found = find_conflict(claim, [ev(source)])
    assert found is not None and corrected(claim, found) == (revised or source)


def test_a_name_is_found_in_a_passage_word_by_word():
    """What a second read may not clear (check.reread_sentence): a name no passage has, split into words as the
    passage is ("Kaplan-Meier", "Cox's", "GPT-4" were never found, so such sentences could never be cleared)."""
    from sourcecheck.conflict import unnamed
    from sourcecheck.evidence import Evidence

    def item(text):
        return Evidence("d1", "a.pdf", 1, text, text, 0.5)

    for claim in ("Survival was estimated with the Kaplan-Meier method.", "It uses Cox's proportional hazards model."):
        assert unnamed(claim, [item(claim)])[1] == set(), claim
    named, missing = unnamed(
        "The test was run by Zeileis and Hothorn in 2002.", [item("Zeileis ran the test in 2002.")]
    )
    assert named == {"zeileis", "hothorn"} and missing == {"hothorn"}
