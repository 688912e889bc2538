"""Model transports behind one small interface (base.Model), found by backend name in BACKENDS."""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sourcecheck.errors import ConfigError, ModelError
from sourcecheck.llm import catalog
from sourcecheck.llm.base import Model


def _llama_cpp(settings: Mapping[str, Any]) -> Model:
    from sourcecheck.llm.llama_cpp import LlamaCppModel

    entry = catalog.find(settings["MODEL"])
    if entry and entry["runs"] != "llama_cpp":
        raise ConfigError(
            f"{entry['name']} is served by {entry.get('server', 'an OpenAI-compatible server')}, not run "
            f"by llama.cpp: set SOURCECHECK_BACKEND=openai and SOURCECHECK_OPENAI_BASE_URL "
            f"(http://127.0.0.1:11434/v1 for Ollama)."
        )
    path = catalog.resolve_model_path(settings["MODEL"], Path(settings["MODELS_DIR"]))
    return LlamaCppModel(path, n_ctx=settings["N_CTX"], n_threads=settings["N_THREADS"])


def _openai(settings: Mapping[str, Any]) -> Model:
    from sourcecheck.llm.openai_compat import OpenAIModel

    entry = catalog.find(settings["MODEL"])
    # A catalog name stands for the name its server knows the model by (Ollama: "bespoke-minicheck").
    served = entry.get("served_as", entry["name"]) if entry else settings["MODEL"]
    return OpenAIModel(
        settings["OPENAI_BASE_URL"],
        served,
        settings["OPENAI_API_KEY"],
        timeout=settings["OPENAI_TIMEOUT"],
        concurrent=settings["JUDGE_CONCURRENCY"],
    )


def _fake(settings: Mapping[str, Any]) -> Model:
    from sourcecheck.llm.fake import FakeModel

    return FakeModel(write_delay=settings["FAKE_DELAY"])


# Backend name → factory(settings). Each factory imports its transport when called, so that importing
# sourcecheck.llm loads neither llama_cpp nor openai.
BACKENDS = {"llama_cpp": _llama_cpp, "openai": _openai, "fake": _fake}


def load_model(settings: Mapping[str, Any]) -> Model:
    """The judge model the settings name (created lazily: nothing heavy happens here), with the prompt profile
    its catalog entry gives (judge.py prompts it accordingly; "verify" for a model the catalog does not list)."""
    backend = settings["BACKEND"]
    factory = BACKENDS.get(backend)
    if factory is None:
        raise ModelError(f"Unknown backend {backend!r}; use {', '.join(BACKENDS)}.", code="config_error", status=500)
    model = factory(settings)
    model.profile = catalog.profile_of(settings["MODEL"])
    return model


__all__ = ["BACKENDS", "load_model"]
