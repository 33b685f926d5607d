"""`cogsim run`, `report`, `list`, `export` and the demo's suites section."""

import json

import pytest

import loop_envs  # noqa: F401
from cogsim.cli import main
from cogsim.store import open_store


def test_run_family_prefix_then_report_and_export(tmp_path, capsys):
    out = tmp_path / "run"
    code = main(
        [
            "run",
            "looptest",
            "--agent",
            "oracle",
            "--agent",
            "random",
            "--episodes",
            "4",
            "--seed",
            "2",
            "--concurrency",
            "3",
            "--workers",
            "1",
            "--out",
            str(out),
            "--no-progress",
            "--report",
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    # count and choice per agent, the duel once (oracle vs random): 4 * 5 episodes
    assert "20/20 episodes finished (20 done)" in printed and "report written" in printed
    with open_store(out) as store:
        config = store.config()
        assert [t["env_id"] for t in config["tasks"]] == ["looptest/choice", "looptest/count", "looptest/duel"]
        assert config["seed"] == 2 and config["agents"] == ["oracle", "random"] and config["version"]
    report = (out / "report.md").read_text()
    assert "## Suite: looptest" in report and "| looptest/count | oracle | 4 | 1.00 [0.51, 1.00] |" in report
    assert (out / "report.html").read_text().startswith("<!DOCTYPE html>")

    assert main(["export", str(out), "--out", str(tmp_path / "t.jsonl")]) == 0
    lines = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert len(lines) == 20 and all(len(e["trajectory"]) == e["turns"] for e in lines)
    assert main(["export", str(out), "--format", "sft", "--per-turn", "--out", str(tmp_path / "s.jsonl")]) == 0
    examples = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text().splitlines()]
    assert all(e["agent"] == "oracle" and e["messages"][-1]["role"] == "assistant" for e in examples)


def test_resume_of_a_finished_run_adds_nothing(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["run", "looptest/count", "--episodes", "3", "--out", str(out), "--no-progress"]
    assert main(args) == 0
    assert main(["run", "--resume", str(out), "--no-progress"]) == 0
    assert "3/3 episodes finished" in capsys.readouterr().out
    with open_store(out) as store:
        assert store.query("SELECT COUNT(*) FROM episodes") == [(3,)]
    assert main(args) == 2
    assert "already holds a run; continue it with --resume" in capsys.readouterr().err
    assert main(args + ["--resume"]) == 0  # the same command again, resumed: nothing left to do
    assert "3/3 episodes finished" in capsys.readouterr().out
    assert main(args[:3] + ["4"] + args[4:] + ["--seed", "1", "--resume"]) == 2
    assert "holds a run with other settings (seed, tasks differ)" in capsys.readouterr().err
    fresh = ["run", "looptest/count", "--episodes", "2", "--out", str(tmp_path / "new"), "--no-progress", "--resume"]
    assert main(fresh) == 0  # --resume with nothing stored yet starts the run
    assert "2/2 episodes finished" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "nosuch"], "suite 'nosuch' matches no env id"),
        (["run"], "give at least one SUITE"),
        (["run", "looptest/count", "--agent", "gpt:4"], "unknown kind 'gpt'"),
        (["run", "looptest/count", "--env-option", "size"], "expected KEY=VALUE"),
        (["run", "--resume", "/nonexistent/run"], "holds no run to resume"),
        (["report", "/nonexistent/run"], "holds no cogsim run"),
    ],
)
def test_errors_exit_2_with_a_message(args, message, capsys, tmp_path):
    if args == ["run"] or args[:2] == ["run", "looptest/count"]:
        args = args + ["--out", str(tmp_path / "x")]
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_list_shows_envs_policies_and_metrics(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "looptest/count" in out and "stubborn" in out and "openai:MODEL" in out and "looptest" in out
    assert "paper presets: paper:cubebench, paper:kidgym, paper:rngbench, paper:wilt" in out


def test_demo_runs_every_family_demo_suite_through_the_loop(tmp_path, monkeypatch):
    from cogsim import demo

    suites = [
        ("looptest", {"env_id": "looptest/count", "episodes": 8, "agents": ["oracle", "random"]}),
        ("looptest", {"env_id": "looptest/choice", "options": {"size": 10}, "episodes": 4, "agents": ["oracle"]}),
    ]
    monkeypatch.setattr(demo, "demo_suites", lambda: suites)
    monkeypatch.setattr(demo, "_SECTIONS", demo._SECTIONS[:1])
    assert demo.run_demo(tmp_path, quick=True) == 0
    report = (tmp_path / "report.md").read_text()
    assert "Every check passed" in report and "2 demo suites of looptest" in report
    assert "| looptest/count | random | 2 |" in report  # quick: a quarter of the episodes, rounded up
    assert "![Turns per episode](<run/plots/looptest_turns.png>)" in report
    assert (tmp_path / "run" / "plots" / "looptest_turns.png").exists()
    assert demo.run_demo(tmp_path, quick=True) == 0  # a second demo replaces the first run


def test_backend_faults_exit_3_and_a_bare_resume_may_change_the_server(tmp_path, capsys):
    import socket

    from test_backends_openai import ChatServer

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    out = tmp_path / "run"
    code = main(
        [
            "run",
            "looptest/count",
            "--episodes",
            "3",
            "--agent",
            "openai:m",
            "--agent-option",
            f"base_url={dead}",
            "--agent-option",
            "max_retries=0",
            "--out",
            str(out),
            "--no-progress",
            "--report",
        ]
    )
    assert code == 3
    captured = capsys.readouterr()
    assert "0/3 episodes finished (3 running)" in captured.out
    assert "3 episode(s) stopped by a backend fault [connection]: turn 0: connection error" in captured.err
    assert f"cogsim run --resume {out}" in captured.err
    report = (out / "report.md").read_text()
    assert "**Backend faults (episodes waiting for a resume)**" in report and "| connection | 3 |" in report
    server = ChatServer()
    try:
        assert main(["run", "--resume", str(out), "--agent-option", f"base_url={server.url}", "--no-progress"]) == 0
    finally:
        server.close()
    assert "3/3 episodes finished (3 done)" in capsys.readouterr().out
    with open_store(out) as store:
        assert [e["success"] for e in store.episodes()] == [True] * 3 and all(
            "fault" not in e for e in store.episodes()
        )
        assert store.config_changes() == [{"agent_options.base_url": [dead, server.url]}]


def test_report_of_an_interrupted_run_counts_its_stored_turns(tmp_path, capsys):
    from test_backends_openai import ChatServer

    server = ChatServer()
    out = tmp_path / "run"
    try:
        code = main(
            [
                "run",
                "looptest/count",
                "--episodes",
                "2",
                "--agent",
                "openai:m",
                "--agent-option",
                f"base_url={server.url}",
                "--history",
                "full",
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        assert code == 0
        with open_store(out, writable=True) as store:  # make one episode look stopped by a fault after 2 turns
            store.db.execute(
                "UPDATE episodes SET status = 'running', num_turns = 0, fault = 'timeout', "
                "error = 'turn 2: timeout after 300 s' WHERE episode_index = 1"
            )
            store.db.execute(
                "DELETE FROM turns WHERE turn >= 2 AND episode_id = (SELECT id FROM episodes WHERE episode_index = 1)"
            )
        main(["report", str(out)])
    finally:
        server.close()
    report = (out / "report.md").read_text()
    # episode 0: 3 turns (target 3), episode 1: 2 stored turns; the metrics see only episode 0
    assert "| `looptest/count` | openai:m | 2 | 1 | 0 | 0 | 0 | 1 | 5 |" in report
    assert "| timeout | 1 | turn 2: timeout after 300 s |" in report
