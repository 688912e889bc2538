"""The backend registry: a lazy factory per backend, what each can read, and the warm-up that reads ahead."""

import subprocess
import sys

import pytest
from sourcecheck.config import load_settings
from sourcecheck.errors import ModelError
from sourcecheck.llm import BACKENDS, load_model
from sourcecheck.llm.fake import FakeModel


def test_every_backend_has_a_lazy_factory():
    assert set(BACKENDS) == {"llama_cpp", "openai", "fake"}
    assert load_model(load_settings({"BACKEND": "fake"})).backend == "fake"
    model = load_model(load_settings({"BACKEND": "llama_cpp", "MODELS_DIR": "/nonexistent"}))
    assert model.backend == "llama_cpp" and not model.loaded() and not model.available()


def test_an_unknown_backend_is_a_config_error_that_lists_the_names():
    with pytest.raises(ModelError) as err:
        load_model(load_settings({"BACKEND": "gpt-5"}))
    assert err.value.code == "config_error"
    assert all(name in err.value.message for name in BACKENDS)


def test_importing_the_registry_loads_no_transport():
    code = (
        "import sys, sourcecheck.llm; "
        "print(sorted(m for m in ('llama_cpp', 'openai', 'sourcecheck.llm.llama_cpp', "
        "'sourcecheck.llm.openai_compat', 'sourcecheck.llm.fake') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_which_backends_can_read_a_state():
    from sourcecheck.llm.llama_cpp import LlamaCppModel
    from sourcecheck.llm.openai_compat import OpenAIModel

    assert FakeModel.reads_state and LlamaCppModel.reads_state and not OpenAIModel.reads_state


def test_a_warm_up_reads_the_verify_prompts_opening_ahead_where_the_backend_keeps_it():
    from sourcecheck.judging.judge import Judge

    class Keeping(FakeModel):  # stands in for llama.cpp, whose read_ahead the real-GGUF test covers
        def read_ahead(self, messages):
            self.history.append(("read_ahead", messages))

    plain = FakeModel()
    Judge(plain).warm_up()
    assert plain.history == []  # the fake, like a remote API, keeps no prefix: nothing read
    model = Keeping()
    judge = Judge(model)
    judge.warm_up()
    ((kind, sent),) = model.history
    check = judge.verify_messages("The bridge is orange.", [], [])
    opening = check[-1]["content"][: check[-1]["content"].index("(none found)")]
    assert kind == "read_ahead" and sent[0] == check[0] and sent[-1]["content"].startswith(opening)
