"""The vllm: backend on a tiny randomly initialised Llama saved with its own tokenizer: exercises
the engine path (batched chat, sampling options, token counts) on a GPU. Skipped without vLLM or
a GPU; the answers are noise, so the checks are about the loop, not the model."""

import pytest

import loop_envs  # noqa: F401

vllm = pytest.importorskip("vllm")
torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("vLLM backend test needs a GPU", allow_module_level=True)

from cogsim.harness import RunConfig, Task, run  # noqa: E402
from cogsim.store import open_store  # noqa: E402

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{% if m['content'] is string %}{{ m['content'] }}"
    "{% else %}{% for p in m['content'] %}{% if p['type'] == 'text' %}{{ p['text'] }}{% endif %}{% endfor %}{% endif %}"
    "{% endfor %}<|assistant|>"
)


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
    config = LlamaConfig(
        vocab_size=fast.vocab_size,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=2048,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
    )
    torch.manual_seed(0)
    LlamaForCausalLM(config).to(torch.bfloat16).save_pretrained(path)
    return str(path)


def test_vllm_backend_runs_the_loop(tiny_model, tmp_path):
    agent_options = {"max_tokens": 8, "max_model_len": 2048, "gpu_memory_utilization": 0.3, "enforce_eager": True}
    config = RunConfig([Task("looptest/count", 4)], [f"vllm:{tiny_model}"], history="full", agent_options=agent_options)
    summary = run(config, tmp_path)
    assert summary.statuses == {"done": 4}
    with open_store(tmp_path) as store:
        rows = store.query("SELECT prompt_tokens, completion_tokens, error FROM turns")
    assert len(rows) == summary.turns >= 3 + 4 + 5 + 6  # targets 3..6, budgets 2N
    assert all(p > 0 and 0 < c <= 8 and e is None for p, c, e in rows)
