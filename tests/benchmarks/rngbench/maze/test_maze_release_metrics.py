"""3D Maze metrics under the release's semantics, worked by hand on episodes played from the
release's transcripts (tests/benchmarks/rngbench/maze/data/maze_release_transcripts.json): SR, Efficiency, Explore,
Walls, GS and the Memory Gap (the release's oracle condition: the minimap)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cogsim
from cogsim import metrics
from cogsim.benchmarks.rngbench.maze import metrics as mm

TRANSCRIPTS = json.loads((Path(__file__).parent / "data" / "maze_release_transcripts.json").read_text())["transcripts"]


def played(case, **options):
    """The episode record of a release transcript's action list replayed in cogsim."""
    env = cogsim.make("maze3d/nav", size=case["size"], generator=case["maze_type"], modality="text", **options)
    env.reset(seed=case["seed"])
    for record in case["steps"]:
        *_, info = env.step(f"Thought: -\nAction: {record['action']}")
    return {**info["episode"], "agent": "m", "env_id": "maze3d/nav"}


@pytest.fixture(scope="module")
def episodes():
    a, b, c = TRANSCRIPTS
    return [played(a), played(b, max_steps=len(b["steps"])), played(c)]


def test_episode_fields_are_the_release_counts(episodes):
    a, b, c = episodes
    # A: v6 7x7 seed 2, the release's shortest list: 28 actions = L* 28, 29 of 49 cells, no bump
    assert (a["success"], a["steps"], a["optimal_steps"], a["visited_cells"], a["cells"], a["collisions"]) == (
        True,
        28,
        28,
        29,
        49,
        0,
    )
    # B: v6 9x9 seed 1, 60 wall-follower actions, budget 60: not reached, 30 of 81 cells, 2 bumps
    assert (b["success"], b["steps"], b["visited_cells"], b["cells"], b["collisions"]) == (False, 60, 30, 81, 2)
    # C: v5 7x7 seed 3, wall follower: reached in 26 actions, L* 12, 17 of 49 cells, 2 bumps
    assert (c["success"], c["steps"], c["optimal_steps"], c["visited_cells"], c["collisions"]) == (True, 26, 12, 17, 2)
    assert a["efficiency"] == 1.0 and b["efficiency"] is None and c["efficiency"] == pytest.approx(12 / 26)


def test_sr_efficiency_explore_walls_gs_by_hand(episodes):
    # SR = 2/3
    assert mm.success_rate(episodes) == pytest.approx(2 / 3)
    # Efficiency over successes: (28/28 + 12/26) / 2 = (1 + 0.461538) / 2 = 0.730769
    assert mm.efficiency(episodes) == pytest.approx(0.730769, abs=1e-6)
    # Explore over all episodes: (29/49 + 30/81 + 17/49) / 3 = (0.591837 + 0.370370 + 0.346939) / 3 = 0.436382
    assert mm.explore(episodes) == pytest.approx(0.436382, abs=1e-6)
    # GS = (SR + SR * Eff + (1 - SR) * Explore) / 2 = (0.666667 + 0.487179 + 0.145461) / 2 = 0.649654
    assert mm.game_score(episodes) == pytest.approx(0.649654, abs=1e-6)
    # Walls: failed move_forward actions per episode, (0 + 2 + 2) / 3
    # (one table row: the same size and condition label for all three)
    table = metrics.summarize("maze3d", [dict(e, size=7, generator="v6") for e in episodes])[0]
    assert len(table.rows) == 1
    row = table.rows[0]
    assert row[table.columns.index("Walls")].value == pytest.approx(4 / 3)
    assert row[table.columns.index("GS")].value == pytest.approx(0.649654, abs=1e-6)


def test_memory_gap_by_hand_against_the_minimap_oracle(episodes):
    normal = episodes[1]  # GS = (0 + 0 + 1 * 30/81) / 2 = 0.185185
    oracle = dict(normal, minimap=True, success=True, steps=58, optimal_steps=29)  # GS = (1 + 1 * 29/58 + 0) / 2 = 0.75
    assert mm.game_score([normal]) == pytest.approx(0.185185, abs=1e-6)
    assert mm.game_score([oracle]) == pytest.approx(0.75)
    gap = next(t for t in metrics.summarize("maze3d", [normal, oracle]) if "Memory Gap" in t.title)
    # MemoryGap = (1 - S / S*) x 100 = (1 - 0.185185 / 0.75) x 100 = 75.3%
    assert gap.rows[0][-1] == pytest.approx(75.3)
    assert "minimap" in gap.note
    # the memory map (cogsim's text oracle) is a condition of its own, not the Memory Gap's oracle
    assert not any(
        "Memory Gap" in t.title
        for t in metrics.summarize("maze3d", [normal, dict(oracle, minimap=False, memory_map=True)])
    )
