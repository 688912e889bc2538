"""The judge's single-pass scores with the real default GGUF: supported, contradicted and unsupported
are told apart without generating text, and the critique written afterwards fits the label."""

import pytest
from sourcecheck.check import score_sentence
from sourcecheck.config import load_settings
from sourcecheck.evidence import Evidence
from sourcecheck.judging.explaining import explain
from sourcecheck.judging.judge import Judge
from sourcecheck.llm import load_model

pytestmark = [pytest.mark.integration, pytest.mark.model]

PAGE = (
    "To train FAVA we generated a total of 35,074 training instances with GPT-4 and ChatGPT. "
    "The editor model was fine-tuned from Llama2-Chat 7B on the synthetic data."
)


def evidence():
    return [Evidence("d_1", "fava.pdf", 2, PAGE, PAGE, 0.8)]


def test_scores_tell_supported_contradicted_and_unsupported_apart(real_model_path):
    settings = load_settings({"MODELS_DIR": str(real_model_path.parent), "BACKEND": "llama_cpp"})
    judge = Judge(load_model(settings))
    right = score_sentence(judge, "FAVA was trained on 35,074 training instances.", evidence())
    wrong = score_sentence(judge, "FAVA was trained on 350,000 training instances.", evidence())
    invented = score_sentence(
        judge, "The FAVA authors also released a mobile app for checking news articles.", evidence()
    )
    assert right.label == "supported" and right.p_supported >= 0.5
    # red because the page gives another number for the same thing, and the card says which
    assert wrong.label == "contradicted" and wrong.p_supported < 0.5
    assert (wrong.conflict.claim_value, wrong.conflict.source_value) == ("350,000", "35,074")
    assert invented.label == "unsupported" and invented.p_supported < 0.5 and invented.conflict is None
    found = explain(judge, wrong)
    assert found["error_type"] == "entity" and "350,000" in found["critique"] and "35,074" in found["critique"]
    # the correction is scored against the page by the real model before it is shown
    assert found["revised"] == "FAVA was trained on 35,074 training instances."
    made_up = explain(judge, invented)
    assert made_up["error_type"] in {"invented", "unverifiable", "subjective"} and made_up["critique"]


def test_a_red_number_card_carries_a_verified_revision_or_says_why_none(real_model_path):
    """Issue 36: "restricted to 5 hours" was red beside page 3's "3 hours" with no revision and no word why (the
    corrected sentence was refused as unchanged, unread: a one-digit value is no content word)."""
    settings = load_settings({"MODELS_DIR": str(real_model_path.parent), "BACKEND": "llama_cpp"})
    judge = Judge(load_model(settings))
    page = "Human annotation. To limit fatigue, annotators were restricted to 3 hours a day."
    evidence = [Evidence("d_1", "fava.pdf", 3, page, page, 0.8)]
    claim = "Annotators were restricted to 5 hours a day."
    score = score_sentence(judge, claim, evidence)
    assert score.label == "contradicted" and (score.conflict.claim_value, score.conflict.source_value) == ("5", "3")
    card = explain(judge, score)
    verified = card["revised"] == "Annotators were restricted to 3 hours a day."
    reason = "No revision offered: the sentence with page 3's value (3) did not check out against your PDFs."
    assert verified != card["critique"].endswith(reason), card  # one or the other, never neither


def test_the_second_read_asks_of_each_item_alone_and_the_item_that_states_the_claim_reads_highest(real_model_path):
    """Issue 48: the real model's second read, claim against each of its three most relevant items on its own."""
    from sourcecheck.check import reread_sentence

    settings = load_settings({"MODELS_DIR": str(real_model_path.parent), "BACKEND": "llama_cpp"})
    model = load_model(settings)
    second = {"a": [0.5, 1.0], "b": 0.0, "bands": {"balanced": [0.3, 0.6]}}
    judge = Judge(model, calibration={"a": 1.0, "b": 0.0, "bands": {"balanced": [0.0, 1.0]}, "second": second})
    other = "The bridge's main span is 1,280 meters long and opened in 1937."
    setting = "Annotators were restricted to 3 hours a day to limit fatigue."
    items = [  # most relevant first: the page that states it is second, as a retrieval can rank it
        Evidence("d_2", "bridge.pdf", 1, other, other, 0.9),
        Evidence("d_1", "fava.pdf", 2, PAGE, PAGE, 0.8),
        Evidence("d_1", "fava.pdf", 3, setting, setting, 0.7),
        Evidence("d_2", "bridge.pdf", 2, other, other, 0.1),  # a fourth is not read alone
    ]
    first = score_sentence(judge, "FAVA was trained on 35,074 training instances.", items)
    assert first.label == "uncertain" and not first.alone  # the band covers everything: the first read is unsure
    again = reread_sentence(judge, first, judge.second_bands["balanced"])
    assert len(again.alone) == 3 and all(0 < p < 1 for p in again.alone)
    assert again.alone[1] > max(again.alone[0], again.alone[2]) + 0.3  # the page that states it, read alone
    assert again.p_supported == pytest.approx(judge.combine(first.p_raw, again.alone))
    assert again.label == "supported" and again.stances[1] == "supports"
