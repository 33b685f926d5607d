"""cogsim env ids as verifiers v1 tasksets: rollouts against a local OpenAI-compatible server send the
prompts `cogsim run` sends and give the rewards and family metrics `cogsim run` gives for the same replies."""

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import verifiers.v1 as vf

from cogsim.harness import RunConfig, Task, run
from cogsim.integrations.episode import Episode, EpisodeSpec, metric_values
from cogsim.integrations.verifiers import CogsimEnv, episode_metrics, evaluate, family_metrics, load_environment
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


def client(server) -> vf.ClientConfig:
    return vf.EvalClientConfig(base_url=server.url, api_key_var="COGSIM_TEST_KEY")


def cogsim_run(server, tmp_path, env_id, episodes, **options) -> list[dict]:
    out = tmp_path / env_id.replace("/", "-")
    agent_options = {"base_url": server.url, "max_retries": 0}
    run(RunConfig([Task(env_id, episodes, options)], ["openai:m"], agent_options=agent_options), out)
    with open_store(out) as store:
        return store.episodes()


def verifiers_traces(server, env_id, episodes, **options) -> list[vf.Trace]:
    env = load_environment(env_id, episodes=episodes, **options)
    episodes = asyncio.run(evaluate(env, "m", client(server)))
    return [trace for episode in episodes for trace in episode.traces]


def prompts(requests) -> list[str]:
    return sorted(json.dumps(body["messages"], sort_keys=True) for body in requests)


@pytest.mark.parametrize(
    ("env_id", "options"), [("wilt/lite", {}), ("kidgym/counting", {}), ("pairs/single", {"rows": 2, "cols": 2})]
)
def test_rollouts_give_the_rewards_and_metrics_of_cogsim_run_for_the_same_replies(tmp_path, env_id, options):
    servers = [ReplyServer(reply), ReplyServer(reply)]
    os.environ["COGSIM_TEST_KEY"] = "secret"
    try:
        traces = verifiers_traces(servers[0], env_id, 3, **options)
        stored = cogsim_run(servers[1], tmp_path, env_id, 3, **options)
        assert prompts(servers[0].requests) == prompts(servers[1].requests)  # history policy, frames and all
    finally:
        for chat in servers:
            chat.close()
    assert {t.task.data.seed: t.reward for t in traces} == {e["seed"]: e["total_reward"] for e in stored}
    assert all(t.ok and not t.errors and set(t.rewards) == {"episode_reward"} for t in traces)
    assert family_metrics(traces) == metric_values([{**e, "agent": "model"} for e in stored])  # the same tables
    for trace in traces:  # the trace holds the whole episode: its answers give the reward again
        episode = Episode(EpisodeSpec(env_id, options), trace.task.data.seed)
        for node in trace.nodes:
            if node.sampled:
                episode.step(node.message.content)
        assert episode.finished and episode.total_reward == trace.reward
        table = metric_values([trace.info["cogsim"]])
        assert table and all(trace.metrics[f"cogsim/{k}"] == v for k, v in table.items() if "95%" not in k)
    if env_id == "kidgym/counting":  # frames go out as OpenAI image parts, in the task rows too
        first = traces[0].task.data.prompt[0].content[0]
        assert first.type == "image_url" and first.image_url.url.startswith("data:image/png;base64,")
        assert all("cogsim/success" in t.metrics for t in traces)


def test_a_duel_against_the_scripted_opponent(server):
    traces = verifiers_traces(server, "pairs/duel", 2, rows=2, cols=2, seat=1)
    assert all(t.ok and t.info["cogsim"]["agents"] == ["forgetful", "model"] for t in traces)


