"""End to end with a real model (SmolLM2-135M behind llama.cpp's OpenAI-compatible server): cogsim
tasks run by ``inspect eval`` through inspect's OpenAI-compatible provider, and a cogsim env run by ``vf-eval``.
Each log is read back with the tool's own reader, and the replies the model gave are played again
into a cogsim env: the rewards must be the ones the tool recorded. A text-only model shown images
(KidGym's frames) ends as errored samples, never as scored answers. Needs ``scripts/setup_e2e.sh``."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from cogsim.integrations.episode import Episode, EpisodeSpec
from e2e.test_llamacpp_loop import LlamaServer

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

BIN = Path(sys.executable).parent
MODEL = "openai-api/llamacpp/smollm2"


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    server = LlamaServer(tmp_path_factory.mktemp("llama") / "server.log")
    yield server
    server.kill()


def model_env(llama) -> dict:
    """inspect's OpenAI-compatible provider (openai-api/llamacpp/MODEL) reads LLAMACPP_BASE_URL and _API_KEY."""
    return {**os.environ, "LLAMACPP_BASE_URL": llama.url, "LLAMACPP_API_KEY": "local", "COGSIM_E2E_KEY": "local"}


def replayed_reward(env_id: str, options: dict, seed: int, replies: list[str]) -> float:
    """The reward cogsim gives the same replies, in order, for the same episode."""
    episode = Episode(EpisodeSpec(env_id, options), seed)
    for reply in replies:
        episode.step(reply)
    assert episode.finished
    return episode.total_reward


def inspect_eval(llama, tmp_path, task: str, *args: str):
    log_dir = tmp_path / task.replace("/", "_")
    command = [str(BIN / "inspect"), "eval", task, "--model", MODEL, "--log-dir", str(log_dir)]
    command += ["--display", "plain", "--max-tokens", "48", "--max-connections", "1", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, env=model_env(llama))
    (log,) = sorted(log_dir.glob("*.eval"))
    return done, read_eval_log(str(log))


def test_inspect_eval_of_wilt_against_the_real_model(llama, tmp_path):
    options = {"max_attempts": 3}
    done, log = inspect_eval(llama, tmp_path, "cogsim/wilt_lite", "-T", "episodes=2", "-T", "max_attempts=3")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert log.status == "success" and len(log.samples) == 2
    for sample in log.samples:
        replies = [m.text for m in sample.messages if m.role == "assistant"]
        assert replies and all(isinstance(r, str) for r in replies)
        reward = sample.scores["episode_reward"].value
        assert reward == replayed_reward("wilt/lite", options, sample.metadata["seed"], replies)
    assert log.stats.model_usage[MODEL].output_tokens > 0


def test_inspect_eval_of_an_image_suite_on_a_text_only_model_errs(llama, tmp_path):
    done, log = inspect_eval(
        llama, tmp_path, "cogsim/kidgym_counting", "-T", "episodes=2", "--max-retries", "0", "--no-fail-on-error"
    )
    assert log.samples and all(s.error is not None for s in log.samples), done.stdout[-3000:]
    assert all(not s.scores for s in log.samples)


def test_vf_eval_against_the_real_model(llama, tmp_path):
    options = {"max_attempts": 3}
    command = [str(BIN / "vf-eval"), "cogsim-verifiers", "--env.taskset.env-id", "wilt/lite"]
    command += ["--env.taskset.episodes", "2", "--env.taskset.options", json.dumps(options)]
    command += ["-m", "smollm2", "--client.base-url", llama.url, "--client.api-key-var", "COGSIM_E2E_KEY"]
    command += ["--sampling.max-tokens", "48", "-c", "1", "--no-push", "--no-rich", "-o", str(tmp_path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, env=model_env(llama))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (results,) = tmp_path.rglob("traces.jsonl")
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(rows) == 2
    for row in rows:
        (trace,) = row["traces"]
        replies = [node["message"]["content"] for node in trace["nodes"] if node["sampled"]]
        assert row["ok"] and not row["errors"]
        reward = trace["rewards"]["episode_reward"]["score"]
        assert reward == replayed_reward("wilt/lite", options, row["task"]["data"]["seed"], replies)
