"""``openai:MODEL``: any OpenAI-compatible chat-completions server (OpenAI, ``vllm serve``, ...).

Requests of one batch go out concurrently (asyncio + httpx) under a concurrency limit. 429, 5xx,
timeouts and dropped connections are retried with exponential backoff (Retry-After honoured);
other 4xx, a prompt longer than the context, images sent to a text-only model, malformed JSON and
answers without choices or content fail at once. A failure is a ``Completion`` with ``text=None``,
an ``error`` and a ``fault`` kind: the runner stops that episode (resumable) and never scores it.
Frames go as ``image_url`` data URLs of the bytes the env's release sends, with their MIME type
(``data:image/png``, or ``data:image/jpeg`` where the release sends JPEG: ``TextEnv.frame_format()``).

The server is untrusted (docs/security.md): ``timeout_s`` bounds each whole request (connecting,
the headers and the body: a server that trickles bytes cannot stretch it), the body is read as a
stream and given up past ``max_response_bytes`` (default 8 MiB), and a body that is not a chat
completion, however malformed or deeply nested, is a ``bad_response`` fault.

``concurrency`` (requests in flight, default 4) is independent of the runner's episodes in flight:
a local single-slot server (llama.cpp) serves one request at a time, and many queued requests only
run into timeouts; raise it for hosted APIs and ``vllm serve`` (see benchmarks/results_harness.md).
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from typing import Any, Optional, Sequence

import httpx

from cogsim._untrusted import MAX_VALUE_BYTES, load_json, shown, size_text
from cogsim.agents.base import Completion, Message, ModelBackend, classify_fault, openai_messages

DEFAULT_BASE_URL = "https://api.openai.com/v1"
RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
DEFAULT_CONCURRENCY = 4
DEFAULT_MAX_RESPONSE_BYTES = 8 << 20
ERROR_BODY_BYTES = 64 << 10  # of an error reply, only so much is read (for its message)


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
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        **unknown: Any,
    ):
        if unknown:
            raise ValueError(
                f"openai backend: unknown options {sorted(unknown)}; known: base_url, api_key, concurrency, "
                "max_retries, timeout_s, backoff_s, max_backoff_s, temperature, max_tokens, seed, extra_body, "
                "max_response_bytes"
            )
        self.spec = f"openai:{model}"
        self.model = model
        self.base_url = _http_url((base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/"))
        self._api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.concurrency = _positive_int("concurrency", concurrency)
        self.max_retries = _non_negative_int("max_retries", max_retries)
        self.timeout_s = _positive_seconds("timeout_s", timeout_s)
        self.backoff_s = _positive_seconds("backoff_s", backoff_s, allow_zero=True)
        self.max_backoff_s = _positive_seconds("max_backoff_s", max_backoff_s, allow_zero=True)
        self.max_response_bytes = _positive_int("max_response_bytes", max_response_bytes)
        if self.max_response_bytes > MAX_VALUE_BYTES:
            raise ValueError(
                f"openai backend: max_response_bytes may be at most {MAX_VALUE_BYTES} (the longest reply a store "
                f"keeps), got {shown(max_response_bytes)}"
            )
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
                "messages": openai_messages(c),
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
            headers["Accept-Encoding"] = "identity"  # a body's size on the wire is its size in memory
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
        """A Completion, or ((error text, HTTP status), retry delay hint: None = do not retry, 0 = use backoff).
        ``timeout_s`` bounds the whole request, however slowly the server sends."""
        try:
            return await asyncio.wait_for(self._request(body), self.timeout_s)
        except asyncio.TimeoutError:
            return (f"timeout after {self.timeout_s:g} s (the whole request: connecting, headers and body)", None), 0.0

    async def _request(self, body: dict) -> tuple[Completion | tuple[str, Optional[int]], Optional[float]]:
        try:
            async with self._client.stream("POST", f"{self.base_url}/chat/completions", json=body) as response:
                status = response.status_code
                if status >= 400:
                    text = (await _read_body(response, ERROR_BODY_BYTES, cut=True) or b"").decode("utf-8", "replace")
                    error = (f"HTTP {status}: {_snippet(text)}", status)
                    return error, (_retry_after(response) if status in RETRYABLE_STATUS else None)
                payload = await _read_body(response, self.max_response_bytes)
        except httpx.TimeoutException:
            return (f"timeout after {self.timeout_s:g} s", None), 0.0
        except httpx.DecodingError as exc:
            return (f"malformed response body: {type(exc).__name__}: {_snippet(str(exc))}", None), None
        except httpx.TransportError as exc:
            return (f"connection error: {type(exc).__name__}: {_snippet(str(exc))}", None), 0.0
        if payload is None:
            error = (
                f"response body larger than max_response_bytes ({size_text(self.max_response_bytes)}); raise the "
                "agent option max_response_bytes if the server's replies are that long"
            )
            return Completion(None, error=error, fault="bad_response"), None
        parsed = parse_chat_completion(payload)
        # not a chat completion: whatever words the body holds, the fault is the reply's form
        return (
            parsed if isinstance(parsed, Completion) else Completion(None, error=parsed, fault="bad_response")
        ), None

    def _backoff(self, attempt: int, retry_after: float) -> float:
        delay = min(self.max_backoff_s, self.backoff_s * 2**attempt)
        return max(retry_after, delay * (0.5 + random.random() / 2))


async def _read_body(response: httpx.Response, limit: int, cut: bool = False) -> Optional[bytes]:
    """The body, read as it arrives: None once it passes ``limit`` bytes (or, with ``cut``, its first
    ``limit`` bytes); a declared Content-Length past the limit is refused before reading."""
    declared = response.headers.get("content-length", "")
    if not cut and declared.isdigit() and len(declared) < 20 and int(declared) > limit:
        return None
    buffer = bytearray()
    async for chunk in response.aiter_bytes():
        buffer += chunk
        if len(buffer) > limit:
            return bytes(buffer[:limit]) if cut else None
    return bytes(buffer)


def parse_chat_completion(payload: bytes) -> Completion | str:
    """The answer text and token counts of a chat-completions response body, or an error text (for
    any body: malformed, deeply nested, of the wrong shape)."""
    try:
        data = load_json(payload, "the response body", len(payload))
    except ValueError as error:
        return f"malformed JSON response: {_snippet(str(error))}: {_snippet(payload[:2000].decode('utf-8', 'replace'))}"
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
        finish_reason=choice["finish_reason"][:100] if isinstance(choice.get("finish_reason"), str) else None,
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
    """A token count as stored (a 64-bit integer), or None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63 else None


def _http_url(url: str) -> str:
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError) as error:
        raise ValueError(f"openai backend: base_url is not a URL ({error})") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ValueError(f"openai backend: base_url must be an http:// or https:// URL, got {shown(url, 200)}")
    return url


def _positive_seconds(name: str, value, allow_zero: bool = False) -> float:
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = float("nan")
    if not (seconds > 0 or (allow_zero and seconds == 0)) or seconds == float("inf"):
        raise ValueError(f"openai backend: {name} must be a positive number of seconds, got {shown(value)}")
    return seconds


def _positive_int(name: str, value) -> int:
    return _integer(name, value, 1, "a positive integer")


def _non_negative_int(name: str, value) -> int:
    return _integer(name, value, 0, "an integer >= 0")


def _integer(name: str, value, low: int, wanted: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value < 2**63:
        raise ValueError(f"openai backend: {name} must be {wanted}, got {shown(value)}")
    return value
