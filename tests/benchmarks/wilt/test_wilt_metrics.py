"""WILT metrics against hand-computed examples, the test swap, and the reduction plot."""

from __future__ import annotations

import numpy as np
import pytest

import cogsim
from cogsim import metrics
from cogsim.benchmarks.wilt import metrics as wilt_metrics


def episode(agent, correct, approx, tests, repeats, reduction, tier="easy", ops=2, length=25, ratio=None, swap=False):
    return {
        "env_id": "wilt/full",
        "agent": agent,
        "seed": 0,
        "options": {},
        "turns": tests + 1,
        "correct": correct,
        "approx_correct": approx,
        "num_tests": tests,
        "repeats": repeats,
        "reduction": reduction,
        "tier": tier,
        "guessed": True,
        "guess_operators": ops,
        "guess_length": length,
        "inclusion_ratio": ratio,
        "swap": swap,
    }


EPISODES = [
    episode("a", True, False, 3, 1, [0.5, 0.75, 0.9], ratio=1.0),
    episode("a", False, True, 5, 0, [0.2], tier="medium", ops=4, length=35, ratio=3.0),
    episode("b", False, False, 30, 2, [0.1] * 30, ratio=None),
]


def test_summary_row_matches_hand_computation():
    row = wilt_metrics.summary_row(EPISODES[:2])
    # Wilson interval for 1 success in 2: centre 0.5, half-width 0.40545 (z = 1.96)
    assert row["accuracy"].value == 0.5
    assert row["accuracy"].low == pytest.approx(0.0945, abs=1e-4) and row["accuracy"].high == pytest.approx(
        0.9055, abs=1e-4
    )
    assert row["approx_correct"].value == 0.5
    assert row["tests_used"].value == 4.0 and row["repeats"].value == 0.5
    assert row["guess_operators"] == 3.0 and row["guess_length"] == 30.0 and row["inclusion_ratio"] == 2.0


def test_reduction_curve_carries_the_last_value_forward():
    curve = wilt_metrics.reduction_curve(EPISODES[:2])
    assert curve.shape == (30,)
    assert curve[0] == pytest.approx(0.35) and curve[1] == pytest.approx(0.475)
    assert np.allclose(curve[2:], 0.55)


def test_summarize_tables():
    tables = metrics.summarize("wilt", EPISODES)
    titles = [t.title for t in tables]
    assert titles == [
        "WILT: results by agent",
        "WILT: accuracy by tier",
        "WILT: hypothesis space eliminated after turn t (%)",
    ]
    results = tables[0]
    row_a = results.rows[0]
    assert row_a[1] == "a" and row_a[2] == 2 and row_a[3] == "50.0 [9.5, 90.5]"
    assert tables[1].columns == ["env", "agent", "easy %", "medium %"]
    assert tables[1].rows[0][2].startswith("100.0") and tables[1].rows[0][3].startswith("0.0")
    curve_row = tables[2].rows[0]
    assert curve_row[2] == "35.0" and curve_row[3] == "47.5" and curve_row[4] == "55.0"


def test_test_swap_and_plot(tmp_path):
    env = cogsim.make("wilt/lite")
    sources = []
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        done = False
        while not done:
            obs, _, done, _, info = env.step(env.scripted_response("elimination", rng))
        sources.append({"env_id": "wilt/lite", "agent": "elimination", "seed": seed, **info["episode"]})
    swapped = wilt_metrics.run_test_swap(sources, "elimination")
    assert [s["rule_index"] for s in swapped] == [0, 1, 2]
    assert all(s["swap"] and s["swap_source"] == "elimination" for s in swapped)
    # the same tests lead the same deterministic agent to the same guess
    assert [s["correct"] for s in swapped] == [s["correct"] for s in sources]
    tables = metrics.summarize("wilt", sources + swapped)
    assert tables[-1].title.startswith("WILT: test swap") and tables[-1].rows[0][3] == 3
    plots = metrics.plot("wilt", sources, tmp_path)
    assert plots and plots[0][1].exists() and plots[0][1].stat().st_size > 1000
    with pytest.raises(ValueError, match="procedural"):
        wilt_metrics.swap_options({"rule_index": -1, "tests": []})
