"""The conflict stage's word rules (conflict/phrases.py), through find_conflict as a check meets them: a negation on
one side only, a direction word against its opposite about the same thing, two direction words crossed over two
things, the two sides of a comparison swapped; and what is none of these."""

import pytest
from sourcecheck.conflict import find_conflict
from sourcecheck.evidence import Evidence
from sourcecheck.judging.cards import corrected

AMYLASE = "The fungal isolates had higher amylase activity when compared with the bacterial isolates."
GDS = "The GDS-15 and its two subscales had low sensitivity (25-42%), but high specificity (90-100%)."
RETRIEVAL = "FAVA is a retrieval-augmented model that detects fine-grained hallucinations."


def ev(passage, doc="d_1", name="a.pdf", page=2):
    return Evidence(doc, name, page, passage, passage, 0.5)


@pytest.mark.parametrize(
    "claim, source, values",
    [
        (
            "In food wastes, the bacterial isolates showed higher amylase activity than the fungal isolates.",
            AMYLASE,
            (
                "higher amylase activity than the fungal isolates",
                "higher amylase activity when compared with the bacterial isolates",
            ),
        ),
        (
            "The GDS-15 and its two subscales, by contrast, had high sensitivity but low specificity.",
            GDS,
            ("high sensitivity", "low sensitivity"),
        ),
    ],
)
def test_a_comparison_swapped_or_direction_words_paired_otherwise_are_conflicts_with_no_automatic_fix(
    claim, source, values
):
    found = find_conflict(claim, [ev(source)])
    assert (found.kind, found.claim_value, found.source_value) == ("direction",) + values
    assert corrected(claim, found) is None  # swapping one phrase in would not make the sentence true


@pytest.mark.parametrize(
    "claim, source",
    [
        ("In food wastes, the fungal isolates showed higher amylase activity than the bacterial ones.", AMYLASE),
        ("The GDS-15 had low sensitivity and high specificity.", GDS),
        (
            "Fungi had higher amylase activity than bacteria, while bacteria grew faster than fungi.",
            "Bacteria grew faster than fungi. The fungal isolates had higher amylase activity than bacteria.",
        ),
        # reworded true sentences a first version of these rules marked red (a reviewer's examples)
        (
            "Among enrolled patients, more than 50 had diabetes.",
            "Diabetes affected more than 50 of the enrolled patients.",
        ),
        (
            "Of all respondents, less than a third used the app daily.",
            "Daily app use was reported by less than a third of all respondents.",
        ),
        ("Group A had higher scores than group B.", "Group B had lower scores than group A."),
        (
            "Group B received more supervision than group A.",
            "Group A received more training and less supervision than group B.",
        ),
        (
            "Large models beat small models on the benchmark.",
            "Small models lagged behind large language models on the benchmark.",
        ),
        (
            "Fungi had higher amylase activity than bacteria, and bacteria had higher amylase activity than yeasts.",
            "Bacteria had higher amylase activity than yeasts, and fungi had higher amylase activity than bacteria.",
        ),
        (
            "The trial enrolled 1,250 patients.",
            "One thousand two hundred and fifty patients were enrolled in the trial.",
        ),
    ],
)
def test_the_same_comparison_and_pairing_are_no_conflict(claim, source):
    assert find_conflict(claim, [ev(source)]) is None


@pytest.mark.parametrize(
    "claim, source",
    [
        (
            "Among vaccinated participants there were no severe cases.",
            "Severe cases occurred in 12 unvaccinated participants and none among vaccinated participants.",
        ),
        (
            "The model did not improve accuracy on the held-out set.",
            "The model improved accuracy on the training set but not on the held-out set.",
        ),
        (
            "No participants withdrew because of adverse events.",
            "Participants withdrew for personal reasons; none withdrew because of adverse events.",
        ),
    ],
)
def test_two_negations_are_not_told_apart_by_words_so_they_are_no_conflict(claim, source):
    assert find_conflict(claim, [ev(source)]) is None


@pytest.mark.parametrize(
    "claim, source",
    [
        ("The drug did not reduce mortality in the trial.", "The drug reduced mortality in the trial by 20 percent."),
        (
            "The drug reduced mortality in the trial.",
            "The drug did not reduce mortality in the trial, but shortened hospital stays.",
        ),
        (
            "The drug did not reduce mortality in the trial.",  # a negation about something else does not hide it
            "The drug reduced mortality in the trial, without serious side effects.",
        ),
        (  # a premise: "requires" is what "does not assume" denies (issue 48)
            "The fluctuation test requires stationary regressors.",
            "The fluctuation test does not assume stationary regressors.",
        ),
        ("The estimator assumes homoskedastic errors.", "The estimator does not require homoskedastic errors."),
    ],
)
def test_a_negation_on_one_side_only_is_a_conflict(claim, source):
    assert find_conflict(claim, [ev(source)]).kind == "negation"


