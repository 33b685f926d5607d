"""End to end on the CPU: ``examples/sft.py`` fine-tunes SmolLM2-135M (the e2e stage's converted
folder) on cogsim's SFT export of oracle rollouts of cube/move-effect, and ``cogsim run`` with the
``vllm:`` backend scores the tuned model beside the untuned one and the random agent on held-out
seeds: the tuned model's 95% interval must lie above the untuned model's and the random agent's.
The examples' shared-prefix forward must give the numbers of running every row whole. Needs ``bash
scripts/setup_e2e.sh``; run with ``pytest -q -m e2e``."""

import importlib
import json
import sys

import pytest

from e2e.conftest import EXAMPLES

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def example_module(name: str):
    """A module of the examples folder (its scripts import one another by plain name)."""
    sys.path.insert(0, str(EXAMPLES))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(EXAMPLES))


def test_shared_prefix_forward_and_sampling_match_whole_rows():
    pytest.importorskip("peft", reason="peft is not installed: run scripts/setup_e2e.sh")
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from e2e.test_vllm_loop import smollm2_folder

    policy = example_module("policy")
    Sampling, add_lora, chat_tokens, generate = policy.Sampling, policy.add_lora, policy.chat_tokens, policy.generate
    row_generator, token_logprobs = policy.row_generator, policy.token_logprobs
    folder = smollm2_folder()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    # float64: a batch's matrix products round differently from a single row's, and in float32 that
    # moves a sampled token across its neighbour's boundary in about 1 of 10 replies of 24 tokens
    # (13 of 120 measured); in float64, 0 of 120. The test is about whose draws a row uses.
    model = add_lora(AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float64), layers=4, rank=8)
    torch.manual_seed(0)
    for name, weight in model.named_parameters():
        if "lora_B" in name:  # adapters that change the numbers, as after training
            torch.nn.init.normal_(weight, std=0.02)
    chats = [("What is 2+2?", "Four."), ("What is 2+2?", "It is 4, of course."), ("Name a colour.", "Blue")]
    system = {"role": "system", "content": "Answer briefly."}
    encoded = [
        chat_tokens(tokenizer, [system, {"role": "user", "content": q}, {"role": "assistant", "content": a}])
        for q, a in chats
    ]
    rows, targets = [ids for ids, _ in encoded], [t for _, t in encoded]
    shared = token_logprobs(model, rows, targets, pad_id=0)
    with torch.no_grad():
        for row, wanted, got in zip(rows, targets, shared):
            logits = model(torch.tensor([row])).logits[0].float()
            whole = torch.log_softmax(logits, -1)[torch.tensor(wanted) - 1, torch.tensor([row[t] for t in wanted])]
            assert torch.allclose(got, whole, atol=1e-4), (got, whole)
    torch.cat(shared).sum().backward()  # the gradient reaches the adapters through the shared prefix
    assert all(w.grad is not None and w.grad.abs().sum() > 0 for w in model.parameters() if w.requires_grad)
    prompts = [rows[0][: targets[0][0]], rows[2][: targets[2][0]], rows[1][: targets[1][0] - 3]]
    stop = {tokenizer.eos_token_id}
    replies = generate(model, prompts, Sampling(temperature=0.0, max_tokens=12), stop, 0, [None] * 3)
    for prompt, reply in zip(prompts, replies):  # greedy, batched with ragged prompts = greedy alone
        alone = model.generate(torch.tensor([prompt]), max_new_tokens=12, do_sample=False, pad_token_id=0)
        alone = alone[0, len(prompt) :].tolist()
        assert reply == (alone[: alone.index(tokenizer.eos_token_id)] if tokenizer.eos_token_id in alone else alone)
    # sampled: a request's reply is its own draws', whichever requests share its batch
    hot = Sampling(temperature=1.5, max_tokens=24)
    batched = generate(model, prompts, hot, stop, 0, [row_generator(7, p, 0) for p in prompts])
    for prompt, reply in zip(prompts, batched):
        assert generate(model, [prompt], hot, stop, 0, [row_generator(7, prompt, 0)]) == [reply]
    again = generate(model, prompts[:1] * 2, hot, stop, 0, [row_generator(7, prompts[0], k) for k in range(2)])
    assert again[0] == batched[0] and again[1] != again[0]  # the same prompt's next request draws anew


