"""The local default: a GGUF model run by llama.cpp, loaded on first use, one call at a time."""

import ctypes
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from sourcecheck.errors import ModelError
from sourcecheck.llm.base import Model, normalise
from sourcecheck.llm.catalog import INSTALL_HINT

# Checks that run at once (each in its own server thread) take turns at the model, one call each; every turn would
# read the other check's evidence again (4 users got 0.42x the throughput of one). So when a call would throw away
# the context another thread used moments ago, that context is kept, and put back when a prompt that shares it
# comes: a copy of its KV cache (~37 MB at 1.3k tokens, ~0.1 s; 10 ms to put back, against ~16 s to read again).
# One check alone (one thread) never pays for this.
KEEP_CONTEXTS = 4  # contexts kept at most (about one per concurrent user)
IN_USE_S = 120  # a context used this recently belongs to a check still running; older kept ones are dropped
MIN_TOKENS = 64  # shorter contexts are cheaper to read again than to keep


def _common(ids: Sequence[int] | npt.NDArray[Any], tokens: Sequence[int]) -> int:
    """Length of the common prefix of two token sequences."""
    n = min(len(ids), len(tokens))
    differ = np.flatnonzero(np.asarray(ids[:n]) != np.asarray(tokens[:n]))
    return int(differ[0]) if len(differ) else n


