import pytest

from sourcecheck.evidence import Evidence, format_sources, select_evidence
from sourcecheck.judge import Judge, parse_critique
from sourcecheck.library import Hit
from sourcecheck.llm.fake import FakeModel

# Raw scores, and the stance rule given here rather than read from calibration.json: contradicted iff
# at least 60 % of the claim's content words are in its evidence.
IDENTITY = {"a": 1.0, "b": 0.0, "stance": {"weights": {"overlap": 2.5}, "bias": -1.5}}


def ev(passage, page=1):
    return Evidence("d_1", "a.pdf", page, passage, passage, 0.5)


def test_p_yes_from_probabilities_and_the_prompt_puts_the_claim_after_the_sources():
    model = FakeModel()
    model.enqueue({"Yes": 0.8, "No": 0.2})
    judge = Judge(model, calibration=IDENTITY)
    assert judge.p_yes("The span is 1,280 m.", [ev("first"), ev("most relevant")]) == pytest.approx(0.8)
    prompt = model.history[0][1][-1]["content"]
    assert prompt.index("[1] first") < prompt.index("[2] most relevant") \
        < prompt.index("Claim: The span is 1,280 m.")


@pytest.mark.parametrize("text, p", [("Yes.", 1.0), ("no", 0.0), ("I think not", 0.0)])
def test_p_yes_falls_back_to_the_answer_without_logprobs(text, p):
    model = FakeModel()
    model.enqueue(text)
    assert Judge(model, calibration=IDENTITY).p_yes("claim here now", [ev("x")]) == p


def test_calibration_is_platt_scaling():
    judge = Judge(FakeModel(), calibration={"a": 2.0, "b": 0.0})
    assert judge.calibrate(0.5) == pytest.approx(0.5)
    assert judge.calibrate(0.75) == pytest.approx(0.9)  # odds 3 → 9


def test_supported_verdict_needs_no_critique():
    model = FakeModel()
    model.enqueue({"Yes": 0.9, "No": 0.1})
    evidence = [ev("other", 2), ev("best", 3)]
    v = Judge(model, calibration=IDENTITY).verdict("The span is long.", evidence)
    assert v["label"] == "supported" and v["error_type"] is None and v["revised"] is None
    assert "page 3" in v["critique"] and len(model.history) == 1
    assert [e.stance for e in evidence] == ["related", "supports"]


@pytest.mark.parametrize("claim, error_type, label, stance", [
    ("The main span is 2,000 meters long.", "entity", "contradicted", "refutes"),  # about what the page says
    ("The main span is not long.", "contradictory", "contradicted", "refutes"),
    ("Painters chose its colour in 1935.", "invented", "unsupported", "related"),  # mostly new to the page
    ("Tourists love walking there at night.", "unverifiable", "unsupported", "related")])
def test_unsupported_verdict_gets_critique_type_and_label(claim, error_type, label, stance):
    model = FakeModel()
    model.enqueue({"Yes": 0.2, "No": 0.8},
                  f"Critique: The source says 1,280 m.\nError type: {error_type}\nRevised: The span is 1,280 m.")
    evidence = [ev("The main span is 1,280 meters long.")]
    v = Judge(model, calibration=IDENTITY).verdict(claim, evidence)
    assert (v["label"], v["error_type"], v["revised"]) == (label, error_type, "The span is 1,280 m.")
    assert v["critique"] == "The source says 1,280 m." and v["p_supported"] == pytest.approx(0.2)
    assert evidence[0].stance == stance
    assert len(model.history) == 2  # one Yes/No pass, then the critique: the stance needs no model call


def test_the_stance_rule_comes_from_the_calibration():
    model = FakeModel()
    model.enqueue({"Yes": 0.2, "No": 0.8}, {"Yes": 0.2, "No": 0.8})
    always = {**IDENTITY, "stance": {"weights": {"overlap": 0.0}, "bias": 1.0}}
    assert Judge(model, calibration=always).score("Tourists love Lisbon.", [ev("x y z")])["label"] == "contradicted"
    never = {**IDENTITY, "stance": {"weights": {"overlap": 0.0}, "bias": -1.0}}
    evidence = [ev("The main span is 1,280 meters long.")]
    assert Judge(model, calibration=IDENTITY).contradicts({"overlap": 1.0})  # what "never" overrides
    assert Judge(model, calibration=never).score("The main span is short.", evidence)["label"] == "unsupported"


def test_overlap_counts_a_written_number_once_as_a_number():
    from sourcecheck.judge import signal_features

    evidence = [ev("To train FAVA we generated 35,074 training instances.")]
    f = signal_features("FAVA used 350,000 training instances.", evidence, 0.3)
    assert f["overlap"] == pytest.approx(3 / 4) and f["numbers_missing"] == 1.0  # fava, used, training, instances


