"""``openai:MODEL``: any OpenAI-compatible chat-completions server (OpenAI, ``vllm serve``, ...).

Requests of one batch go out concurrently (asyncio + httpx) under a concurrency limit. 429, 5xx,
timeouts and dropped connections are retried with exponential backoff (Retry-After honoured);
other 4xx, a prompt longer than the context, images sent to a text-only model, malformed JSON and
answers without choices or content fail at once. A failure is a ``Completion`` with ``text=None``,
an ``error`` and a ``fault`` kind: the runner stops that episode (resumable) and never scores it.

``concurrency`` (requests in flight, default 4) is independent of the runner's episodes in flight:
a local single-slot server (llama.cpp) serves one request at a time, and many queued requests only
run into timeouts; raise it for hosted APIs and ``vllm serve`` (see benchmarks/results_harness.md).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from typing import Any, Optional, Sequence

import httpx

from cogsim.agents.base import Completion, ImageURLCache, Message, ModelBackend, classify_fault, openai_messages

DEFAULT_BASE_URL = "https://api.openai.com/v1"
RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
DEFAULT_CONCURRENCY = 4


class OpenAIBackend(ModelBackend):
    def __init__(
        self,
        model: str,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        max_retries: int = 5,
        timeout_s: float = 300.0,
        backoff_s: float = 1.0,
        max_backoff_s: float = 60.0,
        temperature: Optional[float] = None,
        max_tokens: Optional[int] = None,
        seed: Optional[int] = None,
        extra_body: Optional[dict] = None,
        **unknown: Any,
    ):
        if unknown:
            raise ValueError(
                f"openai backend: unknown options {sorted(unknown)}; known: base_url, api_key, concurrency, "
                "max_retries, timeout_s, backoff_s, max_backoff_s, temperature, max_tokens, seed, extra_body"
            )
        self.spec = f"openai:{model}"
        self.model = model
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self._api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.concurrency = _positive_int("concurrency", concurrency)
        self.max_retries = _non_negative_int("max_retries", max_retries)
        self.timeout_s = float(timeout_s)
        self.backoff_s = float(backoff_s)
        self.max_backoff_s = float(max_backoff_s)
        self.sampling = {"temperature": 0.0 if temperature is None else float(temperature)}  # greedy unless set
        # an env's decoding defaults replace only the settings the user did not give
        self.user_set = {
            k for k, v in (("temperature", temperature), ("max_tokens", max_tokens), ("seed", seed)) if v is not None
        } | set(extra_body or {})
        if max_tokens is not None:
            self.sampling["max_tokens"] = _positive_int("max_tokens", max_tokens)
        if seed is not None:
            self.sampling["seed"] = int(seed)
        self.sampling.update(extra_body or {})
        self._urls = ImageURLCache()
        self._images_rejected: Optional[str] = None  # set once the server showed it takes no images
        self._loop = asyncio.new_event_loop()
        self._client: Optional[httpx.AsyncClient] = None

    def describe(self) -> dict:
        return {"backend": "openai", "model": self.model, "base_url": self.base_url, **self.sampling}

    def complete(
        self, conversations: Sequence[Sequence[Message]], decoding: Optional[Sequence[dict]] = None
    ) -> list[Completion]:
        decoding = decoding or [{}] * len(conversations)
        bodies = [
            {
                "model": self.model,
                "messages": openai_messages(c, self._urls),
                **{k: v for k, v in (d or {}).items() if k not in self.user_set},
                **_without(self.sampling, d, self.user_set),
            }
            for c, d in zip(conversations, decoding)
        ]
        return self._loop.run_until_complete(self._complete_all(bodies))

    def close(self) -> None:
        if self._client is not None:
            self._loop.run_until_complete(self._client.aclose())
            self._client = None
        self._loop.close()

    async def _complete_all(self, bodies: list[dict]) -> list[Completion]:
        if self._client is None:
            headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
            limits = httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency)
            self._client = httpx.AsyncClient(headers=headers, limits=limits, timeout=self.timeout_s)
        gate = asyncio.Semaphore(self.concurrency)
        return list(await asyncio.gather(*(self._complete_one(body, gate) for body in bodies)))

    async def _complete_one(self, body: dict, gate: asyncio.Semaphore) -> Completion:
        started = time.perf_counter()
        error = "no attempt made"
        images = _has_images(body)
        if images and self._images_rejected:
            return Completion(None, error=self._images_rejected, fault="unsupported_input", attempts=0)
        for attempt in range(self.max_retries + 1):
            async with gate:
                if images and self._images_rejected:
                    return Completion(None, error=self._images_rejected, fault="unsupported_input", attempts=attempt)
                outcome, retry_after = await self._attempt(body)
                if not isinstance(outcome, Completion):
                    error, status = outcome
                    fault = classify_fault(error, status)
                    if images and status is not None and status >= 400 and status != 429 and fault == "http":
                        # servers word "this model takes no images" in many ways (llama-cpp-python: a
                        # Python TypeError as HTTP 500): the same request without images tells
                        probe, _ = await self._attempt(_text_only(body))
                        if isinstance(probe, Completion):
                            fault = "unsupported_input"
                            error = f"the server fails every request with images and answers without them: {error}"
                    if images and fault == "unsupported_input":
                        self._images_rejected = error
            if isinstance(outcome, Completion):
                outcome.latency_s = time.perf_counter() - started
                outcome.attempts = attempt + 1
                return outcome
            if retry_after is None or fault in ("context_overflow", "unsupported_input"):  # not retryable
                break
            if attempt < self.max_retries:
                await asyncio.sleep(self._backoff(attempt, retry_after))
        else:
            error = f"{error} (gave up after {self.max_retries + 1} attempts)"
        return Completion(None, error=error, latency_s=time.perf_counter() - started, attempts=attempt + 1, fault=fault)

    async def _attempt(self, body: dict) -> tuple[Completion | tuple[str, Optional[int]], Optional[float]]:
        """A Completion, or ((error text, HTTP status), retry delay hint: None = do not retry, 0 = use backoff)."""
        try:
            response = await self._client.post(f"{self.base_url}/chat/completions", json=body)
        except httpx.TimeoutException:
            return (f"timeout after {self.timeout_s:g} s", None), 0.0
        except httpx.TransportError as exc:
            return (f"connection error: {type(exc).__name__}: {exc}", None), 0.0
        if response.status_code in RETRYABLE_STATUS:
            return (f"HTTP {response.status_code}: {_snippet(response.text)}", response.status_code), _retry_after(
                response
            )
        if response.status_code >= 400:
            return (f"HTTP {response.status_code}: {_snippet(response.text)}", response.status_code), None
        parsed = parse_chat_completion(response.content)
        return (parsed if isinstance(parsed, Completion) else (parsed, None)), None

    def _backoff(self, attempt: int, retry_after: float) -> float:
        delay = min(self.max_backoff_s, self.backoff_s * 2**attempt)
        return max(retry_after, delay * (0.5 + random.random() / 2))


def parse_chat_completion(payload: bytes) -> Completion | str:
    """The answer text and token counts of a chat-completions response body, or an error text."""
    try:
        data = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return f"malformed JSON response: {_snippet(payload.decode('utf-8', 'replace'))}"
    if not isinstance(data, dict):
        return f"response is not a JSON object: {_snippet(str(data))}"
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        return "response has no choices"
    choice = choices[0] if isinstance(choices[0], dict) else {}
    message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
    text = _content_text(message.get("content"))
    if text is None:
        return "response choice has no text content"
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return Completion(
        text,
        prompt_tokens=_int_or_none(usage.get("prompt_tokens")),
        completion_tokens=_int_or_none(usage.get("completion_tokens")),
        finish_reason=choice.get("finish_reason") if isinstance(choice.get("finish_reason"), str) else None,
    )


def _has_images(body: dict) -> bool:
    return any(
        isinstance(m.get("content"), list) and any(p.get("type") == "image_url" for p in m["content"])
        for m in body["messages"]
    )


def _text_only(body: dict) -> dict:
    """The request with its image parts left out and a one-token answer: a probe."""
    messages = []
    for m in body["messages"]:
        content = m.get("content")
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if p.get("type") == "text")
        messages.append({**m, "content": content})
    return {**body, "messages": messages, "max_tokens": 1}


def _without(sampling: dict, decoding: Optional[dict], user_set: set) -> dict:
    """The backend's own settings, less the defaults an env's decoding replaces (not set by the user)."""
    if not decoding:
        return sampling
    return {k: v for k, v in sampling.items() if k in user_set or k not in decoding}


def _content_text(content) -> Optional[str]:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # some servers answer with content parts
        texts = [part.get("text") for part in content if isinstance(part, dict) and isinstance(part.get("text"), str)]
        return "".join(texts) if texts else None
    return None


def _retry_after(response: httpx.Response) -> float:
    try:
        return min(60.0, max(0.0, float(response.headers.get("retry-after", 0))))
    except ValueError:
        return 0.0


def _snippet(text: str, limit: int = 500) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def _int_or_none(value) -> Optional[int]:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _positive_int(name: str, value) -> int:
    number = int(value)
    if number < 1:
        raise ValueError(f"openai backend: {name} must be a positive integer, got {value!r}")
    return number


def _non_negative_int(name: str, value) -> int:
    number = int(value)
    if number < 0:
        raise ValueError(f"openai backend: {name} must be >= 0, got {value!r}")
    return number
