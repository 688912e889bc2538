"""The judge's single-pass scores with the real default GGUF: supported, contradicted and unsupported
are told apart without generating text, and the critique written afterwards fits the label."""

import pytest

from sourcecheck.config import load_settings
from sourcecheck.evidence import Evidence
from sourcecheck.judge import CONTRADICTING, Judge
from sourcecheck.llm import load_model

pytestmark = [pytest.mark.integration, pytest.mark.model]

PAGE = ("To train FAVA we generated a total of 35,074 training instances with GPT-4 and ChatGPT. "
        "The editor model was fine-tuned from Llama2-Chat 7B on the synthetic data.")


def evidence():
    return [Evidence("d_1", "fava.pdf", 2, PAGE, PAGE, 0.8)]


def test_scores_tell_supported_contradicted_and_unsupported_apart(real_model_path):
    settings = load_settings({"MODELS_DIR": str(real_model_path.parent), "BACKEND": "llama_cpp"})
    judge = Judge(load_model(settings))
    right = judge.score("FAVA was trained on 35,074 training instances.", evidence())
    # (3 of its 4 words are on the page, the number is not: about what the page says, so contradicted)
    wrong = judge.score("FAVA was trained on 350,000 training instances.", evidence())
    invented = judge.score("The FAVA authors also released a mobile app for checking news articles.", evidence())
    assert right["label"] == "supported" and right["p_supported"] >= 0.5
    assert wrong["label"] == "contradicted" and wrong["p_supported"] < 0.5
    assert invented["label"] == "unsupported" and invented["p_supported"] < 0.5
    found = judge.explain("FAVA was trained on 350,000 training instances.", evidence(), "contradicted")
    assert found["error_type"] in CONTRADICTING and found["critique"]
