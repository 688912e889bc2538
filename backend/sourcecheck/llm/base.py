"""The one interface every judge backend implements: transports move tokens, judge.py prompts and parses."""

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt


class Model(ABC):
    """A judge backend. Its capabilities are declared here, with their defaults, and read directly by the callers."""

    backend: str = "base"
    name: str = ""
    # True when choose(..., state=True) can return the model's hidden state (llama.cpp); False for APIs.
    reads_state: bool = False
    # Calls one check may make at once. 1: a local model (llama.cpp) already uses every core for one call, and its
    # KV-prefix reuse needs the sentences in order; a remote server batches requests, so it sets more.
    concurrent: int = 1
    # The prompt profile judge.py uses for this model (judge.PROFILES); load_model sets it from the catalog.
    profile: str = "verify"

    @abstractmethod
    def choose(
        self, messages: list[dict[str, str]], choices: Sequence[str], state: bool = False
    ) -> tuple[dict[str, float] | None, str, npt.NDArray[np.float32] | None]:
        """Answer the chat with one short word; return (probabilities, text, state).

        probabilities maps each choice to its probability as the reply's first token, normalised
        over the choices, or is None when the backend gives no log-probabilities. state is None
        unless state=True and the backend reads_state: then it is the final hidden state (after the
        output norm) at the answer position, a float32 numpy vector, from the same forward pass.
        """

    @abstractmethod
    def complete(self, messages: list[dict[str, str]], max_tokens: int = 200) -> str:
        """The assistant's reply to the chat, greedy."""

    def count_tokens(self, text: str) -> int:
        """Tokens in text; an estimate where the backend has no tokenizer."""
        return len(text) // 4 + 1

    def loaded(self) -> bool:
        return True

    def prepare(self) -> None:
        """Load what the first call needs; raise ModelError now if the model cannot work."""
        return None  # a model with nothing to load (a remote API, the fake) is ready as it is

    def read_ahead(self, messages: list[dict[str, str]]) -> None:
        """Read a prompt ahead of need where the backend keeps the prefix of the last prompt it read (llama.cpp), so
        the next prompt that opens the same way reads only what follows (Judge.warm_up); a backend that keeps none
        (a remote API, the fake) does nothing."""
        return None

    def available(self) -> bool:
        """False when the model certainly cannot run (a missing file); remote servers are assumed up."""
        return True

    def judge_id(self) -> str:
        """What this judge's calibration is kept under (calibration.for_judge): its backend and model."""
        return f"{self.backend}:{self.name}"

    def info(self) -> dict[str, str | bool]:
        return {"backend": self.backend, "name": self.name, "loaded": self.loaded(), "available": self.available()}


def normalise(scores: Mapping[str, float]) -> dict[str, float]:
    """Scale non-negative scores to sum to one (uniform when all are zero)."""
    total = sum(scores.values())
    if total <= 0:
        return {k: 1.0 / len(scores) for k in scores}
    return {k: v / total for k, v in scores.items()}
