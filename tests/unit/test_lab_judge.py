"""sourcecheck_eval.judge: the ways of asking the evaluation measures against what users get (what each prompt shows,
the swaps reading tries) and the hidden state read with each answer, through the product's seams."""

import pytest
from sourcecheck.check import CheckOptions, check_text, score_sentence
from sourcecheck.errors import ConfigError
from sourcecheck.evidence import Evidence
from sourcecheck.judging.judge import Judge
from sourcecheck.llm.fake import FakeModel
from sourcecheck_eval.aligned import ALIGNED_WORDS
from sourcecheck_eval.judge import LabAsking, lab_judge, signal_features
from support import TEXT, bridge_and_fava

RAW = {"a": 1.0, "b": 0.0}  # raw scores


@pytest.fixture
def library(fava_pdf, bridge_pdf):
    return bridge_and_fava(fava_pdf, bridge_pdf)


def ev(text, page=3):
    return Evidence("d_1", "paper.pdf", page, text, text, 0.5)


SOURCE = ev("The simulation used 10,000 replications and the HC3 estimator performed best in small samples.")


def prompts(model):
    return [m[-1]["content"] for kind, m in model.history if kind == "choose"]


def test_by_default_it_checks_exactly_as_the_product_does(library):
    events = {}
    for make in (Judge, lab_judge):
        model = FakeModel()
        got = list(check_text(TEXT, library, make(model, calibration=RAW)))
        events[make] = ([{k: v for k, v in e.items() if k != "elapsed_ms"} for e in got], model.history)
    assert events[Judge] == events[lab_judge]


def test_passages_shows_each_sentence_its_own_evidence_not_the_shared_block(library):
    text = "The bridge opened to traffic on May 27, 1937. Its main span is 1,280 meters long."
    model = FakeModel()
    list(check_text(text, library, Judge(model, calibration=RAW)))
    first = prompts(model)[0]
    shared = first[: first.index("Claim:")].strip()
    model = FakeModel()
    list(check_text(text, library, lab_judge(model, prompt_evidence="passages", calibration=RAW)))
    own = prompts(model)[1]
    assert own.count("[1]") == 1 and not own.startswith(shared)


def test_aligned_shows_only_the_sentences_that_bear_on_the_claim(library):
    model = FakeModel()
    text = "Its main span is 1,280 meters long."
    judge = lab_judge(model, prompt_evidence="aligned", calibration=RAW)
    events = list(check_text(text, library, judge, options=CheckOptions()))
    prompt = prompts(model)[0]
    sources = prompt[: prompt.index("Claim:")]
    assert "1,280" in sources and len(sources.split()) <= ALIGNED_WORDS + 40  # sentences, not whole passages
    passages = " ".join(e["quote"] for e in events[1]["evidence"])
    assert "1,280" in passages  # the card's evidence is the same as with whole passages


def test_each_passage_on_its_own_keeps_the_best_p_yes(library):
    """One prompt per evidence item, each with one excerpt; the sentence's raw score is the highest of them."""
    model = FakeModel()
    judge = lab_judge(model, prompt_evidence="each", calibration=RAW)
    answers, ask = [], judge.asking._ask
    judge.asking._ask = lambda *args: answers.append(ask(*args)) or answers[-1]
    scores = {}
    text = "The bridge opened to traffic on May 27, 1937."
    events = check_text(text, library, judge, options=CheckOptions(), scored=scores.__setitem__)
    verdict = next(e for e in events if e["type"] == "verdict")
    sent = prompts(model)
    assert len(sent) == len(answers) == len(verdict["evidence"]) > 1
    assert all(p.count("[1]") == 1 and "[2]" not in p for p in sent)
    assert len({p for p, _ in answers}) > 1  # the excerpts score differently, so max() has something to choose
    assert scores[verdict["index"]].p_raw == max(p for p, _ in answers)


def test_an_unknown_way_of_asking_is_refused():
    with pytest.raises(ConfigError) as err:
        lab_judge(FakeModel(), prompt_evidence="all")
    assert "shared, passages, aligned, each" in err.value.message
    with pytest.raises(ConfigError):
        lab_judge(FakeModel(), reading="words")


