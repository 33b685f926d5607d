"""The whole loop on WILT: scripted agents and a scripted model through the runner, the store, the
WILT metrics and the report, checked against a small run computed by hand."""

import json

import pytest

from cogsim.agents import Completion, ModelBackend, register_backend
from cogsim.harness import RunConfig, Task, run
from cogsim.report import write_report
from cogsim.store import open_store
from cogsim.store.rows import PROMPT_SQL

SCRIPT = [
    "Test Case: (1, 2, 3)",
    "Let me check that again.\nTest Case: (1, 2, 3)",
    "hmm, not sure",
    "Final Guess: ```lambda x, y, z: x < y < z```",
]


class ScriptedModel(ModelBackend):
    """Answers turn t of every conversation with SCRIPT[t] (t = its earlier answers)."""

    def __init__(self, model, **options):
        self.calls = 0

    def complete(self, conversations):
        self.calls += 1
        return [Completion(SCRIPT[sum(m.role == "assistant" for m in c)]) for c in conversations]


register_backend("wiltscript", ScriptedModel)


@pytest.fixture(scope="module")
def wilt_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("wilt") / "run"
    # seeds 0, 1, 2 pick the lite rules x > y > z, x < y < z, x >= y >= z
    run(RunConfig([Task("wilt/lite", 3)], ["oracle", "wiltscript:m"], concurrency=3), out)
    return out


def test_episodes_match_the_hand_computed_run(wilt_run):
    with open_store(wilt_run) as store:
        episodes = {(e["agent"], e["seed"]): e for e in store.episodes()}
    assert len(episodes) == 6
    for seed, hidden in enumerate(["x > y > z", "x < y < z", "x >= y >= z"]):
        oracle = episodes[("oracle", seed)]
        assert oracle["hidden"] == f"lambda x, y, z: {hidden}" and oracle["rule_index"] == seed
        assert oracle["correct"] and oracle["turns"] == 1 and oracle["num_tests"] == 0 and oracle["total_reward"] == 1.0
        script = episodes[("wiltscript:m", seed)]
        # two identical tests (one repeat), one unparsable reply, then the guess x < y < z
        assert script["turns"] == 4 and script["num_tests"] == 2 and script["repeats"] == 1
        assert script["parse_failures"] == 1 and script["guessed"]
        assert script["correct"] == (seed == 1) and script["total_reward"] == float(seed == 1)
        assert script["tests"] == [[1.0, 2.0, 3.0, seed == 1]] * 2
        assert script["approx_correct"] is False  # x < y < z shares no True point with the other two
        curve = script["reduction"]
        assert len(curve) == 2 and 0 < curve[0] == curve[1] <= 1  # a repeated test eliminates nothing new


def test_turns_carry_the_papers_replies(wilt_run):
    with open_store(wilt_run) as store:
        rows = store.query(
            f"SELECT t.turn, {PROMPT_SQL}, t.response, t.parse, t.parsed FROM turns t JOIN episodes e ON e.id = t.episode_id "
            "WHERE e.agent = 'wiltscript:m' AND e.seed = 0 ORDER BY t.turn"
        )
    assert [r[3] for r in rows] == ["ok", "ok", "parse_failure", "ok"]
    # the release's feedback: the count before the test is used
    assert rows[1][1] == "Result for input (1.0, 2.0, 3.0): False. Attempts Remaining: 30"
    assert rows[2][1] == "Result for input (1.0, 2.0, 3.0): False. Attempts Remaining: 29"
    assert [r[2] for r in rows] == SCRIPT
    assert json.loads(rows[0][4]) == {"action": "test", "point": [1.0, 2.0, 3.0]}


def test_report_shows_the_hand_computed_metrics(wilt_run):
    report = write_report(wilt_run)[0].read_text()
    # oracle: 3 of 3, Wilson [43.9, 100]; scripted model: 1 of 3, Wilson [6.1, 79.2]; 2 tests, 1 repeat each
    assert "| wilt/lite | oracle | 3 | 100.0 [43.9, 100.0] |" in report
    assert (
        "| wilt/lite | wiltscript:m | 3 | 33.3 [6.1, 79.2] | 0.0 [0.0, 56.1] | 2.0 [2.0, 2.0] | 1.00 [1.00, 1.00] |"
        in report
    )
    assert "## Suite: wilt" in report and "| `wilt/lite` | wiltscript:m | 3 | 3 | 0 | 0 | 0 | 0 | 12 |" in report
    plots = list((wilt_run / "plots").glob("*.png"))
    assert plots and all(p.stat().st_size > 1000 for p in plots)


def test_cli_runs_every_wilt_env_by_family_prefix(tmp_path, capsys):
    from cogsim.cli import main

    out = tmp_path / "cli"
    assert (
        main(
            [
                "run",
                "wilt",
                "--agent",
                "oracle",
                "--episodes",
                "2",
                "--workers",
                "1",
                "--out",
                str(out),
                "--no-progress",
                "--report",
            ]
        )
        == 0
    )
    assert "8/8 episodes finished (8 done)" in capsys.readouterr().out
    report = (out / "report.md").read_text()
    for env_id in ("wilt/full", "wilt/lite", "wilt/prototype", "wilt/procedural"):
        assert f"| {env_id} | oracle | 2 | 100.0 [34.2, 100.0] |" in report
