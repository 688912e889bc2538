"""The one interface every judge backend implements: transports move tokens, judge.py prompts and parses."""

from pathlib import Path

from sourcecheck.errors import ModelError


class Model:
    backend = "base"
    name = ""

    def choose(self, messages, choices):
        """Answer the chat with one short word; return (probabilities, text).

        probabilities maps each choice to its probability as the reply's first token, normalised
        over the choices, or is None when the backend gives no log-probabilities.
        """
        raise NotImplementedError

    def complete(self, messages, max_tokens=200):
        """The assistant's reply to the chat, greedy."""
        raise NotImplementedError

    def count_tokens(self, text):
        """Tokens in text; an estimate where the backend has no tokenizer."""
        return len(text) // 4 + 1

    def loaded(self):
        return True

    def prepare(self):
        """Load what the first call needs; raise ModelError now if the model cannot work."""

    def available(self):
        """False when the model certainly cannot run (a missing file); remote servers are assumed up."""
        return True

    def info(self):
        return {"backend": self.backend, "name": self.name, "loaded": self.loaded(), "available": self.available()}


def load_model(settings):
    """The judge model the settings name (created lazily: nothing heavy happens here)."""
    backend = settings["BACKEND"]
    if backend == "llama_cpp":
        from sourcecheck.llm.catalog import resolve_model_path
        from sourcecheck.llm.llama_cpp import LlamaCppModel

        path = resolve_model_path(settings["MODEL"], Path(settings["MODELS_DIR"]))
        return LlamaCppModel(path, n_ctx=settings["N_CTX"], n_threads=settings["N_THREADS"])
    if backend == "openai":
        from sourcecheck.llm.openai_compat import OpenAIModel

        return OpenAIModel(settings["OPENAI_BASE_URL"], settings["MODEL"], settings["OPENAI_API_KEY"],
                           timeout=settings["OPENAI_TIMEOUT"])
    if backend == "fake":
        from sourcecheck.llm.fake import FakeModel

        return FakeModel(write_delay=settings["FAKE_DELAY"])
    raise ModelError(f"Unknown backend {backend!r}; use llama_cpp, openai or fake.", code="config_error", status=500)


def normalise(scores):
    """Scale non-negative scores to sum to one (uniform when all are zero)."""
    total = sum(scores.values())
    if total <= 0:
        return {k: 1.0 / len(scores) for k in scores}
    return {k: v / total for k, v in scores.items()}
