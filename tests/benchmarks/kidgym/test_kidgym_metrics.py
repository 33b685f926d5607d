"""KidGym metrics on hand-computed examples, and the radar chart."""

from __future__ import annotations

import numpy as np
import pytest

import cogsim
from cogsim import metrics
from cogsim.benchmarks.kidgym import metrics as km


def _episodes(code, level, successes, n, agent="oracle"):
    return [{"code": code, "level": level, "success": i < successes, "agent": agent} for i in range(n)]


def test_weighted_score_and_capabilities_by_hand():
    # CL: p = 1.0, 0.5, 0.0 -> 0.2 + 0.15 + 0 = 0.35 ; MA: p = 1, 1, 1 -> 1.0 ; DMA: 0, 0, 0.5 -> 0.25
    rates = {"CL": {1: 1.0, 2: 0.5, 3: 0.0}, "MA": {1: 1.0, 2: 1.0, 3: 1.0}, "DMA": {1: 0.0, 2: 0.0, 3: 0.5}}
    scores = km.capability_scores(rates)
    assert scores["Execution"] == pytest.approx(35.0)
    assert scores["Planning"] == pytest.approx(100 * (1.0 + 0.25) / 2)  # MA and DMA
    assert scores["Learning"] == pytest.approx(25.0)  # DMA only
    assert scores["Memory"] is None and scores["Perception Reasoning"] is None


def test_task_missing_a_level_does_not_count():
    assert km.weighted_score({1: 1.0, 2: 1.0}) is None
    assert km.capability_scores({"CL": {1: 1.0, 2: 1.0}})["Execution"] is None


def test_summary_tables_with_wilson_intervals():
    episodes = _episodes("CL", 1, 3, 4) + _episodes("CL", 2, 1, 4) + _episodes("CL", 3, 0, 4)
    episodes += [
        {"env_id": "kidgym/maze", "options": {"level": level}, "success": True, "agent": "oracle"}
        for level in (1, 2, 3)
    ]
    tables = metrics.summarize("kidgym", episodes)
    rates, capabilities = tables[0], tables[-1]
    cl = next(row for row in rates.rows if row[0] == "CL")
    assert cl[1].value == pytest.approx(0.75) and cl[1].n == 4 and cl[1].low < 0.75 < cl[1].high
    assert cl[4] == pytest.approx(100 * (0.2 * 0.75 + 0.3 * 0.25))
    row = capabilities.rows[0]
    assert row[:2] == ["oracle", "paper's 12"]
    assert row[2] == pytest.approx(round(100 * (0.2 * 0.75 + 0.3 * 0.25), 1)) and row[5] == 100.0


def test_decode_counts_in_learning_and_the_table_says_so():
    episodes = [e for lv in (1, 2, 3) for e in _episodes("SO", lv, 2, 4) + _episodes("DE", lv, 4, 4)]
    row = metrics.summarize("kidgym", episodes)[-1].rows[0]
    assert row[1] == "+DE" and row[2 + km.CAPABILITIES.index("Learning")] == pytest.approx(75.0)
    rates = {"SO": {1: 0.5, 2: 0.5, 3: 0.5}, "DE": {1: 1.0, 2: 1.0, 3: 1.0}}
    assert km.capability_scores(rates, km.PAPER_TASK_CODES)["Learning"] == pytest.approx(50.0)
    assert km.TASK_CAPABILITIES["DE"] == ("decode", ("Learning",)) and "DE" not in km.PAPER_TASK_CODES


def test_groups_by_agent_and_prompt():
    episodes = _episodes("SE", 1, 1, 1, agent="m") + [
        {"code": "SE", "level": 1, "success": False, "agent": "m", "prompt": "cot"}
    ]
    titles = [t.title for t in metrics.summarize("kidgym", episodes)]
    assert "KidGym success rate: m" in titles and "KidGym success rate: m (cot)" in titles


def test_non_kidgym_episode_raises():
    with pytest.raises(ValueError, match="KidGym"):
        metrics.summarize("kidgym", [{"env_id": "cube/closed-loop", "success": True}])
    with pytest.raises(ValueError, match="level"):
        metrics.summarize("kidgym", [{"code": "CL", "level": 7, "success": True}])


def test_radar_chart_is_written(tmp_path):
    episodes = []
    for code in ("CL", "MA", "SE"):
        for level in (1, 2, 3):
            episodes += _episodes(code, level, 2, 4, agent="random") + _episodes(code, level, 4, 4)
    plots = metrics.plot("kidgym", episodes, tmp_path)
    assert len(plots) == 1 and plots[0][1].stat().st_size > 10_000


def test_env_episodes_feed_the_summary():
    env = cogsim.make("kidgym/placement", level=1, images=False)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    *_, info = env.step(env.scripted_response("oracle", rng))
    record = {
        **info["episode"],
        "env_id": "kidgym/placement",
        "options": {"level": 1},
        "seed": 0,
        "agent": "oracle",
        "turns": 1,
    }
    table = metrics.summarize("kidgym", [record])[0]
    assert table.rows[0][0] == "PL" and table.rows[0][1].value == 1.0
