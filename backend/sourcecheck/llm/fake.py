"""A model for tests: answers what was enqueued, else a deterministic word-overlap guess; records every call."""

import hashlib
import re
import threading
import time
from collections.abc import Sequence
from typing import cast

import numpy as np
import numpy.typing as npt

from sourcecheck.llm.base import Model
from sourcecheck.text.numerals import numbers
from sourcecheck.text.words import content_words

HISTORY = 2000  # calls kept in FakeModel.history (a test's check makes tens)


class FakeModel(Model):
    backend = "fake"
    name = "fake"
    reads_state = True
    state_size = 16

    def __init__(self, write_delay: float = 0.0, concurrent: int = 1) -> None:
        self.write_delay = write_delay  # seconds each complete() takes, like a model writing a critique
        self.concurrent = concurrent  # more than 1: a check calls it from several threads, like a remote server
        self.queue: list[dict[str, float] | str | Exception] = []
        # (method, messages) of the calls, the latest HISTORY of them: `serve` with the fake backend runs for days
        self.history: list[tuple[str, list[dict[str, str]]]] = []
        self._lock = threading.Lock()  # two threads must not take the same enqueued reply

    def _next(self) -> dict[str, float] | str | Exception | None:
        """The next enqueued reply, or None."""
        with self._lock:
            return self.queue.pop(0) if self.queue else None

    def _log(self, method: str, messages: list[dict[str, str]]) -> None:
        with self._lock:
            self.history.append((method, messages))
            if len(self.history) > 2 * HISTORY:  # trimmed in batches: appending stays O(1) on average
                del self.history[:-HISTORY]

    def enqueue(self, *replies: dict[str, float] | str | Exception) -> None:
        """Replies to give, in order: a dict of probabilities for choose(), a string for complete()."""
        self.queue.extend(replies)

    def choose(
        self, messages: list[dict[str, str]], choices: Sequence[str], state: bool = False
    ) -> tuple[dict[str, float] | None, str, npt.NDArray[np.float32] | None]:
        self._log("choose", messages)
        hidden = self.state_of(messages) if state else None
        reply = self._next()
        if reply is not None:
            if isinstance(reply, Exception):
                raise reply
            if isinstance(reply, str):
                return None, reply, hidden
            return dict(reply), max(reply, key=reply.__getitem__), hidden
        p = 0.9 if _verdict(messages) == "supported" else 0.1
        return {choices[0]: p, choices[1]: 1 - p}, choices[0] if p > 0.5 else choices[1], hidden

    def state_of(self, messages: list[dict[str, str]]) -> npt.NDArray[np.float32]:
        """A stand-in hidden state: state_size float32 in [-1, 1), fixed by the last message's text."""
        digest = hashlib.shake_256(messages[-1]["content"].encode("utf-8")).digest(4 * self.state_size)
        return (np.frombuffer(digest, dtype="<u4") / 2.0**31 - 1.0).astype(np.float32)

    def complete(self, messages: list[dict[str, str]], max_tokens: int = 200) -> str:
        self._log("complete", messages)
        time.sleep(self.write_delay)
        reply = self._next()
        if reply is not None:
            if isinstance(reply, Exception):
                raise reply
            return cast(str, reply)  # complete() is enqueued strings
        claim, sources = _claim_and_sources(messages)
        kind = _verdict(messages)
        if kind == "contradicted":
            # The right number is in the excerpt most like the claim (the block may hold other sentences' too).
            words = set(content_words(claim))
            best = max(
                re.findall(r"^\[\d+\] (.*)$", sources, re.MULTILINE) or [sources],
                key=lambda line: len(words & set(content_words(line))),
            )
            wrong = sorted(numbers(claim) - numbers(best))
            right = sorted(numbers(best) - numbers(claim))
            ours, theirs = (_written(claim, wrong[0]), _written(best, right[0])) if right and wrong else (None, None)
            revised = claim.replace(ours, theirs) if ours and theirs else "none"  # "three", "35k": not as digits
            return (
                f"Critique: The sources give a different number than the claim.\nError type: entity\nRevised: {revised}"
            )
        return "Critique: The sources do not mention this.\nError type: unverifiable\nRevised: none"


def _written(text: str, number: str) -> str | None:
    """The number as the text writes it in digits ('35074' → '35,074'), or None (written as a word, '35k')."""
    return next((m for m in re.findall(r"\d+(?:[.,]\d+)*", text) if m.replace(",", "") == number), None)


def _claim_and_sources(messages: list[dict[str, str]]) -> tuple[str, str]:
    text = messages[-1]["content"]
    claim = re.search(r"^Claim: (.*)$", text, re.MULTILINE)
    return (claim.group(1) if claim else ""), text[: claim.start()] if claim else text


def _verdict(messages: list[dict[str, str]]) -> str:
    """supported: every number and most content words of the claim appear in the sources;
    contradicted: the words match but a number does not; otherwise unsupported."""
    claim, sources = _claim_and_sources(messages)
    words = set(content_words(claim)) - numbers(claim)
    source_words = set(content_words(sources))
    overlap = len(words & source_words) / max(1, len(words))
    numbers_ok = numbers(claim) <= numbers(sources)
    if overlap >= 0.6:
        return "supported" if numbers_ok else "contradicted"
    return "unsupported"
