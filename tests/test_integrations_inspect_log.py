"""`cogsim export DIR --format inspect`: a run as an inspect log, read back with inspect's reader."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from cogsim.cli import main
from cogsim.harness import RunConfig, Task, run
from cogsim.store import open_store
from reply_server import ReplyServer


def test_a_run_exports_as_an_inspect_log(tmp_path, capsys):
    out = tmp_path / "run"
    config = RunConfig([Task("wilt/lite", 2), Task("kidgym/counting", 2)], ["oracle", "random"], workers=1)
    run(config, out)
    assert main(["export", str(out), "--format", "inspect", "--out", str(tmp_path / "run.eval")]) == 0
    assert "8 episodes written" in capsys.readouterr().out
    log = read_eval_log(str(tmp_path / "run.eval"), resolve_attachments=True)
    assert log.status == "success" and len(log.samples) == 8
    assert log.eval.metadata["cogsim_run"]["agents"] == ["oracle", "random"]
    assert log.eval.model == "cogsim/oracle, cogsim/random"
    with open_store(out) as store:
        stored = {(e["env_id"], e["agent"], e["seed"]): e for e in store.episodes()}
    for sample in log.samples:
        env_id, agent, seed = sample.metadata["env_id"], sample.metadata["agents"][0], sample.metadata["seed"]
        record = stored[(env_id, agent, seed)]
        assert sample.id == f"{env_id}:{agent}:seed={seed}"
        assert sample.scores["episode_reward"].value == record["total_reward"]
        assert sum(m.role == "assistant" for m in sample.messages) == record["turns"]
        if env_id == "kidgym/counting":
            user = next(m for m in sample.messages if m.role == "user")
            assert user.content[0].type == "image" and user.content[0].image.startswith("data:image/png;base64,")
    metrics = log.results.scores[0].metrics
    assert "mean" in metrics and any(name.startswith("WILT: results by agent") for name in metrics)
    dumped = subprocess.run(
        [str(Path(sys.executable).parent / "inspect"), "log", "dump", str(tmp_path / "run.eval")],
        capture_output=True,
        text=True,
    )
    assert dumped.returncode == 0 and '"cogsim_run"' in dumped.stdout


def test_a_turn_sent_its_own_system_prompt_shows_it_before_its_prompt(tmp_path):
    """Cube Bench's reflection sends each of its three calls its own system prompt: the sample shows
    each where it was first sent, so a reader sees the instructions every reply answered."""
    from cogsim import make

    out, options = tmp_path / "run", {"depth": 1, "modality": "text"}
    run(RunConfig([Task("cube/reflection", 1, options)], ["random_then_hint"], workers=1), out)
    assert main(["export", str(out), "--format", "inspect", "--out", str(tmp_path / "run.eval")]) == 0
    (sample,) = read_eval_log(str(tmp_path / "run.eval"), resolve_attachments=True).samples
    env = make("cube/reflection", **options)
    env.reset(seed=sample.metadata["seed"])
    expected = []
    for reply in [m.text for m in sample.messages if m.role == "assistant"]:
        expected += [("system", env.system_prompt), "user", "assistant"]
        env.step(reply)
    shown = [(m.role, m.text) if m.role == "system" else m.role for m in sample.messages]
    assert shown == expected and len({text for role, text in expected[::3]}) == 3


def test_backend_faults_export_as_errored_samples_with_token_usage(tmp_path):
    def reply(body):
        said = sum(m["role"] == "assistant" for m in body["messages"])
        return "Test Case: ```(1, 2, 3)```" if said == 0 else (500, "the server fell over")

    server = ReplyServer(reply)
    try:
        options = {"base_url": server.url, "max_retries": 0, "timeout_s": 5}
        run(RunConfig([Task("wilt/lite", 2)], ["openai:m"], agent_options=options), tmp_path / "run")
    finally:
        server.close()
    assert main(["export", str(tmp_path / "run"), "--format", "inspect", "--out", str(tmp_path / "r.json")]) == 0
    log = read_eval_log(str(tmp_path / "r.json"))
    assert log.status == "error" and log.eval.model == "openai/m"
    assert log.samples and all(s.error and "backend fault (http)" in s.error.message for s in log.samples)
    assert all(not s.scores for s in log.samples)
    first = log.samples[0]
    assert (
        first.model_usage["openai/m"].input_tokens == 11 and first.messages[-1].content == "Test Case: ```(1, 2, 3)```"
    )


def test_export_refuses_the_store_itself_and_unreadable_images(tmp_path):
    out = tmp_path / "run"
    run(RunConfig([Task("kidgym/counting", 1)], ["oracle"], workers=1), out)
    with pytest.raises(ValueError, match="store"):
        from cogsim.integrations.inspect_log import export_inspect

        export_inspect(out, out / "store.sqlite")
    image = next((out / "images").rglob("*.png"))
    image.unlink()
    os.symlink("/etc/hostname", image)  # a run directory is untrusted: links are not followed
    assert main(["export", str(out), "--format", "inspect", "--out", str(tmp_path / "x.eval")]) == 0
    log = read_eval_log(str(tmp_path / "x.eval"), resolve_attachments=True)
    texts = [
        c.text
        for m in log.samples[0].messages
        if m.role == "user" and not isinstance(m.content, str)
        for c in m.content
        if c.type == "text"
    ]
    assert any("could not be read" in t for t in texts)