def test_parse_critique_tolerates_formatting_and_rejects_non_revisions():
    got = parse_critique("**Critique:** Wrong year.\n**Error Type:** Entity\n**Revised:** none", "It was 1990.")
    assert got == {"critique": "Wrong year.", "error_type": "entity", "revised": None}
    got = parse_critique("Critique: x\nError type: banana\nRevised: The claim is not supported.", "c")
    assert got["error_type"] == "unverifiable" and got["revised"] is None
    assert parse_critique("", "c")["critique"] == "The sources do not support this."
    # The type must fit the label the scores gave: a contradicted claim gets one of the contradicting types.
    contradicting = {"entity", "relation", "contradictory"}
    assert parse_critique("Critique: x\nError type: invented", "c", contradicting)["error_type"] == "contradictory"
    assert parse_critique("Critique: x\nError type: relation", "c", contradicting)["error_type"] == "relation"


def test_decompose_multiplies_claim_probabilities():
    model = FakeModel()
    long = "The bridge opened in 1937 and its span of 1,280 meters was the longest in the world for 27 years."
    model.enqueue("1. The bridge opened in 1937.\n2. Its span is 1,280 meters.", {"Yes": 0.9, "No": 0.1},
                  {"Yes": 0.8, "No": 0.2})
    v = Judge(model, calibration=IDENTITY).verdict(long, [ev("x")], decompose=True)
    assert v["p_supported"] == pytest.approx(0.72)


def test_revise_text_uses_the_critiques():
    model = FakeModel()
    model.enqueue("The span is 1,280 m.")
    out = Judge(model, calibration=IDENTITY).revise_text("The span is 2,000 m.", [("The span is 2,000 m.", "1,280")])
    assert out == "The span is 1,280 m." and "1,280" in model.history[0][1][-1]["content"]


def test_select_evidence_reranks_drops_overlaps_and_puts_the_best_last():
    hits = [Hit("c1", "d", 1, 0, 100, "Bananas are yellow. Nothing else.", 0.9),
            Hit("c2", "d", 2, 0, 100, "Filler text. The main span is 1,280 meters long. More filler.", 0.5),
            Hit("c3", "d", 2, 50, 150, "The main span is 1,280 meters long. More filler.", 0.4)]
    chosen = select_evidence("The main span is 1,280 meters long.", hits, {"d": "b.pdf"}, k=5)
    assert [e.page for e in chosen] == [1, 2]  # c3 overlaps c2 and scores lower
    assert chosen[-1].quote == "The main span is 1,280 meters long." and chosen[-1].filename == "b.pdf"
    assert format_sources(chosen).endswith("[2] Filler text. The main span is 1,280 meters long. More filler.")


def test_signal_features_measure_what_the_evidence_lacks():
    from sourcecheck.judge import signal_features

    evidence = [ev("The Golden Gate Bridge opened on May 27, 1937 in San Francisco.")]
    f = signal_features("The Golden Gate Bridge opened in 1938 in Oakland.", evidence, 0.5)
    assert f["numbers_missing"] == 1.0 and f["names_missing"] == pytest.approx(0.25)
    assert f["overlap"] == pytest.approx(4 / 5) and f["logit_p"] == pytest.approx(0.0)
    f = signal_features("The bridge opened on May 27, 1937.", evidence, 0.5)
    assert (f["numbers_missing"], f["names_missing"], f["overlap"]) == (0.0, 0.0, 1.0)


def test_logistic_calibration_combines_the_signals():
    weights = {"logit_p": 1.0, "overlap": 0.0, "numbers_missing": -4.0, "names_missing": 0.0, "similarity": 0.0}
    model = FakeModel()
    model.enqueue({"Yes": 0.8, "No": 0.2}, "Critique: wrong year\nError type: entity\nRevised: none",
                  {"Yes": 0.8, "No": 0.2})
    judge = Judge(model, calibration={"weights": weights, "bias": 0.0})
    wrong = judge.verdict("It opened in 1938.", [ev("It opened in 1937.")])
    right = judge.verdict("It opened in 1937.", [ev("It opened in 1937.")])
    assert wrong["label"] == "contradicted" and wrong["p_supported"] < 0.1
    assert right["label"] == "supported" and right["p_supported"] == pytest.approx(0.8)


def test_evidence_block_appends_only_new_excerpts_and_starts_over_past_its_budget():
    from sourcecheck.evidence import EvidenceBlock

    block = EvidenceBlock(budget_words=12)
    a, b, c = ev("one two three four"), ev("five six seven eight"), ev("nine ten eleven twelve")
    assert [e.passage for e in block.add([a, b])] == [a.passage, b.passage]
    assert [e.passage for e in block.add([ev(b.passage), c])] == [a.passage, b.passage, c.passage]
    d = ev("thirteen fourteen")
    assert [e.passage for e in block.add([c, d])] == [c.passage, d.passage]  # 14 words > 12: a fresh block


def test_sources_text_points_at_the_best_excerpt_when_it_is_not_last():
    from sourcecheck.judge import sources_text

    a, b = ev("first passage"), ev("best passage")
    assert "most relevant" not in sources_text([a, b], [a, b])
    assert sources_text([b], [b, a]).endswith("(The excerpt most relevant to the claim is [1].)")
    assert sources_text([], None) == "(none found)"
