"""Any OpenAI-compatible chat API: OpenAI, Ollama, LM Studio, vLLM, the llama.cpp server."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

import numpy as np
import numpy.typing as npt

from sourcecheck.errors import ModelError
from sourcecheck.llm.base import Model, normalise

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletion, ChatCompletionMessageParam


class OpenAIModel(Model):
    backend = "openai"

    def __init__(
        self, base_url: str, model: str, api_key: str = "", timeout: float = 60.0, concurrent: int = 4
    ) -> None:
        import openai

        self.concurrent = max(1, concurrent)  # the openai client is thread-safe; the server batches requests

        self.base_url = base_url or None
        self.name = model
        # A custom server gets only a key it was given; the OPENAI_API_KEY variable is for OpenAI itself.
        key = api_key or ("" if self.base_url else os.environ.get("OPENAI_API_KEY", "")) or "no-key"
        self._openai = openai
        self._client = openai.OpenAI(base_url=self.base_url, api_key=key, timeout=timeout, max_retries=0)

    def judge_id(self) -> str:
        # the same name on another server may be another model (or another quantisation of it); no credentials
        # a URL may carry (GET /health shows the judge to anyone on this machine)
        where = urlsplit(self.base_url or "https://api.openai.com/v1")
        host = where.hostname or ""
        return f"openai:{self.name}@{host}{f':{where.port}' if where.port else ''}{where.path.rstrip('/')}"

    def choose(
        self, messages: list[dict[str, str]], choices: Sequence[str], state: bool = False
    ) -> tuple[dict[str, float] | None, str, npt.NDArray[np.float32] | None]:
        # An API gives no hidden state: state is always None (reads_state is False).
        reply = self._create(messages, max_tokens=1, logprobs=True, top_logprobs=20)
        text = self._text(reply)
        content = getattr(reply.choices[0].logprobs, "content", None) if reply.choices[0].logprobs else None
        if not content or not content[0].top_logprobs:
            return None, text, None  # the server gives no log-probabilities: the caller reads the text
        scores = {c: 0.0 for c in choices}
        for alt in content[0].top_logprobs:
            word = alt.token.strip().lower()
            for c in choices:
                if word == c.lower():
                    scores[c] += math.exp(alt.logprob)
        return normalise(scores), text, None

    def complete(self, messages: list[dict[str, str]], max_tokens: int = 200) -> str:
        return self._text(self._create(messages, max_tokens=max_tokens))

    def _create(self, messages: list[dict[str, str]], **kwargs: Any) -> ChatCompletion:
        where = self.base_url or "the OpenAI API"
        try:
            reply = self._client.chat.completions.create(
                model=self.name, messages=cast("list[ChatCompletionMessageParam]", messages), temperature=0.0, **kwargs
            )
        except self._openai.APITimeoutError:
            raise ModelError(f"{where} did not answer in time.", code="model_timeout", status=504) from None
        except self._openai.APIConnectionError:
            raise ModelError(f"Cannot reach {where}; is the server running?", code="model_unreachable") from None
        except self._openai.APIStatusError as e:
            # a prompt longer than the served model's context (OpenAI, llama.cpp, vLLM word it so): the same error
            # as the local backend's, so a caller can ask again with less
            too_long = e.status_code == 400 and "context length" in str(e.message).lower()
            raise ModelError(
                f"{where} answered with HTTP {e.status_code}: {_short(e.message)}",
                code="prompt_too_long" if too_long else "model_error",
                status=500 if too_long else 502,
            ) from None
        except self._openai.APIResponseValidationError:
            raise ModelError(
                f"{where} sent a response that is not an OpenAI chat completion.", code="model_bad_response", status=502
            ) from None
        if not getattr(reply, "choices", None):
            raise ModelError(f"{where} sent a response without choices.", code="model_bad_response", status=502)
        return reply

    @staticmethod
    def _text(reply: ChatCompletion) -> str:
        message = reply.choices[0].message
        return (message.content if message else "") or ""


def _short(text: object, n: int = 200) -> str:
    text = str(text)
    return text if len(text) <= n else text[:n] + "…"
