"""The vllm: backend on the real engine, CPU or GPU, with a tiny randomly initialised Llama saved with
its own tokenizer: the engine path (batched requests, sampling options, token counts and finish
reasons), context overflow per ``on_overflow`` and a resume that raises ``max_model_len``, and the
start-up errors. The answers are noise, so the checks are about the loop, not the model
(tests/e2e/test_vllm_loop.py runs a real one). Needs vLLM (``bash scripts/setup_e2e.sh``), so it
runs in CI's e2e stage."""

import pytest

import loop_envs  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

vllm = pytest.importorskip("vllm", reason="vLLM is not installed: run scripts/setup_e2e.sh")
torch = pytest.importorskip("torch")

from cogsim.agents import Message, make_agent  # noqa: E402
from cogsim.harness import RunConfig, Task, run  # noqa: E402
from cogsim.store import open_store  # noqa: E402

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{% if m['content'] is string %}{{ m['content'] }}"
    "{% else %}{% for p in m['content'] %}{% if p['type'] == 'text' %}{{ p['text'] }}{% endif %}{% endfor %}{% endif %}"
    "{% endfor %}<|assistant|>"
)


def engine_options(max_model_len: int = 2048) -> dict:
    """A small KV cache on either device, no torch.compile (a start-up of seconds, not a minute)."""
    sized = {"kv_cache_memory_bytes": 1 << 28} if not torch.cuda.is_available() else {"gpu_memory_utilization": 0.3}
    return {"max_model_len": max_model_len, "enforce_eager": True, **sized}


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("VLLM_CPU_KVCACHE_SPACE", raising=False)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    path = tmp_path_factory.mktemp("tiny-llama")
    tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel()
    corpus = ["Count from 1 to 6, one number per turn. Start.", "ANSWER: 1 2 3 4 5 6", "Said so far: Next?"] * 50
    trainer = trainers.BpeTrainer(
        vocab_size=300, special_tokens=["<unk>", "<s>", "</s>", "<|user|>", "<|system|>", "<|assistant|>"]
    )
    tokenizer.train_from_iterator(corpus, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="<unk>", bos_token="<s>", eos_token="</s>")
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(path)
    config = LlamaConfig(  # head size 64: one the CPU attention kernels take
        vocab_size=fast.vocab_size,
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
    )
    torch.manual_seed(0)
    LlamaForCausalLM(config).to(torch.bfloat16).save_pretrained(path)
    return str(path)


def test_vllm_backend_runs_the_loop(tiny_model, tmp_path):
    agent_options = {"max_tokens": 8, **engine_options()}
    config = RunConfig([Task("looptest/count", 4)], [f"vllm:{tiny_model}"], history="full", agent_options=agent_options)
    summary = run(config, tmp_path)
    assert summary.statuses == {"done": 4}
    with open_store(tmp_path) as store:
        rows = store.query("SELECT prompt_tokens, completion_tokens, finish_reason, error FROM turns")
        (description,) = store.query("SELECT description FROM backends")
    assert len(rows) == summary.turns >= 3 + 4 + 5 + 6  # targets 3..6, budgets 2N
    assert all(p > 0 and 0 < c <= 8 and f in ("stop", "length") and e is None for p, c, f, e in rows)
    assert '"backend":"vllm"' in description[0] and '"enforce_eager":true' in description[0]


def test_context_overflow_per_on_overflow_and_a_resume_that_raises_max_model_len(tiny_model, tmp_path):
    # prompts grow with the full history: about 30 tokens, then about 20 more each turn
    options = {"max_tokens": 8, **engine_options(max_model_len=64)}
    tasks = [Task("looptest/count", 2)]
    failing = run(RunConfig(tasks, [f"vllm:{tiny_model}"], history="full", agent_options=options), tmp_path / "fail")
    assert failing.statuses == {"running": 2} and list(failing.faults) == ["context_overflow"]
    resumed = run(None, tmp_path / "fail", resume=True, changes={"agent_options": engine_options(max_model_len=2048)})
    assert resumed.statuses == {"done": 2}

    config = RunConfig(tasks, [f"vllm:{tiny_model}"], history="full", agent_options=options, on_overflow="drop-oldest")
    dropping = run(config, tmp_path / "drop")
    assert dropping.statuses == {"done": 2}
    with open_store(tmp_path / "drop") as store:
        dropped = [d for (d,) in store.query("SELECT history_dropped FROM turns")]
        errors = store.query("SELECT COUNT(*) FROM turns WHERE error IS NOT NULL")
    assert max(dropped) > 0 and errors == [(0,)]


def test_engine_start_up_failures_are_one_line_errors(tiny_model, tmp_path):
    with pytest.raises(ValueError) as raised:
        make_agent(f"vllm:{tiny_model}", **{**engine_options(), "kv_cache_memory_bytes": 1 << 50})
    message = str(raised.value)
    assert "\n" not in message and "the engine did not start" in message and "memory" in message.lower()
    with pytest.raises(ValueError, match="no model folder at"):
        make_agent(f"vllm:{tmp_path / 'nowhere'}")
    backend = make_agent(f"vllm:{tiny_model}", max_tokens=4, **engine_options())  # the process is still fine
    (answer,) = backend.complete([[Message("user", "Count from 1 to 6, one number per turn. Start.")]])
    backend.close()
    assert answer.error is None and 0 < answer.completion_tokens <= 4
