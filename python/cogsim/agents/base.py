"""Agent types shared by the runner and the backends: messages, completions, scripted agents."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

# Model backend kinds: "kind:MODEL" specs. A factory takes (model, **options) -> ModelBackend.
BACKENDS: dict = {}


def register_backend(kind: str, factory) -> None:
    """Add a model backend kind (e.g. a custom server protocol): agents "KIND:MODEL" then use it."""
    if not kind or ":" in kind:
        raise ValueError(f"backend kind must be a non-empty name without ':', got {kind!r}")
    BACKENDS[kind] = factory


@dataclass(frozen=True)
class Message:
    """One chat message; images are the frames shown before the text: ``cogsim.render.frames.SentFrame``
    objects (pixels, and the bytes they are sent as), or HxWx3 (RGB) / HxWx4 (RGBA) uint8 arrays, sent as PNG."""

    role: str  # "system" | "user" | "assistant"
    text: str
    images: tuple = ()


# Why a backend call failed (``Completion.fault``). The runner never gives such a turn to the env:
# the episode stops, resumable, with the reason stored.
FAULT_REASONS = ("connection", "timeout", "http", "context_overflow", "unsupported_input", "bad_response")
# Faults that say the server (not this one prompt) is unusable: the runner stops the whole run.
RUN_STOPPING_FAULTS = frozenset({"connection", "timeout", "http", "unsupported_input"})


@dataclass
class Completion:
    """One backend answer. ``text`` is None when the call failed; ``error`` then says why and
    ``fault`` names the kind (one of ``FAULT_REASONS``)."""

    text: Optional[str]
    error: Optional[str] = None
    latency_s: float = 0.0
    prompt_tokens: Optional[int] = None
    completion_tokens: Optional[int] = None
    finish_reason: Optional[str] = None
    attempts: int = 1
    fault: Optional[str] = None

    def __post_init__(self):
        if self.text is None and self.fault is None:
            self.fault = classify_fault(self.error or "")


_OVERFLOW_WORDS = (
    "context length",
    "context window",
    "context size",
    "maximum context",
    "max_model_len",
    "too many tokens",
    "prompt is too long",
    "context too long",
    "n_ctx",
    "maximum model length",
    "context_length_exceeded",
    "may be provided in one prompt",  # vLLM: more images than limit_mm_per_prompt, a budget like the context
)
_IMAGE_WORDS = ("image", "multimodal", "multi-modal", "vision", "mmproj", "clip model")
_UNSUPPORTED_WORDS = (
    "not support",
    "unsupported",
    "does not accept",
    "not enabled",
    "not available",
    "no image",
    "cannot process",
    "can't process",
    "not a multimodal",
    "chat handler",
    "only text",
    "text-only",
    "expected str",
    "must be a string",
    "not implemented",
)


def classify_fault(message: str, status: Optional[int] = None) -> str:
    """The fault kind of a failed backend call from its status and message (servers word these
    differently: llama.cpp, vLLM and OpenAI are covered by the tests)."""
    text = message.lower()
    if text.startswith("timeout") or "timed out" in text:
        return "timeout"
    if text.startswith("connection error"):
        return "connection"
    if any(w in text for w in _IMAGE_WORDS) and any(w in text for w in _UNSUPPORTED_WORDS):
        return "unsupported_input"
    if any(w in text for w in _OVERFLOW_WORDS) or (
        ("token" in text or "context" in text) and ("exceed" in text or "longer than" in text)
    ):
        return "context_overflow"
    if status is not None or text.startswith("http "):
        return "http"
    return "bad_response"


def parse_agent_spec(spec: str) -> tuple[str, str]:
    """("scripted", policy) | ("openai", model) | ("vllm", model) | ("human", name); ValueError for a malformed spec."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent must be a non-empty string such as 'oracle' or 'openai:MODEL', got {spec!r}")
    kind, sep, rest = spec.partition(":")
    if sep and kind in BACKENDS:
        if not rest:
            raise ValueError(f"agent {spec!r}: a model name must follow '{kind}:'")
        if kind == "human":
            from cogsim.agents.human import check_name

            check_name(rest)
        return kind, rest
    if kind == "noisy-oracle":
        noise_probability(spec)
    elif sep:
        raise ValueError(
            f"agent {spec!r}: unknown kind {kind!r}; use a scripted policy name, 'noisy-oracle:P', "
            f"or one of the backends {', '.join(k + (':NAME' if k == 'human' else ':MODEL') for k in BACKENDS)}"
        )
    return "scripted", spec


def noise_probability(spec: str) -> float:
    _, sep, value = spec.partition(":")
    try:
        p = float(value) if sep else math.nan
    except ValueError:
        p = math.nan
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"agent {spec!r}: noisy-oracle needs a probability in [0, 1], e.g. 'noisy-oracle:0.2'")
    return p


class ScriptedAgent:
    """Answers from the env's hidden state through ``env.scripted_response``."""

    kind = "scripted"

    def __init__(self, spec: str):
        parse_agent_spec(spec)
        self.spec = spec
        self.noise = noise_probability(spec) if spec.startswith("noisy-oracle") else None

    def check(self, env) -> None:
        """ValueError unless the env knows this policy (before any episode starts)."""
        needed = ("oracle", "random") if self.noise is not None else (self.spec,)
        known = tuple(env.scripted_policies)
        for policy in needed:
            if policy not in known:
                raise ValueError(
                    f"agent {self.spec!r}: env {env.env_id!r} has no scripted policy {policy!r}; "
                    f"known: {', '.join(known)}, noisy-oracle:P"
                )

    def respond(self, env, rng: np.random.Generator) -> str:
        if self.noise is None:
            return env.scripted_response(self.spec, rng)
        policy = "random" if rng.random() < self.noise else "oracle"
        return env.scripted_response(policy, rng)


class ModelBackend:
    """A language model behind ``complete``: one call answers a whole batch of conversations."""

    kind = "model"
    spec: str = ""

    def complete(
        self, conversations: Sequence[Sequence[Message]], decoding: Optional[Sequence[dict]] = None
    ) -> list[Completion]:
        """One answer per conversation. ``decoding`` (one dict per conversation, or None): the env's
        decoding defaults (``env.metadata["cogsim.decoding"]``), used for options the user did not set."""
        raise NotImplementedError

    def describe(self) -> dict:
        """Decoding settings recorded in the run config (never secrets)."""
        return {}

    def close(self) -> None:
        pass


def openai_messages(conversation: Sequence[Message]) -> list[dict]:
    """The chat-completions wire form: plain string content for text-only turns, else content parts
    with each frame as a data URL of the bytes it is sent as (a ``SentFrame``'s PNG or JPEG; a plain
    array goes as PNG)."""
    wire = []
    for message in conversation:
        if not message.images:
            wire.append({"role": message.role, "content": message.text})
            continue
        parts = [{"type": "image_url", "image_url": {"url": sent_frame(frame).data_url()}} for frame in message.images]
        parts.append({"type": "text", "text": message.text})
        wire.append({"role": message.role, "content": parts})
    return wire


def sent_frame(image):
    """A message's image as a ``cogsim.render.frames.SentFrame`` (itself, or a plain array as PNG)."""
    from cogsim.render.frames import as_sent  # the renderer's package only when frames are shown

    return as_sent(image)