def test_nothing_negates_unless_it_affirms():
    """ "nothing" is one of the negation words (phrases.NEGATIONS, the one list), but "nothing but", "nothing short
    of", "nothing more than" say the thing holds."""
    source = "The Transformer uses attention layers in its encoder and decoder."
    for phrase in ("nothing but", "nothing more than", "nothing short of"):
        assert find_conflict(f"The Transformer uses {phrase} attention layers in its encoder.", [ev(source)]) is None
    found = find_conflict(
        "Nothing in the trial suggested liver damage in patients.",
        [ev("The trial suggested liver damage in patients.")],
    )
    assert found.kind == "negation" and found.claim_value == "nothing"
    # a source's "nothing but" does not hide the claim's negation; "nothing more" without "than" still negates
    claim = "The drug did not reduce mortality in the trial."
    found = find_conflict(claim, [ev("In the trial the drug did nothing but reduce mortality by 20 percent.")])
    assert found is not None and found.kind == "negation"
    other = find_conflict("The trial reported liver damage.", [ev("Nothing more was reported about liver damage.")])
    assert other is not None and other.kind == "negation"


def test_an_opposite_direction_next_to_a_sentence_stating_the_claims_is_about_something_else():
    claim = "An acute clinical response was more likely for incidents of gang involvement, with an odds ratio of 8.12."
    stated = "An acute clinical response was more likely for incidents of gang involvement (OR = 8.12), accidents. "
    other = "Acute response was less likely when juvenile conduct problems (OR = 0.61) were involved."
    assert find_conflict(claim, [ev(other)]).claim_value == "more"  # alone, it reads as the opposite
    assert find_conflict(claim, [ev(stated + other)]) is None
    assert find_conflict(claim, [ev(other), ev(stated)]) is None  # stated by another item


@pytest.mark.parametrize(
    "claim, source",
    [
        (
            RETRIEVAL,
            "Table 6 compares FAVA with and without retrieval augmentation on fine-grained hallucination data.",
        ),
        (RETRIEVAL, "We test FAVA with or without retrieval augmentation on fine-grained hallucination detection."),
        (RETRIEVAL, "We test FAVA with/without retrieval augmentation on fine-grained hallucination detection."),
        (RETRIEVAL, "We test FAVA without and with retrieval augmentation on fine-grained hallucination detection."),
        (
            RETRIEVAL,
            "We test FAVA with retrieval augmentation and without retrieval augmentation on fine-grained "
            "hallucination detection.",
        ),
        (RETRIEVAL, "FAVA detects fine-grained hallucinations whether or not retrieval augmentation is used."),
        (
            "FAVA detects fine-grained hallucinations with or without retrieval augmentation.",
            RETRIEVAL,
        ),
    ],
)
def test_a_phrase_that_states_both_ways_negates_nothing(claim, source):
    """Issue 36: "FAVA is a retrieval-augmented model" was red ("page 8 says the opposite") beside a page that
    compares FAVA "with and without retrieval": one of the two ways is what the sentence says."""
    assert find_conflict(claim, [ev(source)]) is None


@pytest.mark.parametrize(
    "claim, source",
    [
        (RETRIEVAL, "FAVA detects fine-grained hallucinations without retrieval augmentation."),
        (RETRIEVAL, "FAVA detects fine-grained hallucinations without retrieval augmentation, with or without tools."),
        ("FAVA detects fine-grained hallucinations without retrieval augmentation.", RETRIEVAL),
    ],
)
def test_a_plain_without_is_still_a_negation(claim, source):
    assert find_conflict(claim, [ev(source)]).kind == "negation"


BOATS = "Aerial counts are less accurate compared to the counts made from boats along the shore."


