"""GRPO on cogsim rollouts, on the CPU: each step plays a group of episodes of one training seed
through cogsim's verifiers taskset against the weights being trained, and moves the weights toward
the episodes that scored above the group's mean. The mean reward on held-out seeds, greedy, is
measured before the first step and every ``--eval-every`` steps: OUT/curve.json and OUT/curve.png.

    python examples/grpo.py --model FOLDER --out runs/grpo [--env cube/move-effect] [--steps 30] [--group 8]
        [--prompts 1]

FOLDER is a transformers chat model folder: best a model that scores sometimes, so that a group's
episodes score apart from the first step (a group that scores alike has no advantage to learn
from): ``examples/sft.py``'s OUT/model, or any model on a suite with partial credit. The default
suite, cube/move-effect at depth 1 (text), has both: the episode's reward is the share of its four
labels that are right. Any single-seat text env id works (``--env``, ``--env-option KEY=VALUE``);
multi-turn envs must keep every turn in their prompts (history "full", as WILT and Matching Pairs do).

- Rollouts: ``cogsim_verifiers`` (the taskset the verifiers CLI runs) drives each episode, the model
  answers through an OpenAI-compatible endpoint served from this process (``policy.PolicyServer``:
  the group's requests sampled as one batch, their shared prompt run once). Every finished episode
  is appended to OUT/rollouts.jsonl and synced before the step uses it: a crash loses no rollout.
- A step's batch is ``--prompts`` training seeds, each played ``--group`` times (one group per seed).
- Update: advantage = (reward - group mean) / group std within each group, every token the model wrote
  weighted by its episode's advantage, averaged over the batch's tokens (one on-policy step, so the
  ratio of GRPO's clipped objective is 1 and its gradient is the policy gradient below); no KL term.
  A group that scored alike adds nothing (its advantages are all zero); a step whose groups all did is
  skipped. LoRA on the top layers, as in ``sft.py``.
- OUT/steps.jsonl: per step the seeds, rewards and advantages (group by group, in the seeds' order),
  loss, gradient norm and how far the weights moved; OUT/model: the final weights, merged.

Why not TRL's GRPOTrainer: it runs every episode of a group whole, while here the prompt is most of
each sequence and the same for the whole group (cube/move-effect: about 520 prompt tokens before a
42-token answer), so running it once per group leaves a fraction of the work. verifiers 0.4 has no
trainer of its own (it trains through prime-rl, which needs GPUs).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import threading
import time
from pathlib import Path

import torch
import verifiers.v1 as vf
from policy import PolicyServer, add_lora, chat_tokens, save_merged, set_threads, token_logprobs
from transformers import AutoModelForCausalLM, AutoTokenizer
from verifiers.v1.dialects.chat import message_to_wire

from cogsim.harness.config import parse_option_values
from cogsim.integrations.verifiers import load_environment

TRAIN_SEED = 1_000_000  # held-out evaluation uses seeds 0, 1, ...: never trained on
KEY_VARIABLE = "COGSIM_POLICY_KEY"


class RolloutLog:
    """rollouts.jsonl: one line per finished episode, written and synced before the step uses it."""

    def __init__(self, path: Path):
        self.path, self.lock = path, threading.Lock()

    def append(self, step: int, episode: vf.Episode) -> None:
        (trace,) = episode.traces
        line = json.dumps(
            {"step": step, "seed": trace.task.data.seed, "ok": episode.ok, "trace": trace.model_dump(mode="json")}
        )
        with self.lock, self.path.open("a") as file:
            file.write(line + "\n")
            file.flush()
            os.fsync(file.fileno())


def conversation(trace: vf.Trace) -> list[dict]:
    """The episode as one chat: the system prompt, then every turn. A multi-turn episode must keep
    every turn in its prompts, so that its last request holds the whole conversation."""
    record = trace.info["cogsim"]
    if record["turns"] > 1 and record["history"] != "full":
        raise ValueError("multi-turn episodes must keep every turn in their prompts (history full)")
    system = [{"role": "system", "content": trace.task.data.system_prompt}] if trace.task.data.system_prompt else []
    return system + [message_to_wire(node.message) for node in trace.nodes]


async def play(env, tasks: list, server: PolicyServer, sampling: vf.SamplingConfig, log=None, step=0) -> list:
    """Every task once, all in flight together; the traces in order. A failed episode is a bug here
    (the policy server is this process), never a reward."""
    client = vf.EvalClientConfig(base_url=server.url, api_key_var=KEY_VARIABLE)
    context = vf.ModelContext(model="policy", client=client, sampling=sampling)

    async def one(task) -> vf.Trace:
        episode = await env.run_episode(task, context)
        if log is not None:
            log.append(step, episode)
        if not episode.ok:
            raise RuntimeError(f"seed {task.data.seed}: {[e.message for t in episode.traces for e in t.errors]}")
        return episode.traces[0]

    async with env.serving():
        return await asyncio.gather(*(one(task) for task in tasks))


def held_out_reward(model, tokenizer, env, args) -> dict:
    """The greedy policy's mean episode reward on the held-out seeds, with a 95% interval."""
    from cogsim.metrics import mean_ci

    model.eval()
    server = PolicyServer(model, tokenizer, seed=0)
    try:
        sampling = vf.SamplingConfig(temperature=0.0, max_tokens=args.max_tokens)
        traces = asyncio.run(play(env, list(env.taskset), server, sampling))
    finally:
        server.close()
    model.train()
    estimate = mean_ci([t.reward for t in traces], bounds=(0.0, 1.0))
    return {"mean": estimate.value, "low": estimate.low, "high": estimate.high, "episodes": len(traces)}


