"""The training examples end to end at a size CI's e2e stage affords (minutes, not the half hour of
``pytest -m train``): ``examples/sft.py`` (oracle rollouts, SFT export, LoRA training of
SmolLM2-135M, the merged model, ``cogsim run`` of the random agent and both models with the
``vllm:`` backend, the summary), then ``examples/grpo.py`` from the model it wrote (held-out curve,
groups played through the verifiers taskset, updates). Whether a score rises is for the full sizes
(docs/guides/train.md); here every stage must run and write what the guide says, the summary must be
the store's figures, and every reward GRPO learned from must be the one cogsim gives the recorded
replies. Needs ``bash scripts/setup_e2e.sh``; run with ``pytest -q -m e2e``."""

import json
import time

import pytest

from cogsim.metrics import mean_ci
from cogsim.store.sqlite import open_store
from e2e.conftest import example, finished
from e2e.test_grpo_loop import replayed_reward, rollouts

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TRAIN_EPISODES, BATCH, EVAL_EPISODES = 16, 8, 8
GRPO_STEPS, GROUP = 2, 2


def test_sft_then_grpo_run_end_to_end(tmp_path):
    pytest.importorskip("peft", reason="peft is not installed: run scripts/setup_e2e.sh")
    from e2e.test_vllm_loop import smollm2_folder

    folder = smollm2_folder()
    started = time.perf_counter()
    sft_size = ["--train-episodes", str(TRAIN_EPISODES), "--batch", str(BATCH), "--eval-episodes", str(EVAL_EPISODES)]
    sft_out = tmp_path / "sft"
    finished(example("sft.py", "--model", str(folder), "--out", str(sft_out), *sft_size), timeout=1800)
    sft_seconds = time.perf_counter() - started

    summary = json.loads((sft_out / "summary.json").read_text())
    records = [json.loads(line) for line in (sft_out / "sft.jsonl").read_text().splitlines()]
    assert summary["train_examples"] == len(records) == TRAIN_EPISODES
    assert min(r["seed"] for r in records) >= 1_000_000  # training seeds never overlap the held-out 0..N-1
    log = json.loads((sft_out / "train_log.json").read_text())
    assert [entry["step"] for entry in log] == [1, 2] and all(entry["loss"] > 0 for entry in log)
    assert (sft_out / "model" / "config.json").is_file()
    agents = summary["agents"]
    assert {name: a["episodes"] for name, a in agents.items()} == dict.fromkeys(
        ("random", "untuned", "tuned"), EVAL_EPISODES
    )
    with open_store(sft_out / "eval") as store:  # the summary's figures are the store's
        episodes = store.episodes()
    for agent in agents.values():
        rewards = [e["total_reward"] for e in episodes if e["agent"] == agent["agent"]]
        assert sorted(e["seed"] for e in episodes if e["agent"] == agent["agent"]) == list(range(EVAL_EPISODES))
        estimate = mean_ci(rewards, bounds=(0.0, 1.0))
        assert (agent["mean"], agent["low"], agent["high"]) == pytest.approx(
            (estimate.value, estimate.low, estimate.high)
        )
    assert (sft_out / "eval" / "report.md").read_text().count("vllm:") >= 2

    grpo_out = tmp_path / "grpo"
    started = time.perf_counter()
    grpo_size = ["--steps", str(GRPO_STEPS), "--group", str(GROUP), "--eval-every", str(GRPO_STEPS)]
    grpo_args = ["--model", str(sft_out / "model"), "--out", str(grpo_out), *grpo_size, "--eval-episodes", "2"]
    finished(example("grpo.py", *grpo_args), timeout=1800)
    grpo_seconds = time.perf_counter() - started

    steps = [json.loads(line) for line in (grpo_out / "steps.jsonl").read_text().splitlines()]
    recorded = rollouts(grpo_out)
    assert [s["step"] for s in steps] == list(range(1, GRPO_STEPS + 1))
    assert len(recorded) == GRPO_STEPS * GROUP and all(r["ok"] for r in recorded)
    for entry in steps:  # what each step learned from is cogsim's reward for the replies the model gave
        mine = [r["trace"] for r in recorded if r["step"] == entry["step"]]
        assert [t["rewards"]["episode_reward"]["score"] for t in mine] == pytest.approx(entry["rewards"])
        assert all(t["rewards"]["episode_reward"]["score"] == replayed_reward(t) for t in mine)
        # an update exactly when the group scored apart
        assert entry["updated"] == any(entry["advantages"]) == (entry["weight_change"] > 0)
    curve = json.loads((grpo_out / "curve.json").read_text())["curve"]
    assert [point["step"] for point in curve] == [0, GRPO_STEPS] and all(0 <= p["mean"] <= 1 for p in curve)
    assert (grpo_out / "curve.png").stat().st_size > 0 and (grpo_out / "model" / "config.json").is_file()
    print(
        f"\nsft {sft_seconds:.0f}s ({summary['timings']}): "
        + ", ".join(f"{name} {a['mean']:.3f}" for name, a in agents.items())
        + f"; grpo {grpo_seconds:.0f}s, rewards {[s['rewards'] for s in steps]}, curve {curve}"
    )
