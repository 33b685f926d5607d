"""The vllm: backend's side of vLLM's offline API (``LLM``, ``SamplingParams``, ``LLM.chat``),
against a stand-in module with the same signatures, so the request building, batching, token
counts and per-prompt fallback are checked on machines without vLLM or a GPU. The real engine
runs in test_backends_vllm.py where vLLM and a GPU are present."""

import sys
import types
from dataclasses import dataclass

import numpy as np
import pytest

import loop_envs  # noqa: F401
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
    prompt_token_ids: list
    outputs: list


class VLLMValidationError(Exception):
    pass


class SamplingParams:
    def __init__(self, **kwargs):
        self.kwargs = kwargs


class LLM:
    instances: list = []

    def __init__(self, model, **engine_options):
        self.model, self.engine_options, self.calls = model, engine_options, []
        LLM.instances.append(self)

    def chat(self, messages, sampling_params=None, use_tqdm=True, chat_template_kwargs=None):
        self.calls.append((messages, sampling_params, use_tqdm, chat_template_kwargs))
        outputs = []
        for conversation in messages:
            text = "".join(
                part["text"] if isinstance(part, dict) and part.get("type") == "text" else ""
                for m in conversation
                for part in (
                    m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
                )
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
            outputs.append(
                RequestOutput(
                    list(range(len(text.split()))), [CompletionOutput(f"ANSWER: {said + 1}", [1, 2, 3], "stop")]
                )
            )
        return outputs


@pytest.fixture
def fake_vllm(monkeypatch):
    module = types.ModuleType("vllm")
    module.LLM, module.SamplingParams = LLM, SamplingParams
    monkeypatch.setitem(sys.modules, "vllm", module)
    LLM.instances = []
    return module


def test_one_chat_call_per_step_with_greedy_defaults(fake_vllm, tmp_path):
    options = {"max_tokens": 16, "max_model_len": 4096, "limit_mm_per_prompt": {"image": 2}}
    run(
        RunConfig([Task("looptest/count", 3)], ["vllm:tiny"], concurrency=3, history="full", agent_options=options),
        tmp_path,
    )
    (llm,) = LLM.instances
    assert llm.model == "tiny" and llm.engine_options == {"max_model_len": 4096, "limit_mm_per_prompt": {"image": 2}}
    assert [len(messages) for messages, *_ in llm.calls] == [3, 3, 3, 2, 1]  # targets 3, 4, 5
    messages, params, use_tqdm, _ = llm.calls[0]
    assert params.kwargs == {"temperature": 0.0, "max_tokens": 16} and use_tqdm is False
    assert messages[0][0] == {"role": "system", "content": "You count. Reply 'ANSWER: <number>'."}
    with open_store(tmp_path) as store:
        assert all(e["success"] for e in store.episodes())
        assert store.query("SELECT DISTINCT completion_tokens, error FROM turns") == [(3, None)]
        (description,) = store.query("SELECT description FROM backends")
    assert '"backend":"vllm"' in description[0] and '"max_model_len":4096' in description[0]


def test_images_go_as_data_urls_and_a_rejected_prompt_fails_alone(fake_vllm):
    backend = make_agent("vllm:tiny", temperature=0.7, top_p=0.9)
    frame = np.zeros((4, 4, 3), np.uint8)
    results = backend.complete(
        [
            [Message("user", "what colour?", (frame,))],
            [Message("user", "TOO LONG")],
        ]
    )
    assert results[0].text == "ANSWER: 1" and results[0].prompt_tokens == 2
    assert results[1].text is None and "max_model_len" in results[1].error
    (llm,) = LLM.instances
    first_call = llm.calls[0][0]
    image, text = first_call[0][0]["content"]
    assert image["type"] == "image_url" and image["image_url"]["url"].startswith("data:image/png;base64,")
    assert text == {"type": "text", "text": "what colour?"}
    assert llm.calls[0][1].kwargs == {"temperature": 0.7, "max_tokens": 512, "top_p": 0.9}
    assert [len(call[0]) for call in llm.calls] == [2, 1, 1]  # the batch, then one by one


def test_missing_vllm_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(ValueError, match=r"needs vLLM: pip install 'cogsim\[vllm\]'"):
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


def test_env_decoding_defaults_become_per_request_sampling_params(fake_vllm):
    backend = make_agent("vllm:tiny", temperature=0.5)
    backend.complete(
        [[Message("user", "a")], [Message("user", "b")]], [{"max_tokens": 65536, "temperature": 1.0}, None]
    )
    (llm,) = LLM.instances
    first, second = llm.calls[0][1]
    assert first.kwargs == {"temperature": 0.5, "max_tokens": 65536}  # the user's temperature wins
    assert second.kwargs == {"temperature": 0.5, "max_tokens": 512}


def test_a_vllm_overflow_stops_the_episode_and_resume_may_raise_max_model_len(fake_vllm, tmp_path, monkeypatch):
    config = RunConfig([Task("looptest/count", 2)], ["vllm:tiny"], history="full", agent_options={"max_model_len": 64})
    real_chat = LLM.chat

    def short_context(self, messages, *args, **kwargs):
        for conversation in messages:
            if sum(m["role"] == "assistant" for m in conversation) >= 2 and self.engine_options["max_model_len"] < 100:
                raise VLLMValidationError("prompt is longer than the maximum model length of 64")
        return real_chat(self, messages, *args, **kwargs)

    monkeypatch.setattr(LLM, "chat", short_context)
    summary = run(config, tmp_path)
    assert summary.statuses == {"running": 2} and list(summary.faults) == ["context_overflow"]
    summary = run(None, tmp_path, resume=True, changes={"agent_options": {"max_model_len": 4096}})
    assert summary.ok and LLM.instances[-1].engine_options == {"max_model_len": 4096}
    with open_store(tmp_path) as store:
        assert store.config_changes() == [{"agent_options.max_model_len": [64, 4096]}]
        assert all(e["success"] for e in store.episodes())
