"""``vllm:MODEL``: an in-process vLLM offline engine (``pip install cogsim[vllm]``).

One ``LLM.chat`` call answers every active episode of a step. Images go in as PNG data URLs in
OpenAI-style content parts, which vLLM's chat templates turn into the model's image tokens.
Greedy decoding by default (temperature 0, as the four papers).

An error of one request (a prompt longer than ``max_model_len``: ``ValueError`` or, in newer vLLM,
``VLLMValidationError``; an image for a text-only model; any other engine error for that request)
never takes down the batch or the run: the batch is retried one conversation at a time and only
the rejected ones come back as failed completions with a ``fault`` kind.
"""

from __future__ import annotations

import time
from typing import Any, Optional, Sequence

from cogsim.agents.base import Completion, ImageURLCache, Message, ModelBackend, classify_fault, openai_messages

_SAMPLING_KEYS = ("temperature", "top_p", "top_k", "max_tokens", "seed", "stop", "repetition_penalty")


class VLLMBackend(ModelBackend):
    """Options: sampling (temperature, top_p, top_k, max_tokens, seed, stop, repetition_penalty);
    everything else goes to ``vllm.LLM`` (max_model_len, limit_mm_per_prompt, gpu_memory_utilization,
    tensor_parallel_size, dtype, ...)."""

    def __init__(
        self,
        model: str,
        temperature: Optional[float] = None,
        max_tokens: Optional[int] = None,
        chat_template_kwargs: Optional[dict] = None,
        **options: Any,
    ):
        try:
            import vllm
        except ImportError as exc:
            raise ValueError(f"agent 'vllm:{model}' needs vLLM: pip install 'cogsim[vllm]' ({exc})") from None
        self.spec = f"vllm:{model}"
        self.model = model
        # greedy, 512 tokens unless set; an env's decoding defaults replace only what the user did not set
        self.sampling = {
            "temperature": 0.0 if temperature is None else float(temperature),
            "max_tokens": 512 if max_tokens is None else int(max_tokens),
        }
        self.user_set = {k for k in _SAMPLING_KEYS if k in options}
        self.user_set |= {k for k, v in (("temperature", temperature), ("max_tokens", max_tokens)) if v is not None}
        self.sampling.update({k: options.pop(k) for k in _SAMPLING_KEYS if k in options})
        self._vllm = vllm
        self.engine_options = options
        self.chat_template_kwargs = chat_template_kwargs
        self._params = vllm.SamplingParams(**self.sampling)
        self._llm = vllm.LLM(model=model, **options)
        self._urls = ImageURLCache()

    def describe(self) -> dict:
        return {"backend": "vllm", "model": self.model, **self.sampling, **_jsonable(self.engine_options)}

    def _params_for(self, decoding: Optional[dict]):
        extra = {k: v for k, v in (decoding or {}).items() if k in _SAMPLING_KEYS and k not in self.user_set}
        return self._vllm.SamplingParams(**{**self.sampling, **extra}) if extra else self._params

    def complete(
        self, conversations: Sequence[Sequence[Message]], decoding: Optional[Sequence[dict]] = None
    ) -> list[Completion]:
        wire = [openai_messages(c, self._urls) for c in conversations]
        params = [self._params_for(d) for d in (decoding or [None] * len(wire))]
        same = all(p is params[0] for p in params)
        started = time.perf_counter()
        kwargs = {"use_tqdm": False}
        if self.chat_template_kwargs:
            kwargs["chat_template_kwargs"] = self.chat_template_kwargs
        try:
            outputs = self._llm.chat(wire, params[0] if same else params, **kwargs)
        except Exception:  # e.g. one prompt longer than max_model_len fails the whole batch
            return self._one_by_one(wire, params, kwargs)
        latency = (time.perf_counter() - started) / max(1, len(wire))
        return [_completion(out, latency) for out in outputs]

    def _one_by_one(self, wire: list, params: list, kwargs: dict) -> list[Completion]:
        results = []
        for conversation, sampling in zip(wire, params):
            started = time.perf_counter()
            try:
                (out,) = self._llm.chat([conversation], sampling, **kwargs)
                results.append(_completion(out, time.perf_counter() - started))
            except Exception as exc:  # noqa: BLE001 - one request's error must not end the run
                message = f"vllm rejected the prompt: {type(exc).__name__}: {exc}"
                fault = classify_fault(message)
                results.append(Completion(None, error=message, fault="bad_response" if fault == "http" else fault))
        return results


def _completion(request_output, latency: float) -> Completion:
    if not request_output.outputs:
        return Completion(None, error="vllm returned no output", latency_s=latency)
    out = request_output.outputs[0]
    prompt_ids = getattr(request_output, "prompt_token_ids", None)
    return Completion(
        out.text,
        latency_s=latency,
        prompt_tokens=len(prompt_ids) if prompt_ids is not None else None,
        completion_tokens=len(out.token_ids),
        finish_reason=out.finish_reason,
    )


def _jsonable(options: dict) -> dict:
    return {k: v for k, v in options.items() if isinstance(v, (str, int, float, bool, type(None), list, dict))}