def group_advantages(rewards: list) -> list:
    """(reward - the group's mean) / the group's standard deviation; all 0 when the group scored alike."""
    mean, spread = statistics.fmean(rewards), statistics.pstdev(rewards)
    return [(r - mean) / spread if spread > 0 else 0.0 for r in rewards]


def canonical_order(traces: list, group: int) -> list:
    """Each group's episodes sorted by what the model wrote. Which of a group's requests got which
    reply is a matter of arrival; the update must not be, since Adam's first steps move every weight
    by about the learning rate whatever the size of its gradient, so that the last bits of a sum
    taken in another order would change the model."""

    def written(trace) -> str:
        return json.dumps(conversation(trace), sort_keys=True)

    return [t for start in range(0, len(traces), group) for t in sorted(traces[start : start + group], key=written)]


def grpo_step(model, tokenizer, optimizer, traces: list, args) -> dict:
    """One policy-gradient step on a batch of groups (``args.group`` episodes of one seed each, in
    order); nothing when every group scored alike."""
    traces = canonical_order(traces, args.group)
    rewards = [t.reward for t in traces]
    advantages = [
        a for start in range(0, len(rewards), args.group) for a in group_advantages(rewards[start : start + args.group])
    ]
    entry = {
        "rewards": rewards,
        "reward_mean": statistics.fmean(rewards),
        "reward_std": statistics.pstdev(rewards),
        "advantages": advantages,
    }
    if not any(advantages):
        return {**entry, "loss": 0.0, "grad_norm": 0.0, "weight_change": 0.0, "updated": False}
    rows, targets = zip(*(chat_tokens(tokenizer, conversation(t)) for t in traces))
    logprobs = token_logprobs(model, rows, targets, tokenizer.pad_token_id or 0)
    tokens = sum(len(lp) for lp in logprobs)
    loss = -sum(a * lp.sum() for a, lp in zip(advantages, logprobs)) / tokens
    loss.backward()
    params = [p for p in model.parameters() if p.requires_grad]
    before = [p.detach().clone() for p in params]
    grad_norm = torch.nn.utils.clip_grad_norm_(params, 1.0).item()
    optimizer.step()
    optimizer.zero_grad()
    change = torch.sqrt(sum(((p.detach() - b) ** 2).sum() for p, b in zip(params, before))).item()
    return {**entry, "loss": loss.item(), "grad_norm": grad_norm, "weight_change": change, "updated": True}


