import math

import pytest
from sourcecheck.check import score_sentence
from sourcecheck.evidence import Evidence, format_sources, prompt_order, select_evidence
from sourcecheck.judging.cards import parse_critique
from sourcecheck.judging.explaining import explain
from sourcecheck.judging.judge import Judge
from sourcecheck.library.search import Hit
from sourcecheck.llm.fake import FakeModel

IDENTITY = {"a": 1.0, "b": 0.0}  # raw scores


def ev(passage, page=1):
    return Evidence("d_1", "a.pdf", page, passage, passage, 0.5)


def verdict(judge, claim, evidence, decompose=False):
    """score_sentence(), explain(): a sentence's label, p_supported and card, as a check's last verdict has them."""
    score = score_sentence(judge, claim, evidence, decompose=decompose)
    return {"label": score.label, "p_supported": score.p_supported, **explain(judge, score)}


def test_p_yes_from_probabilities_and_the_prompt_puts_the_claim_after_the_sources():
    model = FakeModel()
    model.enqueue({"Yes": 0.8, "No": 0.2})
    judge = Judge(model, calibration=IDENTITY)
    shown = [ev("first"), ev("most relevant")]
    assert judge.p_yes("The span is 1,280 m.", shown, shown) == pytest.approx(0.8)
    prompt = model.history[0][1][-1]["content"]
    assert prompt.index("[1] first") < prompt.index("[2] most relevant") < prompt.index("Claim: The span is 1,280 m.")


@pytest.mark.parametrize("text, p", [("Yes.", 1.0), ("no", 0.0), ("I think not", 0.0)])
def test_p_yes_falls_back_to_the_answer_without_logprobs(text, p):
    model = FakeModel()
    model.enqueue(text)
    assert Judge(model, calibration=IDENTITY).p_yes("claim here now", [ev("x")], [ev("x")]) == p


def test_calibration_is_platt_scaling():
    judge = Judge(FakeModel(), calibration={"a": 2.0, "b": 0.0})
    assert judge.calibrate(0.5) == pytest.approx(0.5)
    assert judge.calibrate(0.75) == pytest.approx(0.9)  # odds 3 → 9


def test_a_critique_that_restates_the_sentence_as_what_the_excerpts_state_is_not_shown_as_not_supported():
    """Issue 36: under "Not supported", "The excerpts state that <the sentence>" says the opposite of its label. The
    label stands (it comes from the scores, measured; a critique is written text, not measured); the card says the
    neutral NOT_FOUND instead."""
    from sourcecheck.judging.cards import NOT_FOUND

    claim = "Factored Verification checks each sentence of a summary against the papers it cites."
    page = "Factored Verification checks every claim of a model-written summary against the cited papers."
    written = {
        "The excerpts state that Factored Verification checks each sentence of a summary against the cited papers.": (
            NOT_FOUND
        ),
        "The excerpts confirm that Factored Verification checks each sentence of a summary against its papers.": (
            NOT_FOUND
        ),
        "The passage supports the claim.": NOT_FOUND,
        # a correction in the same form, or one that names what is missing, is shown as written
        "The excerpts state that Factored Verification checks each claim, not each sentence.": None,
        "The excerpts state that Factored Verification checks each sentence of a summary against the papers it "
        "cites, but they say nothing about GPT-4.": None,
        "The excerpts state that Factored Verification checks each sentence of a summary against a knowledge "
        "base built from Wikipedia pages.": None,
        "The excerpts state that Factored Verification checks each paragraph of a summary against its papers.": None,
        "The excerpts state that ChatGPT checks each sentence of a summary against the papers it cites.": None,
    }
    for critique, shown in written.items():
        model = FakeModel()
        model.enqueue({"Yes": 0.2, "No": 0.8}, f"Critique: {critique}\nError type: unverifiable\nRevised: none")
        v = verdict(Judge(model, calibration=IDENTITY), claim, [ev(page)])
        assert (v["label"], v["critique"]) == ("unsupported", shown or critique), critique


