"""cogsim env ids as verifiers environments: rollouts against a local OpenAI-compatible server give
the rewards `cogsim run` gives for the same replies."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import verifiers as vf
from verifiers.types import ClientConfig

from cogsim.harness import RunConfig, Task, run
from cogsim.integrations.episode import Episode, EpisodeSpec
from cogsim.integrations.verifiers import load_environment
from cogsim.store import open_store
from reply_server import ReplyServer


def reply(body):
    """A deterministic "model": its answer depends on the whole prompt it is sent (so history must match)."""
    messages = body["messages"]
    last = messages[-1]["content"]
    text = last if isinstance(last, str) else " ".join(p.get("text", "") for p in last if p["type"] == "text")
    if "Test Case" in text or "lambda" in text or "Final Guess" in text:  # WILT
        n = len(messages)
        return (
            f"Test Case: ```({n}, {n % 3}, {len(text) % 7})```" if n < 7 else "Final Guess: ```lambda x, y, z: x < y```"
        )
    images = sum(isinstance(m["content"], list) for m in messages)
    return f"<answer>{'ABCD'[(len(messages) + images + len(text)) % 4]}</answer>"


@pytest.fixture
def server(monkeypatch):
    chat = ReplyServer(reply)
    monkeypatch.setenv("COGSIM_TEST_KEY", "secret")
    yield chat
    chat.close()


def cogsim_rewards(server, tmp_path, env_id, episodes, **options):
    out = tmp_path / env_id.replace("/", "-")
    agent_options = {"base_url": server.url, "max_retries": 0}
    run(RunConfig([Task(env_id, episodes, options)], ["openai:m"], agent_options=agent_options), out)
    with open_store(out) as store:
        return {e["seed"]: e["total_reward"] for e in store.episodes()}


def verifiers_outputs(server, env_id, episodes, **options):
    env = load_environment(env_id, episodes=episodes, **options)
    client = ClientConfig(api_base_url=server.url, api_key_var="COGSIM_TEST_KEY", max_retries=0)
    return env.evaluate_sync(client=client, model="m", num_examples=episodes, rollouts_per_example=1)["outputs"]


@pytest.mark.parametrize(
    ("env_id", "options"), [("wilt/lite", {}), ("kidgym/counting", {}), ("pairs/single", {"rows": 2, "cols": 2})]
)
def test_rollouts_give_the_rewards_of_cogsim_run_for_the_same_replies(server, tmp_path, env_id, options):
    outputs = verifiers_outputs(server, env_id, 3, **options)
    got = {o["info"]["seed"]: o["reward"] for o in outputs}
    assert got == cogsim_rewards(server, tmp_path, env_id, 3, **options)
    assert all(o["metrics"]["cogsim/unscored"] == 0.0 for o in outputs)
    for output in outputs:  # the completion holds the whole episode: its answers give the reward again
        episode = Episode(EpisodeSpec(env_id, options), output["info"]["seed"])
        for message in output["completion"]:
            if message["role"] == "assistant":
                episode.step(message["content"])
        assert episode.finished and episode.total_reward == output["reward"]
    if env_id == "kidgym/counting":  # frames went out as OpenAI image parts
        sent = [m for body in server.requests for m in body["messages"] if isinstance(m["content"], list)]
        assert sent and sent[0]["content"][0]["type"] == "image_url"
        assert sent[0]["content"][0]["image_url"]["url"].startswith("data:image/png;base64,")
        assert all("cogsim/success" in o["metrics"] for o in outputs)


def test_a_duel_against_the_scripted_opponent(server):
    outputs = verifiers_outputs(server, "pairs/duel", 2, rows=2, cols=2, seat=1)
    assert all(o["metrics"]["cogsim/unscored"] == 0.0 for o in outputs)


def test_backend_faults_are_errors_not_answers(monkeypatch):
    chat = ReplyServer(lambda body: (500, "the server fell over"))
    monkeypatch.setenv("COGSIM_TEST_KEY", "secret")
    try:
        outputs = verifiers_outputs(chat, "wilt/lite", 2)
    finally:
        chat.close()
    assert all(o["metrics"]["cogsim/unscored"] == 1.0 and o["reward"] == 0.0 for o in outputs)
    assert all(o.get("error") for o in outputs)


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="no_such_option.*allowed"):
        load_environment("wilt/lite", no_such_option=1)
    with pytest.raises(ValueError, match="opponent"):
        load_environment("wilt/lite", opponent="random")
    with pytest.raises(ValueError, match="elimination"):
        load_environment("pairs/duel", opponent="elimination")
    assert isinstance(load_environment("cube/verification", episodes=1), vf.MultiTurnEnv)


def test_vf_eval_runs_an_env_id(server, tmp_path):
    vf_eval = Path(sys.executable).parent / "vf-eval"
    args = [str(vf_eval), "cogsim.integrations.verifiers", "-a", json.dumps({"env": "wilt/lite", "episodes": 2})]
    args += ["-m", "m", "-b", server.url, "-k", "COGSIM_TEST_KEY", "-n", "2", "-r", "1", "-s", "-o", str(tmp_path)]
    args += ["--disable-tui", "--max-retries", "0"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300, env={**os.environ, "COGSIM_TEST_KEY": "x"})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    results = list(tmp_path.rglob("results.jsonl"))
    assert results, list(tmp_path.rglob("*"))
    rows = [json.loads(line) for line in results[0].read_text().splitlines()]
    assert len(rows) == 2 and all("reward" in r for r in rows)