def plot(curve: list[dict], steps: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 3.6))
    x = [point["step"] for point in curve]
    axes.fill_between(x, [p["low"] for p in curve], [p["high"] for p in curve], alpha=0.2, label="95% interval")
    axes.plot(x, [p["mean"] for p in curve], marker="o", label="held-out seeds, greedy")
    axes.plot([s["step"] for s in steps], [s["reward_mean"] for s in steps], alpha=0.5, label="training group, sampled")
    axes.set_xlabel("GRPO step")
    axes.set_ylabel("mean episode reward")
    axes.set_ylim(0, 1)
    axes.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a transformers chat model folder")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--env", default="cube/move-effect")
    parser.add_argument("--env-option", action="append", metavar="KEY=VALUE", help="default: depth=1")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--group", type=int, default=8, help="episodes of one seed (GRPO's group)")
    parser.add_argument("--prompts", type=int, default=1, help="training seeds per step, a group each")
    parser.add_argument("--eval-every", type=int, default=10)
    parser.add_argument("--eval-episodes", type=int, default=48)
    parser.add_argument("--temperature", type=float, default=1.0, help="sampling temperature of the rollouts")
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--learning-rate", type=float, default=2e-4)
    parser.add_argument("--lora-layers", type=int, default=8)
    parser.add_argument("--lora-rank", type=int, default=16)
    parser.add_argument("--threads", type=int, help="torch threads (default: the cores this process may use)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    options = parse_option_values(args.env_option or ["depth=1"], "--env-option")
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault(KEY_VARIABLE, "local")
    set_threads(args.threads)
    torch.manual_seed(args.seed)

    tokenizer = AutoTokenizer.from_pretrained(args.model)
    tokenizer.pad_token = tokenizer.pad_token or tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32)
    model = add_lora(model, args.lora_layers, args.lora_rank)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.learning_rate)
    train_env = load_environment(args.env, episodes=args.steps * args.prompts, seed=TRAIN_SEED, **options)
    eval_env = load_environment(args.env, episodes=args.eval_episodes, seed=0, **options)
    tasks = list(train_env.taskset)
    log, sampling = (
        RolloutLog(args.out / "rollouts.jsonl"),
        vf.SamplingConfig(temperature=args.temperature, max_tokens=args.max_tokens),
    )

    started = time.perf_counter()
    curve, steps = [{"step": 0, **held_out_reward(model, tokenizer, eval_env, args)}], []
    print(f"grpo: step 0 held-out mean reward {curve[-1]['mean']:.3f}", flush=True)
    for step in range(1, args.steps + 1):
        began = time.perf_counter()
        server = PolicyServer(model, tokenizer, seed=args.seed * 100_003 + step)
        batch = tasks[(step - 1) * args.prompts : step * args.prompts]
        try:
            with torch.no_grad():
                groups = [task for task in batch for _ in range(args.group)]
                traces = asyncio.run(play(train_env, groups, server, sampling, log, step))
        finally:
            server.close()
        rollout_s = time.perf_counter() - began
        entry = {
            "step": step,
            "seeds": [task.data.seed for task in batch],
            **grpo_step(model, tokenizer, optimizer, traces, args),
        }
        entry.update(rollout_s=round(rollout_s, 2), update_s=round(time.perf_counter() - began - rollout_s, 2))
        steps.append(entry)
        with (args.out / "steps.jsonl").open("a") as file:
            file.write(json.dumps(entry) + "\n")
        print(f"grpo: step {step} group mean {entry['reward_mean']:.3f} std {entry['reward_std']:.3f} "
              f"loss {entry['loss']:.4f} ({entry['rollout_s']}s + {entry['update_s']}s)", flush=True)  # fmt: skip
        if step % args.eval_every == 0 or step == args.steps:
            curve.append({"step": step, **held_out_reward(model, tokenizer, eval_env, args)})
            print(f"grpo: step {step} held-out mean reward {curve[-1]['mean']:.3f}", flush=True)
    summary = {"env": args.env, "options": options, "group": args.group, "prompts": args.prompts, "curve": curve}
    summary["seconds"] = round(time.perf_counter() - started, 1)
    (args.out / "curve.json").write_text(json.dumps(summary, indent=1) + "\n")
    plot(curve, steps, args.out / "curve.png")
    save_merged(model, tokenizer, args.out / "model")
    print(f"grpo: {args.steps} steps in {summary['seconds']}s; curve in {args.out / 'curve.png'}")


if __name__ == "__main__":
    main()