@pytest.mark.parametrize(
    "critique, sound",
    [
        (
            "The excerpt states the span was painted in 1935, but the claim is about its length.",
            False,
        ),  # 1935: the claim's
        ("The excerpts say the span is 1,280 meters, but the sentence says it was painted in 1935.", True),
        ("The source lists 7 types.", False),  # a number the source does not give
        ("The excerpts do not mention 1935 or any painting.", True),  # a denial states nothing
        ("The excerpt mentions Morrow as the painter.", False),  # the claim's name, not in the source
        ("According to the excerpts, Morrow painted it in 1935.", False),  # attributed without a verb after "excerpts"
        ("The paper has Morrow as its painter.", False),
        ("Nothing in the excerpts says who painted it or when.", True),  # "nothing" denies too
        ("None of the excerpts mention 1935.", True),
        # "without", "fails", "lacks" negate a verb's content, not the sources: the clause is still checked
        ("The excerpts state that Morrow painted it without help in 1935.", False),
        ("The excerpts report that Morrow fails to mention 1935.", False),
        ("The excerpts state that the 1935 painting was nothing short of a record.", False),  # affirms, denies nothing
    ],
)
def test_a_critique_that_puts_the_sentences_own_facts_in_the_sources_mouth_is_refused(critique, sound):
    from sourcecheck.judging.cards import NOT_FOUND, critique_is_sound

    claim = "Morrow painted the span in 1935."
    evidence = [ev("The main span is 1,280 meters long.")]
    assert critique_is_sound(critique, claim, evidence) is sound
    model = FakeModel()
    model.enqueue({"Yes": 0.2, "No": 0.8}, f"Critique: {critique}\nError type: invented\nRevised: none")
    v = verdict(Judge(model, calibration=IDENTITY), claim, evidence)
    assert v["critique"] == (critique if sound else NOT_FOUND)


def test_overlap_counts_a_written_number_once_as_a_number():
    from sourcecheck_eval.judge import signal_features

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
    model.enqueue(
        "1. The bridge opened in 1937.\n2. Its span is 1,280 meters.", {"Yes": 0.9, "No": 0.1}, {"Yes": 0.8, "No": 0.2}
    )
    v = verdict(Judge(model, calibration=IDENTITY), long, [ev("x")], decompose=True)
    assert v["p_supported"] == pytest.approx(0.72)


def test_select_evidence_reranks_drops_overlaps_puts_the_best_first_and_the_prompt_shows_it_last():
    hits = [
        Hit("c1", "d", 1, 0, 100, "Bananas are yellow. Nothing else.", 0.9),
        Hit("c2", "d", 2, 0, 100, "Filler text. The main span is 1,280 meters long. More filler.", 0.5),
        Hit("c3", "d", 2, 50, 150, "The main span is 1,280 meters long. More filler.", 0.4),
    ]
    chosen = select_evidence("The main span is 1,280 meters long.", hits, {"d": "b.pdf"}, k=5)
    assert [e.page for e in chosen] == [2, 1]  # c3 overlaps c2 and scores lower
    assert chosen[0].quote == "The main span is 1,280 meters long." and chosen[0].filename == "b.pdf"
    assert format_sources(prompt_order(chosen)).endswith(
        "[2] Filler text. The main span is 1,280 meters long. More filler."
    )


def test_evidence_block_appends_only_new_excerpts_and_starts_over_past_its_budget():
    from sourcecheck.evidence import EvidenceBlock

    block = EvidenceBlock(budget_words=12)
    a, b, c = ev("one two three four"), ev("five six seven eight"), ev("nine ten eleven twelve")
    # evidence comes most relevant first; the block shows each sentence's most relevant nearest its claim
    assert [e.passage for e in block.add([b, a])] == [a.passage, b.passage]
    assert [e.passage for e in block.add([c, ev(b.passage)])] == [a.passage, b.passage, c.passage]
    d = ev("thirteen fourteen")
    assert [e.passage for e in block.add([d, c])] == [c.passage, d.passage]  # 14 words > 12: a fresh block


