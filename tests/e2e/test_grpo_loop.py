"""End to end, rollout to update on the CPU: ``examples/grpo_wilt.py`` trains SmolLM2-135M (the e2e
stage's converted folder) for two GRPO steps on wilt/lite with TRL, every episode played through
cogsim's verifiers taskset. The rewards TRL logs must be the cogsim rewards of the recorded rollouts
(and each the reward cogsim gives the recorded replies), a step whose group scored apart must move
the weights (and only such a step: a group that scored alike has no advantage to learn from), and a
run killed mid-way must keep every rollout it finished. Needs ``bash
scripts/setup_e2e.sh``; run with ``pytest -q -m e2e``."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cogsim.integrations.episode import Episode, EpisodeSpec
from e2e.test_vllm_loop import smollm2_folder

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "grpo_wilt.py"
STEPS, GROUP, MAX_ATTEMPTS = 2, 4, 1


def grpo(folder: Path, out: Path) -> subprocess.Popen:
    pytest.importorskip("trl", reason="TRL is not installed: run scripts/setup_e2e.sh")
    command = [sys.executable, str(SCRIPT), "--model", str(folder), "--out", str(out), "--steps", str(STEPS)]
    command += ["--group", str(GROUP), "--max-attempts", str(MAX_ATTEMPTS), "--max-tokens", "24"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRL_EXPERIMENTAL_SILENCE": "1"}
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)


def rollouts(out: Path) -> list[dict]:
    path = out / "rollouts.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def replayed_reward(trace: dict) -> float:
    data = trace["task"]["data"]
    episode = Episode(EpisodeSpec(data["env_id"], data["options"]), data["seed"])
    for node in trace["nodes"]:
        if node["sampled"]:
            episode.step(node["message"]["content"])
    assert episode.finished
    return episode.total_reward


def weights(folder: Path) -> dict:
    from safetensors.torch import load_file

    tensors = {}
    for file in sorted(folder.glob("*.safetensors")):
        tensors.update(load_file(file))
    return tensors


def test_a_few_grpo_steps_on_cogsim_rollouts(tmp_path):
    folder = smollm2_folder()
    process = grpo(folder, tmp_path)
    output, _ = process.communicate(timeout=1800)
    assert process.returncode == 0, output[-4000:]
    recorded = rollouts(tmp_path)
    assert len(recorded) == STEPS * GROUP and all(r["ok"] for r in recorded)
    for rollout in recorded:  # the reward is cogsim's for the replies the model gave
        trace = rollout["trace"]
        assert trace["rewards"]["episode_reward"]["score"] == replayed_reward(trace)
        assert trace["info"]["cogsim"]["max_attempts"] == MAX_ATTEMPTS
    logged = [entry for entry in json.loads((tmp_path / "log_history.json").read_text()) if "loss" in entry]
    assert len(logged) == STEPS
    for step, entry in enumerate(logged):  # TRL trained on those rewards
        mine = [r["trace"] for r in recorded if r["step"] == step]
        mean = sum(t["rewards"]["episode_reward"]["score"] for t in mine) / len(mine)
        records = [t["info"]["cogsim"] for t in mine]
        agreement = sum(r.get("agreement") or 0.0 for r in records) / len(mine)
        parsed = sum(1 - r["parse_failures"] / max(1, r["turns"]) for r in records) / len(mine)
        assert entry["rewards/cogsim_reward/mean"] == pytest.approx(mean)
        assert entry["rewards/cogsim_agreement/mean"] == pytest.approx(agreement)
        assert entry["rewards/cogsim_format/mean"] == pytest.approx(parsed)
    # GRPO learns only from a group that scored apart (advantages are rewards less the group's mean):
    # such a step must have moved the weights, and nothing else may have.
    before, after = weights(folder), weights(tmp_path / "model")
    assert before and set(before) == set(after)
    changed = [name for name in before if name in after and not before[name].float().equal(after[name].float())]
    signal = [entry["reward_std"] > 0 for entry in logged]
    assert all(entry["grad_norm"] > 0 for entry, apart in zip(logged, signal) if apart)
    assert bool(changed) == any(signal), (signal, len(changed))


def test_a_crash_mid_run_loses_no_finished_rollout(tmp_path):
    process = grpo(smollm2_folder(), tmp_path)
    deadline = time.monotonic() + 1200
    log = tmp_path / "rollouts.jsonl"
    while (log.read_text().count("\n") if log.exists() else 0) < 2 and time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()[0][-3000:]
        time.sleep(0.5)
    os.kill(process.pid, signal.SIGKILL)  # mid-way through the first step's group
    process.communicate()
    kept = rollouts(tmp_path)  # every line whole: each rollout was written and synced as it finished
    assert 2 <= len(kept) < STEPS * GROUP and not (tmp_path / "model").exists()
    for rollout in kept:
        assert rollout["ok"] and rollout["trace"]["rewards"]["episode_reward"]["score"] == replayed_reward(
            rollout["trace"]
        )