def test_a_comparison_made_from_its_other_side_is_no_conflict():
    """'A more X than B' where the source says 'B less X than A' is the same comparison (a true full-paper sentence
    was red for it); the comparison with its sides kept and the word turned stays a conflict."""
    assert (
        find_conflict("Counts made from boats are more accurate than aerial counts, the survey found.", [ev(BOATS)])
        is None
    )
    found = find_conflict(
        "Aerial counts are more accurate than the counts made from boats along the shore.", [ev(BOATS)]
    )
    assert (found.kind, found.claim_value, found.source_value) == ("direction", "more", "less")
    # the turn is the comparison's own: another direction word beside it still conflicts, and so does a negated one
    claim = "Counts made from boats are more accurate than aerial counts, and otter numbers increased over the decade."
    source = (
        "Aerial counts are less accurate than the counts made from boats, and otter numbers decreased in the decade."
    )
    found = find_conflict(claim, [ev(source)])
    assert (found.kind, found.claim_value, found.source_value) == ("direction", "increased", "decreased")
    negated = "Aerial counts are not less accurate compared to the counts made from boats along the shore."
    claim = "Counts made from boats are more accurate than aerial counts, the survey found."
    assert find_conflict(claim, [ev(negated)]) is not None
    # a negation of another use of the word is not the comparison's; a source with two opposites turns it all the same
    claim = "Not more than 50 surveys were made; counts made from boats are more accurate than aerial counts."
    assert find_conflict(claim, [ev(BOATS)]) is None
    claim = "Counts made from boats are more accurate than aerial counts, the survey found."
    fewer = "Aerial counts are less accurate compared to the counts made from boats, which found fewer otters."
    assert find_conflict(claim, [ev(fewer)]) is None


@pytest.mark.parametrize(
    "claim, source",
    [
        (  # issue 48: a true sentence was red for a negation said of another package in the same passage
            "The sandwich package provides HC and HAC covariance matrix estimators.",
            "The car package provides HC (but not HAC) covariance matrix estimators.",
        ),
        (
            "The sandwich package provides HC and HAC covariance matrix estimators.",
            "Other packages such as car provide HC (but not HAC) covariance matrix estimators, while sandwich provides"
            " both.",
        ),
        (  # both negate: a scope of one stem twice still negates (public dev, TofuEval)
            "The project is exceptional as substations usually do not go in such dense, populated areas.",
            "The site is adjacent, and substations usually don't go in such dense, densely populated areas.",
        ),
        (
            "The sandwich package does not provide HAC covariance matrix estimators.",
            "The car package provides HC and HAC covariance matrix estimators.",
        ),
        (  # a premise verb is only a verb, right before what is premised (review)
            "Quantile regression does not need to assume normally distributed errors.",
            "Least squares regression assumes normally distributed errors; quantile regression makes no such"
            " assumption.",
        ),
        ("The rank test does not need to assume normal errors.", "For normal errors the rank test requires no tuning."),
        ("The method does not require labelled data.", "We assume the method has labelled data available."),
    ],
)
def test_a_negation_said_of_another_subject_is_no_conflict(claim, source):
    assert find_conflict(claim, [ev(source)]) is None


def test_a_negation_said_of_the_same_subject_in_other_words_is_still_a_conflict():
    """The subjects are compared on four letters ("tumours", "tumors"), and what the two disagree on ("small",
    "large") is no other subject."""
    found = find_conflict(
        "Almost all of these tumours were small and caused no visual signs.",
        [ev("Almost all the tumors were large with visual signs caused by suprasellar extension.")],
    )
    assert found is not None and found.kind == "negation"
    found = find_conflict(  # a number is no subject; the two differ in words, not in one place (dev, chat-q37)
        "A community college study of 4,604 students found no significant difference in success between online and "
        "face-to-face students.",
        [
            ev(
                "The purpose of this study was to determine if significant differences existed in student success at "
                "the community college level between online and face-to-face courses."
            )
        ],
    )
    assert found is not None and found.kind == "negation"
    for claim, source in (  # an opening phrase is no subject; a subject may follow the negation (review)
        (
            "In the trial the drug did not reduce mortality in older patients.",
            "In older patients the drug reduced mortality.",
        ),
        (
            "In the trial, the drug did not reduce mortality in older patients.",
            "Overall, the drug reduced mortality in older patients.",
        ),
        (
            "According to the authors, the vaccine did not prevent infection in older adults.",
            "In this cohort the vaccine prevented infection in older adults.",
        ),
    ):
        found = find_conflict(claim, [ev(source)])
        assert found is not None and found.kind == "negation", claim
    same = "The sandwich package does not provide HAC covariance matrix estimators."
    found = find_conflict("The sandwich package provides HAC covariance matrix estimators.", [ev(same)])
    assert found is not None and found.kind == "negation"