def test_a_sentences_prompt_adds_its_items_and_a_critique_shows_the_block_that_holds_them():
    from sourcecheck.evidence import EvidenceBlock

    first = [ev(f"first passage {i}") for i in range(5)]  # most relevant first
    judge, block = Judge(FakeModel(), calibration=IDENTITY), EvidenceBlock()
    shown = judge.show("claim one", first, block)
    assert shown == first[::-1]  # all (TOP_K), the most relevant nearest the claim
    second = [ev(f"second passage {i}") for i in range(5)]
    later = judge.show("claim two", second, block)
    assert later[:5] == shown and later[5:] == second[::-1]  # one growing prefix
    assert block.shown_for(shown) == later  # the first sentence's critique reads the block already cached
    assert block.shown_for([ev("a passage the block lost")]) == [ev("a passage the block lost")]


def test_an_unknown_sensitivity_setting_is_a_clear_config_error():
    from sourcecheck.errors import ConfigError

    with pytest.raises(ConfigError) as err:
        Judge(FakeModel(), sensitivity="Strict")
    assert err.value.code == "config_error" and "relaxed, balanced, strict" in err.value.message


def test_a_critique_names_the_excerpts_it_points_at_by_file_and_page():
    from sourcecheck.judging.cards import name_excerpts

    block = [ev("The main span is 1,280 meters long."), ev("The bridge opened in 1937.")]
    assert (
        name_excerpts("Excerpt [2] says it opened in 1937, not [7].", block)
        == "Excerpt a.pdf, page 1 says it opened in 1937, not an excerpt."
    )


def test_the_second_read_asks_of_each_of_the_three_most_relevant_items_alone_once_and_combines_on_its_scale():
    model = FakeModel()
    model.enqueue({"Yes": 0.2, "No": 0.8}, {"Yes": 0.9, "No": 0.1}, {"Yes": 0.4, "No": 0.6})
    second = {"a": [0.5, 2.0], "b": -1.0, "bands": {"balanced": [0.2, 0.5]}}
    judge = Judge(model, calibration={**IDENTITY, "bands": {"balanced": [0.3, 0.6]}, "second": second})
    items = [ev("most relevant"), ev("second"), ev("third"), ev("least")]  # most relevant first
    assert judge.alone("A claim.", items) == pytest.approx([0.2, 0.9, 0.4])
    prompts = [m[-1]["content"] for _, m in model.history]
    assert ["[1] most relevant", "[1] second", "[1] third"] == [
        p[p.index("[1]") : p.index("\n", p.index("[1]"))] for p in prompts
    ]
    assert judge.alone("A claim.", items) == pytest.approx([0.2, 0.9, 0.4]) and len(model.history) == 3  # cached
    # σ(0.5 · logit 0.3 + 2 · logit 0.9 − 1)
    assert judge.combine(0.3, [0.2, 0.9, 0.4]) == pytest.approx(
        1 / (1 + math.exp(-(0.5 * math.log(0.3 / 0.7) + 2 * math.log(9) - 1)))
    )
    assert judge.second_bands["balanced"] == (0.2, 0.5) and judge.rereads_any
    # read again: a sentence the first read grades uncertain; never a red one, nor a settled one
    assert (
        judge.rereads(0.45, "uncertain")
        and not judge.rereads(0.45, "contradicted")
        and not judge.rereads(0.7, "supported")
    )
    # without a second scale: no second read, and both reads' P is the first's
    plain = Judge(FakeModel(), calibration={"a": 2.0, "b": 0.0})
    assert not plain.rereads(0.45, "uncertain") and not plain.rereads_any
    assert plain.combine(0.6, [0.99]) == pytest.approx(plain.calibrate(0.6))