def test_with_names_a_missing_name_is_then_paired_with_a_name_of_its_shape():
    claim = "In 2019 the study ran 1,000 replications with the HC0 estimator, which did worse in small samples."
    judge, names = Judge(FakeModel()), lab_judge(FakeModel(), reading="names")
    assert [(s.kind, s.claim_value, s.source_value) for s in judge.swaps(claim, [SOURCE])] == [
        ("count", "1,000", "10,000")
    ]
    found = [(s.kind, s.claim_value, s.source_value) for s in names.swaps(claim, [SOURCE])]
    assert found == [("count", "1,000", "10,000"), ("name", "HC0", "HC3")]  # numbers first
    # a name the passages state is not swapped; a call only for a call, an acronym only for an acronym
    source = ev("HC3 and vcovHC() in the GLM.")
    found = {(s.claim_value, s.source_value) for s in names.swaps("HC3 and sandwich() ran in OLS.", [source])}
    assert found == {("sandwich()", "vcovHC()"), ("OLS", "GLM")}
    assert judge.swaps("HC3 and sandwich() ran in OLS.", [source]) == []  # the product swaps numbers only
    assert lab_judge(FakeModel(), reading="off").swaps(claim, [SOURCE]) == []


def test_without_reading_a_sentence_the_product_marks_red_stays_amber():
    claim = "Each of their runs took 1,000 replications."
    model = FakeModel()
    model.enqueue({"Yes": 0.05, "No": 0.95}, {"Yes": 0.95, "No": 0.05})
    assert (
        score_sentence(Judge(model), claim, [SOURCE]).label == "contradicted"
    )  # its swap read supported (test_reading.py)
    model = FakeModel()
    model.enqueue({"Yes": 0.05, "No": 0.95})
    score = score_sentence(lab_judge(model, reading="off"), claim, [SOURCE])
    assert score.label == "unsupported" and len(model.history) == 1


def state(judge, score):
    """The hidden state a LabAsking kept for a scored sentence (what the evaluation stores with it)."""
    return judge.asking.state_of.get(LabAsking.key(score.claim, score.evidence, score.shown))


def test_with_states_each_score_has_the_state_of_its_answer_also_from_the_cache():
    model = FakeModel()
    judge = lab_judge(model, states=True, calibration=RAW)
    claim = "The simulation used 10,000 replications."
    score = score_sentence(judge, claim, [SOURCE])
    assert state(judge, score).shape == (FakeModel.state_size,)
    _, _, expected = FakeModel().choose(judge.verify_messages(claim, [SOURCE], [SOURCE]), ("Yes", "No"), state=True)
    assert (state(judge, score) == expected).all()
    again = score_sentence(judge, claim, [SOURCE])
    assert len(model.history) == 1 and (state(judge, again) == expected).all()  # the raw score and its state cached
    plain = lab_judge(FakeModel(), calibration=RAW)
    assert state(plain, score_sentence(plain, claim, [SOURCE])) is None  # not asked: not read
    # a decomposed sentence's parts are answered each on its own: the whole sentence has no state of its own
    model = FakeModel()
    judge = lab_judge(model, states=True, calibration=RAW)
    long = "The simulation used 10,000 replications and the HC3 estimator was painted purple by robots in 1850."
    model.enqueue("The simulation used 10,000 replications.\nThe HC3 estimator was painted purple by robots.")
    score = score_sentence(judge, long, [SOURCE], decompose=True)
    part = "The HC3 estimator was painted purple by robots."
    _, _, expected = FakeModel().choose(judge.verify_messages(part, [SOURCE], [SOURCE]), ("Yes", "No"), state=True)
    assert score.p_raw < 0.5 and state(judge, score) is None
    assert (judge.asking.state_of[LabAsking.key(part, [SOURCE], [SOURCE])] == expected).all()


def test_signal_features_measure_what_the_evidence_lacks():
    evidence = [ev("The Golden Gate Bridge opened on May 27, 1937 in San Francisco.")]
    f = signal_features("The Golden Gate Bridge opened in 1938 in Oakland.", evidence, 0.5)
    assert f["numbers_missing"] == 1.0 and f["names_missing"] == pytest.approx(0.25)
    assert f["overlap"] == pytest.approx(4 / 5) and f["logit_p"] == pytest.approx(0.0)
    f = signal_features("The bridge opened on May 27, 1937.", evidence, 0.5)
    assert (f["numbers_missing"], f["names_missing"], f["overlap"]) == (0.0, 0.0, 1.0)
