"""A few GRPO steps of a small chat model on cogsim's WILT, on the CPU: rollouts through cogsim's
verifiers taskset, updates by TRL's GRPOTrainer. A demonstration of the path, not a training recipe.

    python examples/grpo_wilt.py --model FOLDER --out runs/grpo [--steps 2] [--group 4] [--max-tokens 24]

FOLDER is a transformers model folder (the e2e stage's SmolLM2-135M: ``python -m
cogsim.agents.convert_gguf --smollm2`` prints it). Each step plays ``--group`` episodes of one
wilt/lite seed (seeds 0, 1, ... in turn, ``--max-attempts`` test cases each): the cogsim env drives
each conversation (``cogsim_verifiers``, the taskset the verifiers CLI runs) and the model answers
through an OpenAI-compatible endpoint served from this process, sampling with the weights being
trained. The rewards come from cogsim's episode record: the episode's reward (1 for a correct
guess), weighted 1; the guess's agreement with the hidden rule on cogsim's points (0 without a
guess), weighted ``--agreement-weight``; and the share of replies the benchmark's parser accepted,
weighted ``--format-weight``: the two shaping terms let a group of small-model episodes, which almost
never guess right, still score apart (a group that scores all alike teaches nothing). Every episode is appended to
OUT/rollouts.jsonl (and synced) as it finishes, so a crash loses no finished rollout; the trained
model is saved to OUT/model.

Why TRL: verifiers 0.4 has no trainer of its own (it trains through prime-rl, which needs GPUs and
vLLM's weight updates), while TRL's GRPOTrainer runs on a CPU and takes the rollouts from outside
(``rollout_func``), whole multi-turn episodes included (``env_mask`` marks the model's tokens).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import torch
import verifiers.v1 as vf
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import GRPOConfig, GRPOTrainer
from verifiers.v1.dialects.chat import message_to_wire

from cogsim.integrations.verifiers import load_environment

ENV_ID = "wilt/lite"
SEED_LABEL = re.compile(r"cogsim wilt/lite seed (\d+)")


class PolicyServer:
    """OpenAI-compatible chat completions on loopback, sampled from ``model`` as it is now."""

    def __init__(self, model, tokenizer, seed: int):
        self.model, self.tokenizer, self.lock = model, tokenizer, threading.Lock()
        self.generator = torch.Generator().manual_seed(seed)
        policy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                payload = json.dumps(policy.complete(body)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def complete(self, body: dict) -> dict:
        ids = self.tokenizer.apply_chat_template(body["messages"], add_generation_prompt=True, return_tensors="pt")
        ids = ids["input_ids"] if not torch.is_tensor(ids) else ids
        temperature = float(body.get("temperature") or 1.0)
        with self.lock, torch.no_grad():
            torch.manual_seed(int(torch.randint(0, 2**31, (1,), generator=self.generator)))
            out = self.model.generate(
                ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=int(body.get("max_tokens") or 48),
                do_sample=temperature > 0,
                temperature=temperature if temperature > 0 else None,
                top_p=None,
                top_k=None,
                pad_token_id=self.tokenizer.pad_token_id,
            )
        new = out[0, ids.shape[1] :]
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        usage = {"prompt_tokens": ids.shape[1], "completion_tokens": len(new), "total_tokens": ids.shape[1] + len(new)}
        choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        return {
            "id": "cmpl",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body["model"],
            "choices": [choice],
            "usage": usage,
        }

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class RolloutLog:
    """rollouts.jsonl: one line per finished episode, written and synced before the next step uses it."""

    def __init__(self, path: Path):
        self.path = path
        self.lock = threading.Lock()

    def append(self, step: int, episode: vf.Episode) -> None:
        (trace,) = episode.traces
        line = json.dumps(
            {"step": step, "seed": trace.task.data.seed, "ok": episode.ok, "trace": trace.model_dump(mode="json")}
        )
        with self.lock, self.path.open("a") as file:
            file.write(line + "\n")
            file.flush()
            os.fsync(file.fileno())


def episode_tokens(tokenizer, trace: vf.Trace) -> tuple[list[int], list[int], list[int]]:
    """The episode as one sequence: the first prompt's tokens, then everything after it, with a mask
    that is 1 on the model's replies and 0 on what the env said. WILT keeps the full history, so the
    last request holds every earlier turn."""
    if trace.info["cogsim"]["history"] != "full":
        raise ValueError("this example trains on episodes whose prompts keep every turn (history full)")
    system = [{"role": "system", "content": trace.task.data.system_prompt}] if trace.task.data.system_prompt else []
    conversation = system + [message_to_wire(node.message) for node in trace.nodes]
    render = lambda messages, **kw: tokenizer.apply_chat_template(messages, tokenize=False, **kw)
    first = next(i for i, m in enumerate(conversation) if m["role"] == "assistant")
    prompt_text, full_text = render(conversation[:first], add_generation_prompt=True), render(conversation)
    replies = []  # character spans of the model's replies in full_text
    for i, message in enumerate(conversation):
        if message["role"] == "assistant":
            start, end = len(render(conversation[:i], add_generation_prompt=True)), len(render(conversation[: i + 1]))
            replies.append((start, end))
    if not full_text.startswith(prompt_text):
        raise ValueError("the chat template does not render the conversation as a growing prefix")
    encoded = tokenizer(full_text, add_special_tokens=False, return_offsets_mapping=True)
    ids, offsets = encoded["input_ids"], encoded["offset_mapping"]
    cut = sum(1 for _, end in offsets if end <= len(prompt_text))
    mask = [int(any(s <= start and end <= e for s, e in replies)) for start, end in offsets[cut:]]
    return ids[:cut], ids[cut:], mask


def make_rollout_func(env, log: RolloutLog, max_tokens: int):
    tasks = {task.data.seed: task for task in env.taskset}

    def rollout_func(prompts: list, trainer) -> dict:
        seeds = [int(SEED_LABEL.search(prompt[-1]["content"]).group(1)) for prompt in prompts]
        server = PolicyServer(trainer.model, trainer.processing_class, seed=trainer.state.global_step)
        client = vf.EvalClientConfig(base_url=server.url, api_key_var="COGSIM_POLICY_KEY")
        context = vf.ModelContext(
            model="policy", client=client, sampling=vf.SamplingConfig(temperature=1.0, max_tokens=max_tokens)
        )
        step = trainer.state.global_step

        async def play(seed: int) -> vf.Episode:
            episode = await env.run_episode(tasks[seed], context)
            log.append(step, episode)
            if not episode.ok:  # the policy server is in this process: a fault here is a bug, never a reward
                raise RuntimeError(f"seed {seed}: {[e.message for t in episode.traces for e in t.errors]}")
            return episode

        async def play_all() -> list[vf.Episode]:
            async with env.serving():
                return await asyncio.gather(*(play(seed) for seed in seeds))

        try:
            traces = [episode.traces[0] for episode in asyncio.run(play_all())]
        finally:
            server.close()
        prompt_ids, completion_ids, env_mask = zip(*(episode_tokens(trainer.processing_class, t) for t in traces))
        return {
            "prompt_ids": list(prompt_ids),
            "completion_ids": list(completion_ids),
            "env_mask": list(env_mask),
            "logprobs": None,  # the trainer computes the sampling policy's log-probabilities itself
            "cogsim_reward": [t.reward for t in traces],
            "cogsim_agreement": [float(t.info["cogsim"].get("agreement") or 0.0) for t in traces],
            "cogsim_format": [parsed_share(t.info["cogsim"]) for t in traces],
        }

    return rollout_func


def cogsim_reward(prompts, completions, cogsim_reward, **kwargs) -> list[float]:
    return list(cogsim_reward)


def cogsim_agreement(prompts, completions, cogsim_agreement, **kwargs) -> list[float]:
    return list(cogsim_agreement)


def cogsim_format(prompts, completions, cogsim_format, **kwargs) -> list[float]:
    return list(cogsim_format)


def parsed_share(record: dict) -> float:
    """The share of the model's replies that WILT's parser read as an action."""
    return 1.0 - record["parse_failures"] / max(1, record["turns"])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a transformers model folder")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--group", type=int, default=4, help="episodes per seed and step (GRPO's group)")
    parser.add_argument("--max-tokens", type=int, default=24)
    parser.add_argument("--max-attempts", type=int, default=1, help="WILT test cases per episode")
    parser.add_argument("--agreement-weight", type=float, default=0.5)
    parser.add_argument("--format-weight", type=float, default=0.1)
    parser.add_argument("--learning-rate", type=float, default=1e-5)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("COGSIM_POLICY_KEY", "local")
    torch.manual_seed(0)

    tokenizer = AutoTokenizer.from_pretrained(args.model)
    tokenizer.pad_token = tokenizer.pad_token or tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32)
    env = load_environment(ENV_ID, episodes=args.steps, max_attempts=args.max_attempts)
    prompts = [[{"role": "user", "content": f"cogsim {ENV_ID} seed {seed}"}] for seed in range(args.steps)]
    config = GRPOConfig(
        output_dir=str(args.out / "trainer"),
        use_cpu=True,
        max_steps=args.steps,
        per_device_train_batch_size=args.group,
        num_generations=args.group,
        learning_rate=args.learning_rate,
        beta=0.0,  # no reference model: a demonstration keeps to one copy of the weights
        gradient_checkpointing=False,  # a small model: keep the KV cache for the policy server's sampling
        reward_weights=[1.0, args.agreement_weight, args.format_weight],
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        shuffle_dataset=False,
        seed=0,
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=[cogsim_reward, cogsim_agreement, cogsim_format],
        args=config,
        train_dataset=Dataset.from_list([{"prompt": p} for p in prompts]),
        rollout_func=make_rollout_func(env, RolloutLog(args.out / "rollouts.jsonl"), args.max_tokens),
    )
    trainer.train()
    with (args.out / "log_history.json").open("w") as file:
        json.dump(trainer.state.log_history, file, indent=1)
    trainer.save_model(str(args.out / "model"))
    print(f"grpo_wilt: {args.steps} steps; rollouts in {args.out / 'rollouts.jsonl'}, model in {args.out / 'model'}")


if __name__ == "__main__":
    main()
