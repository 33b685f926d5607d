"""`cogsim run`, `report`, `list`, `export` and the demo's suites section."""

import json

import pytest

import loop_envs  # noqa: F401
from cogsim.cli import main
from cogsim.store import open_store


def test_run_family_prefix_then_report_and_export(tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["run", "looptest", "--agent", "oracle", "--agent", "random", "--episodes", "4", "--seed", "2",
                 "--concurrency", "3", "--workers", "1", "--out", str(out), "--no-progress", "--report"])
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
    assert "![Turns per episode](run/plots/looptest_turns.png)" in report
    assert (tmp_path / "run" / "plots" / "looptest_turns.png").exists()
    assert demo.run_demo(tmp_path, quick=True) == 0  # a second demo replaces the first run