def test_backend_faults_are_errors_not_rewards(monkeypatch):
    chat = ReplyServer(lambda body: (500, "the server fell over"))
    monkeypatch.setenv("COGSIM_TEST_KEY", "secret")
    try:
        traces = verifiers_traces(chat, "wilt/lite", 2)
    finally:
        chat.close()
    assert traces and all(not t.ok and t.errors for t in traces)
    assert all(not t.rewards and t.info["cogsim"]["status"] == "running" for t in traces)
    assert family_metrics(traces) == {}


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="no_such_option.*allowed"):
        load_environment("wilt/lite", no_such_option=1)
    with pytest.raises(ValueError, match="opponent"):
        load_environment("wilt/lite", opponent="random")
    with pytest.raises(ValueError, match="elimination"):
        load_environment("pairs/duel", opponent="elimination")
    with pytest.raises(ValueError, match="seat"):
        load_environment("pairs/duel", seat=2)
    assert isinstance(load_environment("cube/verification", episodes=1), CogsimEnv)


def test_each_episode_is_a_task_row(server):
    env = load_environment("pairs/duel", episodes=3, seed=7, rows=2, cols=2)
    tasks = list(env.taskset)
    assert [t.data.seed for t in tasks] == [7, 8, 9] and len({t.key for t in tasks}) == 3
    data = tasks[0].data
    assert (data.env_id, data.options, data.opponent, data.seat) == (
        "pairs/duel",
        {"rows": 2, "cols": 2},
        "forgetful",
        0,
    )
    episode = Episode(EpisodeSpec("pairs/duel", {"rows": 2, "cols": 2}), 7)
    system, first = episode.prompt()[0], episode.prompt()[-1]
    assert data.system_prompt == system.text and data.prompt[-1].content == first.text
    assert data.decoding["temperature"] == 0.0
    assert vf.TaskData.model_validate_json(data.model_dump_json())  # rows are plain JSON on the wire


def test_the_verifiers_cli_evaluates_an_env_id(server, tmp_path):
    vf_eval = Path(sys.executable).parent / "vf-eval"
    args = [str(vf_eval), "cogsim-verifiers", "--env.taskset.env-id", "wilt/lite", "--env.taskset.episodes", "2"]
    args += ["-m", "m", "--client.base-url", server.url, "--client.api-key-var", "COGSIM_TEST_KEY"]
    args += ["--no-push", "--no-rich", "-o", str(tmp_path / "out")]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300, env=os.environ)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (results,) = (tmp_path / "out").rglob("traces.jsonl")
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(rows) == 2 and all(row["ok"] for row in rows)
    rewards = {row["task"]["data"]["seed"]: row["traces"][0]["rewards"]["episode_reward"]["score"] for row in rows}
    assert rewards == {e["seed"]: e["total_reward"] for e in cogsim_run(server, tmp_path, "wilt/lite", 2)}
    assert family_metrics(trace for row in rows for trace in row["traces"])


RECORD = {"env_id": "wilt/lite", "suite": "wilt", "status": "done", "agent": "m", "seed": 0, "total_reward": 1.0}
MALFORMED = {
    "not traces": ("abc", "traces must be an iterable of traces"),
    "a trace that is a number": ([5], "trace 1 must be a verifiers trace or its JSON object"),
    "info not an object": ([{"info": [1]}], "trace 1: info must be an object"),
    "record not an object": ([{"info": {"cogsim": "done"}}], r"info\['cogsim'\] must be a cogsim episode record"),
    "no suite": ([{"info": {"cogsim": {k: v for k, v in RECORD.items() if k != "suite"}}}], "suite must be text"),
    "seed as text": ([{"info": {}}, {"info": {"cogsim": {**RECORD, "seed": "0"}}}], "trace 2: .* seed must be an"),
    "reward as a list": ([{"info": {"cogsim": {**RECORD, "total_reward": [1]}}}], "total_reward must be a number"),
    "no outcomes": ([{"info": {"cogsim": RECORD}}], "the wilt records lack what its metrics read"),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_family_metrics_of_malformed_traces_are_one_clear_line(case):
    traces, match = MALFORMED[case]
    with pytest.raises(ValueError, match=match) as refused:
        family_metrics(traces)
    assert "\n" not in str(refused.value)


def test_one_episodes_metrics_of_a_malformed_record_are_one_clear_line():
    with pytest.raises(ValueError, match="the wilt records lack what its metrics read") as refused:
        episode_metrics({**RECORD, "huge": 10**400})
    assert "\n" not in str(refused.value)
