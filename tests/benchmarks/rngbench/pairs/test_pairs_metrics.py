"""Matching Pairs metrics on hand-computed examples: Score%, Resp./Score, PF%, IA%, Memory Gap, duels, Elo."""

from __future__ import annotations

import pytest

from cogsim import metrics
from cogsim.benchmarks.rngbench.pairs import metrics as pm
from cogsim.benchmarks.rngbench.stats import memory_gap


def single(agent, matched, responses, pf=0, ia=0, memory=False, pairs=8, optimal=24):
    return {
        "env_id": "pairs/single",
        "agent": agent,
        "rows": 4,
        "cols": 4,
        "pairs": pairs,
        "matched": matched,
        "responses": responses,
        "parse_failures": pf,
        "invalid": ia,
        "optimal_responses": optimal,
        "modality": "text",
        "memory_map": memory,
        "cot": True,
        "feedback": True,
    }


def cells(table, agent, column, **where):
    index = table.columns.index(column)
    for row in table.rows:
        if row[0] == agent and all(row[table.columns.index(k)] == v for k, v in where.items()):
            return row[index]
    raise KeyError(agent)


def test_single_player_metrics_by_hand():
    episodes = [single("m", 8, 40, pf=2, ia=2), single("m", 4, 40, pf=0, ia=6)]
    table = metrics.summarize("pairs", episodes)[0]
    # Score: (8/8 + 4/8) / 2 = 75%; Resp./Score: 80 responses / 12 pairs; PF 2/80; IA 8/80
    assert cells(table, "m", "Score %").value == pytest.approx(75.0)
    assert cells(table, "m", "Resp./Score").value == pytest.approx(80 / 12)
    assert cells(table, "m", "PF %").value == pytest.approx(2.5)
    assert cells(table, "m", "IA %").value == pytest.approx(10.0)
    assert cells(table, "m", "Optimal Resp./Score") == 3.0
    assert cells(table, "m", "N") == 2


def test_memory_gap_by_hand_and_only_when_the_oracle_is_clearly_better():
    assert memory_gap(0.6, 0.8) == pytest.approx(25.0)
    assert memory_gap(0.79, 0.8) is None  # S* not non-trivially above S
    assert memory_gap(0.0, 0.0) is None
    episodes = [single("m", 4, 40), single("m", 8, 30, memory=True)]
    tables = metrics.summarize("pairs", episodes)
    gap = next(t for t in tables if "Memory Gap" in t.title)
    assert gap.rows[0][-1] == pytest.approx(50.0)  # S = 0.5, S* = 1.0


def duel(a, b, score_a, score_b):
    return {
        "env_id": "pairs/duel",
        "agent": f"{a} vs {b}",
        "pairs": score_a + score_b,
        "scores": [score_a, score_b],
        "rows": 4,
        "cols": 4,
        "players": [a, b],
    }


def test_elo_by_hand():
    # one game from 1500/1500 (the paper's start), K=32: expected 0.5 each, the winner gains 16
    assert pm.elo_ratings([("a", "b", 1.0)]) == {"a": 1516.0, "b": 1484.0}
    ratings = pm.elo_ratings([("a", "b", 0.5)])
    assert ratings == {"a": 1500.0, "b": 1500.0}
    # two games in order: a wins (1516/1484), then a wins again: expected_a = 1/(1+10^(-32/400))
    expected = 1 / (1 + 10 ** (-32 / 400))
    two = pm.elo_ratings([("a", "b", 1.0), ("b", "a", 0.0)], orders=1)
    assert two["a"] == pytest.approx(1516 + 32 * (1 - expected))
    assert sum(pm.elo_ratings([("a", "b", 1.0), ("b", "c", 0.5), ("c", "a", 0.0)]).values()) == pytest.approx(4500)
    # cogsim's earlier start rating stays available
    assert pm.elo_ratings([("a", "b", 1.0)], base=pm.ELO_BASE_COGSIM) == {"a": 1016.0, "b": 984.0}


def test_duel_tables_by_hand():
    episodes = [duel("x", "y", 5, 3), duel("y", "x", 4, 4), duel("x", "y", 2, 6), duel("y", "x", 1, 7)]
    tables = metrics.summarize("pairs", episodes)
    table = next(t for t in tables if t.title == "Matching Pairs duels")
    assert cells(table, "x", "W/T/L") == "2/1/1" and cells(table, "y", "W/T/L") == "1/1/2"
    # the paper's Win%: a tie is half a win: x (2 + 0.5) / 4, y (1 + 0.5) / 4
    assert cells(table, "x", "Win %").value == pytest.approx(62.5)
    assert cells(table, "y", "Win %").value == pytest.approx(37.5)
    # pairs won by x: 5/8, 4/8, 2/8, 7/8 -> mean 18/32
    assert cells(table, "x", "Pairs won %").value == pytest.approx(100 * 18 / 32)
    assert cells(table, "x", "Elo") > cells(table, "y", "Elo")
    head = next(t for t in tables if "head to head" in t.title)
    assert head.rows == [["x", "y", "2/1/1"]]
    assert pm.players_of({"agent": ["p", "q"]}) == ("p", "q") and pm.players_of({"agent": "solo"}) is None
