"""Model transports behind one small interface (base.Model), found by backend name in BACKENDS."""

from pathlib import Path

from sourcecheck.errors import ModelError
from sourcecheck.llm.base import Model


def _llama_cpp(settings):
    from sourcecheck.llm.catalog import resolve_model_path
    from sourcecheck.llm.llama_cpp import LlamaCppModel

    path = resolve_model_path(settings["MODEL"], Path(settings["MODELS_DIR"]))
    return LlamaCppModel(path, n_ctx=settings["N_CTX"], n_threads=settings["N_THREADS"])


def _openai(settings):
    from sourcecheck.llm.openai_compat import OpenAIModel

    return OpenAIModel(settings["OPENAI_BASE_URL"], settings["MODEL"], settings["OPENAI_API_KEY"],
                       timeout=settings["OPENAI_TIMEOUT"], concurrent=settings["JUDGE_CONCURRENCY"])


def _fake(settings):
    from sourcecheck.llm.fake import FakeModel

    return FakeModel(write_delay=settings["FAKE_DELAY"])


# Backend name → factory(settings). Each factory imports its transport when called, so that importing
# sourcecheck.llm loads neither llama_cpp nor openai.
BACKENDS = {"llama_cpp": _llama_cpp, "openai": _openai, "fake": _fake}


def load_model(settings):
    """The judge model the settings name (created lazily: nothing heavy happens here)."""
    backend = settings["BACKEND"]
    factory = BACKENDS.get(backend)
    if factory is None:
        raise ModelError(f"Unknown backend {backend!r}; use {', '.join(BACKENDS)}.", code="config_error", status=500)
    return factory(settings)


__all__ = ["BACKENDS", "Model", "load_model"]
