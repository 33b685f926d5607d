"""3D Maze metrics on hand-computed examples: SR, Efficiency, Explore, Walls, GS, Traj-Match, Memory Gap."""

from __future__ import annotations

import pytest

from cogsim import metrics
from cogsim.benchmarks.rngbench.maze import metrics as mm


def episode(agent, success, steps, optimal, visited, collisions=0, memory=False, traj=None, size=5):
    return {
        "env_id": "maze3d/nav",
        "agent": agent,
        "size": size,
        "modality": "text",
        "minimap": memory,
        "success": success,
        "steps": steps,
        "optimal_steps": optimal,
        "visited_cells": visited,
        "cells": size * size,
        "collisions": collisions,
        "traj_match": traj,
    }


def test_game_score_by_hand():
    items = [
        episode("m", True, 20, 10, 10),
        episode("m", True, 10, 10, 5),
        episode("m", False, 80, 12, 15, collisions=4),
        episode("m", False, 80, 12, 20, collisions=2),
    ]
    # SR = 0.5; Eff = (0.5 + 1.0) / 2 = 0.75; Explore = (10 + 5 + 15 + 20) / 4 / 25 = 0.5
    assert mm.success_rate(items) == 0.5 and mm.efficiency(items) == 0.75 and mm.explore(items) == 0.5
    # GS = (0.5 + 0.5 * 0.75 + 0.5 * 0.5) / 2 = 0.5625
    assert mm.game_score(items) == pytest.approx(0.5625)
    table = metrics.summarize("maze3d", items)[0]
    row = table.rows[0]
    col = lambda name: row[table.columns.index(name)]
    assert (
        col("SR %").value == 50.0 and col("Efficiency").value == 0.75 and col("Explore %").value == pytest.approx(50.0)
    )
    assert col("Walls").value == 1.5 and col("GS").value == pytest.approx(0.5625) and col("Size") == "5x5"
    assert "Traj-Match %" not in table.columns


def test_oracle_scores_gs_one_and_all_failures_score_half_their_exploration():
    assert mm.game_score([episode("o", True, 14, 14, 9)]) == 1.0
    assert mm.game_score([episode("r", False, 80, 14, 5)]) == pytest.approx(0.1)  # (0 + 0 + 1 * 0.2) / 2


def test_traj_match_column_and_memory_gap():
    items = [episode("m", False, 80, 14, 5, traj=0.5), episode("m", True, 14, 14, 9, memory=True, traj=0.9)]
    tables = metrics.summarize("maze3d", items)
    table = tables[0]
    assert "Traj-Match %" in table.columns
    gap = next(t for t in tables if "Memory Gap" in t.title)
    # the oracle is the release's minimap condition; S = GS without it = 0.1; S* = 1.0 -> 90%
    assert gap.rows[0][-1] == pytest.approx(90.0)