class LlamaCppModel(Model):
    backend = "llama_cpp"
    reads_state = True
    _used_by: int | None

    def __init__(self, path: str | Path, n_ctx: int = 4096, n_threads: int = 0) -> None:
        self.path = Path(path)
        self.name = self.path.stem
        self.n_ctx = n_ctx
        self.n_threads = n_threads or os.cpu_count() or 2
        self._llm: Any = None  # llama_cpp.Llama, once loaded
        self._formatter: Any = None
        # llama.cpp contexts are not thread-safe, and one model call already uses every core.
        self._lock = threading.RLock()
        self._kept: OrderedDict[int, tuple[npt.NDArray[Any], ctypes.Array[ctypes.c_uint8], float]] = (
            OrderedDict()
        )  # id -> (token ids, KV bytes, last use): contexts of checks between turns
        self._used_at, self._used_by = 0.0, None

    def loaded(self) -> bool:
        return self._llm is not None

    def available(self) -> bool:
        return self.path.exists()

    def prepare(self) -> None:
        self.load()

    def load(self) -> Any:
        with self._lock:
            if self._llm is None:
                self._llm = self._open()
                from llama_cpp.llama_chat_format import Jinja2ChatFormatter

                meta = self._llm.metadata
                vocab = self._llm._model
                self._formatter = Jinja2ChatFormatter(
                    template=meta["tokenizer.chat_template"],
                    eos_token=vocab.token_get_text(vocab.token_eos()),
                    bos_token=vocab.token_get_text(vocab.token_bos()) if vocab.token_bos() >= 0 else "",
                )
                # The hidden state is per token only without pooling: llama.cpp picks NONE for a chat model
                # (its GGUF names no pooling); a GGUF that pools (an embedding model) gives no state.
                import llama_cpp

                self.reads_state = self._llm._ctx.pooling_type() == llama_cpp.LLAMA_POOLING_TYPE_NONE
            return self._llm

    def _open(self) -> Any:
        if not self.path.exists():
            raise ModelError(f"The model file {self.path} is missing. {INSTALL_HINT}", code="model_missing")
        try:
            from llama_cpp import Llama
        except ImportError:
            raise ModelError("llama-cpp-python is not installed; run scripts/setup.", code="model_missing") from None
        try:
            # use_mmap=False: llama.cpp repacks the weights for the CPU into memory of its own, so a mapped
            # file would stay resident beside that copy (RSS 1.9 GB instead of 1.3 GB, same speed). Batches
            # of 128 read prompts as fast as 512 on 2 cores with smaller buffers (56 MB less).
            return Llama(
                model_path=str(self.path),
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads,
                n_batch=128,
                use_mmap=False,
                verbose=False,
            )
        except Exception as e:
            raise ModelError(
                f"The model file {self.path} could not be loaded ({e}); it may be damaged. {INSTALL_HINT}",
                code="model_corrupt",
            ) from None

    def tokens(self, messages: list[dict[str, str]]) -> list[int]:
        """The chat, formatted with the model's own template and ready for its reply, as tokens."""
        llm = self.load()
        prompt = self._formatter(messages=messages).prompt
        return llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)

    def choose(
        self, messages: list[dict[str, str]], choices: Sequence[str], state: bool = False
    ) -> tuple[dict[str, float] | None, str, npt.NDArray[np.float32] | None]:
        with self._lock:
            llm = self.load()
            tokens = self._ready_for(self.tokens(messages))
            self._check_fits(tokens)
            hidden = self._eval_reusing_prefix(tokens, state=state)
            # Without logits_all only the last position's logits exist: read them straight from the context.
            logits = np.ctypeslib.as_array(llm._ctx.get_logits_ith(-1), shape=(llm.n_vocab(),)).astype(np.float64)
            probs = np.exp(logits - logits.max())
            probs /= probs.sum()
            scores = {c: sum(float(probs[t]) for t in self._first_tokens(c)) for c in choices}
            best = max(scores, key=scores.__getitem__)
            return normalise(scores), best, hidden

    def read_ahead(self, messages: list[dict[str, str]]) -> None:
        """Read the prompt into the KV cache when nothing is cached yet (the server's start). It is no check's use of
        the model: a check that comes next does not keep it as a context to come back to (_ready_for: _used_by and
        _used_at are left alone), and a check already under way (something cached) is left alone."""
        with self._lock:
            llm = self.load()
            if llm.n_tokens:
                return
            tokens = self.tokens(messages)
            self._check_fits(tokens)
            self._eval_reusing_prefix(tokens)

    def complete(self, messages: list[dict[str, str]], max_tokens: int = 200) -> str:
        with self._lock:
            llm = self.load()
            self._check_fits(self._ready_for(self.tokens(messages)), max_tokens)
            out = llm.create_chat_completion(messages=messages, max_tokens=max_tokens, temperature=0.0)
            return out["choices"][0]["message"]["content"] or ""

    def count_tokens(self, text: str) -> int:
        return len(self.load().tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def _ready_for(self, tokens: list[int]) -> list[int]:
        """Before a prompt is read: keep the current context when the prompt would throw it away while its check
        is still running, and put back a kept context that shares more with the prompt. Returns tokens."""
        llm, now = self._llm, time.monotonic()
        self._prune(now)
        current = llm.input_ids[: llm.n_tokens]
        shared = _common(current, tokens[:-1])
        gain, best = max(
            ((_common(ids, tokens[:-1]) - shared, k) for k, (ids, _, _) in self._kept.items()), default=(0, None)
        )
        # taken out before the current context is kept: keeping may push the oldest (often this one) out
        restore = self._kept.pop(best) if gain > MIN_TOKENS and best is not None else None
        other = self._used_by != threading.get_ident() and now - self._used_at < IN_USE_S
        if other and shared < len(current) // 2 and len(current) >= MIN_TOKENS:
            self._keep(current.copy(), now)
        if restore:
            ids, data, _ = restore
            import llama_cpp

            ctx = llm._ctx.ctx
            llama_cpp.llama_memory_seq_rm(llama_cpp.llama_get_memory(ctx), 0, -1, -1)
            if llama_cpp.llama_state_seq_set_data(ctx, data, len(data), 0):
                llm.input_ids[: len(ids)] = ids
                llm.n_tokens = len(ids)
            else:  # not restored: the prompt is read in full
                llm.n_tokens = 0
        self._used_at, self._used_by = now, threading.get_ident()
        return tokens

    def _prune(self, now: float | None = None) -> None:
        """Drop kept contexts nobody came back for (also on a timer: an idle server gives their memory back)."""
        now = now or time.monotonic()
        with self._lock:
            for key in [k for k, (_, _, used) in self._kept.items() if now - used > IN_USE_S]:
                del self._kept[key]

    def _keep(self, ids: npt.NDArray[Any], now: float) -> None:
        import llama_cpp

        ctx = self._llm._ctx.ctx
        size = llama_cpp.llama_state_seq_get_size(ctx, 0)
        data = (ctypes.c_uint8 * size)()
        if llama_cpp.llama_state_seq_get_data(ctx, data, size, 0) == size:
            self._kept[id(data)] = (ids, data, now)
            while len(self._kept) > KEEP_CONTEXTS:
                self._kept.popitem(last=False)
            timer = threading.Timer(IN_USE_S + 1, self._prune)
            timer.daemon = True
            timer.start()

    def _eval_reusing_prefix(self, tokens: list[int], state: bool = False) -> npt.NDArray[np.float32] | None:
        """Evaluate tokens, keeping the KV cache of the prefix they share with the last prompt; with state,
        return the last token's final hidden state (float32, n_embd), else None."""
        llm = self._llm
        shared = 0
        for a, b in zip(llm._input_ids, tokens[:-1]):  # the last token is always evaluated: its logits are read
            if a != b:
                break
            shared += 1
        llm.n_tokens = shared
        if not (state and self.reads_state):
            llm.eval(tokens[shared:])
            return None
        # With embeddings on, llama.cpp makes every token of a batch an output (3.6x slower on a 206-token
        # prompt): read the prompt with them off, then only its last token with them on. The context is
        # created without embeddings (Llama(embedding=True) would also reserve logits for 128 sequences,
        # +75 MB): switching them on for one call allocates the one row it needs.
        import llama_cpp

        llm.eval(tokens[shared:-1])
        ctx = llm._ctx.ctx
        llama_cpp.llama_set_embeddings(ctx, True)
        try:
            llm.eval(tokens[-1:])
            # Pooling NONE: the per-token output of the last layer after the output norm (result_norm).
            pointer = llama_cpp.llama_get_embeddings_ith(ctx, -1)
            if not pointer:
                raise ModelError("llama.cpp gave no hidden state for the last token.", code="model_error", status=500)
            return np.ctypeslib.as_array(pointer, shape=(llm.n_embd(),)).astype(np.float32, copy=True)
        finally:
            llama_cpp.llama_set_embeddings(ctx, False)

    def _first_tokens(self, word: str) -> set[int]:
        """Token ids that start each spelling of word ('Yes', 'yes', ' Yes')."""
        ids = set()
        for variant in (word, word.lower(), " " + word, " " + word.lower()):
            toks = self._llm.tokenize(variant.encode("utf-8"), add_bos=False, special=False)
            if toks:
                ids.add(toks[0])
        return ids

    def _check_fits(self, tokens: Sequence[int], reserve: int = 1) -> None:
        if len(tokens) + reserve > self.n_ctx:
            raise ModelError(
                f"The prompt has {len(tokens)} tokens, more than the model's context of {self.n_ctx}.",
                code="prompt_too_long",
                status=500,
            )