def test_each_row_samples_its_own_distribution():
    pytest.importorskip("peft", reason="peft is not installed: run scripts/setup_e2e.sh")
    import torch

    sample_rows = example_module("policy").sample_rows
    probs = torch.tensor([[0.5, 0.3, 0.2, 0.0], [0.0, 0.0, 0.1, 0.9]])
    generators = [torch.Generator().manual_seed(1), torch.Generator().manual_seed(2)]
    draws = torch.stack([sample_rows(probs, generators) for _ in range(20_000)])
    for row in range(2):
        counts = torch.bincount(draws[:, row], minlength=4).double()
        expected = probs[row].double() * len(draws)
        assert counts[probs[row] == 0].sum() == 0  # a token of probability 0 is never drawn
        kept = expected > 0
        chi2 = (((counts - expected)[kept] ** 2) / expected[kept]).sum().item()
        assert chi2 < 16.3, (counts, expected)  # chi-square, 3 degrees of freedom at most: p < 0.001


def test_the_answer_weight_falls_where_the_replies_part_ways():
    from transformers import AutoTokenizer

    from e2e.test_vllm_loop import smollm2_folder

    chat_tokens, answer_indices = example_module("policy").chat_tokens, example_module("sft").answer_indices
    tokenizer = AutoTokenizer.from_pretrained(smollm2_folder())

    def picked(replies: list[str]) -> list[list[str]]:
        chats = [[{"role": "user", "content": "Go."}, {"role": "assistant", "content": r}] for r in replies]
        examples = [chat_tokens(tokenizer, chat) for chat in chats]
        answers = answer_indices(tokenizer, examples)
        return [[tokenizer.decode([ids[targets[i]]]) for i in at] for (ids, targets), at in zip(examples, answers)]

    # line 1: the labels part ways after "<A>"; line 2 is the same in every reply: no weight there
    labelled = picked(["<A> INCREASE </A>\n<B> DECREASE </B>", "<A> NO_CHANGE </A>\n<B> DECREASE </B>"])
    assert labelled == [[" IN"], [" NO"]], labelled
    assert picked(["B", "C", "B"]) == [["B"], ["C"], ["B"]]


def test_sft_lifts_the_score_above_the_untuned_model(sft_run, figures):
    out = sft_run["out"]
    result = json.loads((out / "summary.json").read_text())
    records = (out / "sft.jsonl").read_text().splitlines()
    assert result["train_examples"] == len(records) > 0
    seeds = {json.loads(line)["seed"] for line in records}
    assert min(seeds) >= 1_000_000  # trained on seeds the evaluation never uses
    agents = result["agents"]
    figures.append(  # printed whether or not the lift below holds
        f"examples/sft.py, defaults ({result['train_examples']} examples): {sft_run['seconds']:.0f} s "
        + f"{result['timings']}; "
        + ", ".join(f"{name} {a['mean']:.3f} [{a['low']:.3f}, {a['high']:.3f}]" for name, a in agents.items())
    )
    assert {name: agents[name]["episodes"] for name in agents} == {"random": 200, "untuned": 200, "tuned": 200}
    tuned = agents["tuned"]
    # At this size (256 steps of 4) the tuned model's interval lies above both others' (docs/guides/
    # train.md has the runs); a few dozen steps teach only the answer format and the labels' prior.
    assert tuned["low"] > agents["untuned"]["high"], agents
    assert tuned["low"] > agents["random"]["high"], agents
    assert result["tuned_above_both"]
    report = (out / "eval" / "report.md").read_text()
    assert "Causal move-effect" in report and report.count("vllm:") >= 2
