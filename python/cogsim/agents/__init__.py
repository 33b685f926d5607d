"""Agents: who answers the env's turns.

An agent spec is a string:
    "oracle", "random", or any name in the env's ``scripted_policies``   scripted, answered by the env
    "noisy-oracle:P"                                                      oracle, but with probability P the random answer
    "openai:MODEL"                                                        an OpenAI-compatible chat-completions server
    "vllm:MODEL"                                                          an in-process vLLM engine
    "human:NAME"                                                          a person, through ``cogsim play``

Scripted agents answer from the env's hidden state (``env.scripted_response``) in the benchmark's
own text format, so they go through the same parsers as models. Model backends take a batch of
conversations (one per active episode) and return one ``Completion`` each; more backend kinds
can be added with ``register_backend``.
"""

from __future__ import annotations

from typing import Any

from cogsim.agents.base import (
    BACKENDS,
    Completion,
    Message,
    ModelBackend,
    ScriptedAgent,
    parse_agent_spec,
    register_backend,
)

__all__ = [
    "Completion",
    "Message",
    "ModelBackend",
    "ScriptedAgent",
    "make_agent",
    "parse_agent_spec",
    "is_scripted",
    "register_backend",
]


def _openai(model: str, **options: Any):
    from cogsim.agents.openai import OpenAIBackend

    return OpenAIBackend(model, **options)


def _vllm(model: str, **options: Any):
    from cogsim.agents.vllm import VLLMBackend

    return VLLMBackend(model, **options)


def _human(name: str, **options: Any):
    from cogsim.agents.human import HumanBackend

    return HumanBackend(name, **options)


register_backend("openai", _openai)
register_backend("vllm", _vllm)
register_backend("human", _human)


def is_scripted(spec: str) -> bool:
    return parse_agent_spec(spec)[0] == "scripted"


def make_agent(spec: str, **options: Any):
    """A ``ScriptedAgent`` or a ``ModelBackend`` for the spec; ``options`` configure model backends
    (base_url, api_key, temperature, max_tokens, concurrency, ...)."""
    kind, name = parse_agent_spec(spec)
    if kind == "scripted":
        if options:
            raise ValueError(f"agent {spec!r} is scripted and takes no options, got {sorted(options)}")
        return ScriptedAgent(spec)
    backend = BACKENDS[kind](name, **options)
    backend.spec = spec
    return backend
