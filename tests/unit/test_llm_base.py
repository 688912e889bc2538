"""llm/base.py: the one interface every backend implements, its defaults, and normalise()."""

import ast
from pathlib import Path

import pytest
import sourcecheck.llm
from sourcecheck.llm.base import Model, normalise

LLM = Path(sourcecheck.llm.__file__).parent


class Echo(Model):
    """The least a backend must write: choose() and complete(); the rest is the interface's defaults."""

    backend, name = "echo", "parrot-1"

    def choose(self, messages, choices, state=False):
        return None, choices[0], None

    def complete(self, messages, max_tokens=200):
        return messages[-1]["content"]


def test_the_interface_does_not_import_its_implementations():
    tree = ast.parse((LLM / "base.py").read_text())
    names = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    names += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [n for n in names if n and n.startswith("sourcecheck.llm")]


def test_a_backend_must_answer_choose_and_complete():
    with pytest.raises(TypeError):
        Model()

    class OnlyChoose(Model):
        def choose(self, messages, choices, state=False):
            return None, "Yes", None

    with pytest.raises(TypeError):
        OnlyChoose()


def test_the_defaults_a_backend_inherits():
    model = Echo()
    assert (model.reads_state, model.concurrent, model.profile) == (False, 1, "verify")
    assert model.loaded() and model.available()
    assert model.prepare() is None and model.read_ahead([{"role": "user", "content": "x"}]) is None
    assert model.judge_id() == "echo:parrot-1"
    assert model.info() == {"backend": "echo", "name": "parrot-1", "loaded": True, "available": True}


def test_info_reports_what_the_backend_says_of_itself():
    class Missing(Echo):
        def loaded(self):
            return False

        def available(self):
            return False

    assert Missing().info() == {"backend": "echo", "name": "parrot-1", "loaded": False, "available": False}


@pytest.mark.parametrize("text, tokens", [("", 1), ("abc", 1), ("abcd", 2), ("x" * 400, 101)])
def test_without_a_tokenizer_tokens_are_estimated_at_four_characters_each(text, tokens):
    assert Echo().count_tokens(text) == tokens


def test_normalise_scales_scores_to_sum_to_one():
    assert normalise({"Yes": 0.3, "No": 0.1}) == pytest.approx({"Yes": 0.75, "No": 0.25})
    assert normalise({"Yes": 2.0, "No": 0.0}) == {"Yes": 1.0, "No": 0.0}


def test_normalise_makes_all_zero_scores_uniform():
    assert normalise({"Yes": 0.0, "No": 0.0, "Maybe": 0.0}) == pytest.approx(
        {"Yes": 1 / 3, "No": 1 / 3, "Maybe": 1 / 3}
    )
