"""``vllm:MODEL``: an in-process vLLM offline engine (``pip install cogsim[vllm]``).

One ``LLM.chat`` call answers every active episode of a step. Images go in as PNG data URLs in
OpenAI-style content parts, which vLLM's chat templates turn into the model's image tokens.
Greedy decoding by default (temperature 0, as the four papers).
"""

from __future__ import annotations

import time
from typing import Any, Optional, Sequence

from cogsim.agents.base import Completion, ImageURLCache, Message, ModelBackend, openai_messages

_SAMPLING_KEYS = ("temperature", "top_p", "top_k", "max_tokens", "seed", "stop", "repetition_penalty")


class VLLMBackend(ModelBackend):
    """Options: sampling (temperature, top_p, top_k, max_tokens, seed, stop, repetition_penalty);
    everything else goes to ``vllm.LLM`` (max_model_len, limit_mm_per_prompt, gpu_memory_utilization,
    tensor_parallel_size, dtype, ...)."""

    def __init__(self, model: str, temperature: float = 0.0, max_tokens: int = 512, chat_template_kwargs: Optional[dict] = None, **options: Any):
        try:
            import vllm
        except ImportError as exc:
            raise ValueError(f"agent 'vllm:{model}' needs vLLM: pip install 'cogsim[vllm]' ({exc})") from None
        self.spec = f"vllm:{model}"
        self.model = model
        self.sampling = {"temperature": float(temperature), "max_tokens": int(max_tokens)}
        self.sampling.update({k: options.pop(k) for k in _SAMPLING_KEYS if k in options})
        self.engine_options = options
        self.chat_template_kwargs = chat_template_kwargs
        self._params = vllm.SamplingParams(**self.sampling)
        self._llm = vllm.LLM(model=model, **options)
        self._urls = ImageURLCache()

    def describe(self) -> dict:
        return {"backend": "vllm", "model": self.model, **self.sampling, **_jsonable(self.engine_options)}

    def complete(self, conversations: Sequence[Sequence[Message]]) -> list[Completion]:
        wire = [openai_messages(c, self._urls) for c in conversations]
        started = time.perf_counter()
        kwargs = {"use_tqdm": False}
        if self.chat_template_kwargs:
            kwargs["chat_template_kwargs"] = self.chat_template_kwargs
        try:
            outputs = self._llm.chat(wire, self._params, **kwargs)
        except ValueError as exc:  # e.g. a prompt longer than max_model_len fails the whole batch
            return self._one_by_one(wire, kwargs, first_error=exc)
        latency = (time.perf_counter() - started) / max(1, len(wire))
        return [_completion(out, latency) for out in outputs]

    def _one_by_one(self, wire: list, kwargs: dict, first_error: Exception) -> list[Completion]:
        results = []
        for conversation in wire:
            started = time.perf_counter()
            try:
                (out,) = self._llm.chat([conversation], self._params, **kwargs)
                results.append(_completion(out, time.perf_counter() - started))
            except ValueError as exc:
                results.append(Completion(None, error=f"vllm rejected the prompt: {exc}"))
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
