"""3D Maze metrics, as the released harness counts them (runner.py GameResult): SR, Efficiency
(L*/L over successful episodes; L the actions taken, failed ones and random fallbacks included, L*
the release's shortest action count, a slide being one action), Explore (fraction of cells stood
on, every cell a slide passes counted), Walls (failed move_forward actions, "wall bumps", per
episode), Game Score GS = (SR + SR*Eff + (1 - SR)*Explore) / 2, Traj-Match in ask-output mode, and
the Memory Gap against the release's oracle condition, the minimap (``--minimap``)."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Sequence

import numpy as np

from cogsim.benchmarks.rngbench.stats import agent_name, bootstrap_statistic, group, memory_gap_table, option
from cogsim.metrics import Estimate, Table, mean_ci, register, wilson

ORACLE = "minimap"  # the release's Memory Gap oracle: run.py --minimap


def condition(episode: dict, with_memory: bool = True) -> str:
    parts = [str(option(episode, "modality", "3d"))]
    generator, step = option(episode, "generator", "v6"), option(episode, "step", "slide")
    if generator != "v6":
        parts.append(f"maze {generator}")
    if step != "slide":
        parts.append(f"{step} steps")
    for name, label in (
        ("memory_map", "memory map"),
        ("minimap", "minimap"),
        ("wall_tags", "colour tags"),
        ("ask_output", "ask-output"),
    ):
        if (with_memory or name != ORACLE) and option(episode, name, False):
            parts.append(label)
    history = option(episode, "history", "full")
    if history != "full":
        parts.append(f"history {history}")
    if not option(episode, "cot", True):
        parts.append("no CoT")
    if not option(episode, "feedback", True):
        parts.append("no feedback")
    return ", ".join(parts)


def success_rate(episodes: Sequence[dict]) -> float:
    return sum(bool(e["success"]) for e in episodes) / len(episodes) if episodes else float("nan")


def efficiency(episodes: Sequence[dict]) -> float:
    values = [e["optimal_steps"] / e["steps"] for e in episodes if e["success"]]
    return float(np.mean(values)) if values else float("nan")


def explore(episodes: Sequence[dict]) -> float:
    return float(np.mean([e["visited_cells"] / e["cells"] for e in episodes])) if episodes else float("nan")


def game_score(episodes: Sequence[dict]) -> float:
    """GS = (SR + SR * Eff + (1 - SR) * Explore) / 2; Eff counts as 0 when nothing succeeded."""
    sr, eff = success_rate(episodes), efficiency(episodes)
    eff = 0.0 if math.isnan(eff) else eff
    return (sr + sr * eff + (1.0 - sr) * explore(episodes)) / 2.0


def summarize(episodes: Sequence[dict]) -> list[Table]:
    episodes = [e for e in episodes if "success" in e]
    if not episodes:
        return []
    asks = any(e.get("traj_match") is not None for e in episodes)
    table = Table(
        "3D Maze",
        ["Agent", "Size", "Condition", "N", "SR %", "Efficiency", "Explore %", "Walls", "GS"]
        + (["Traj-Match %"] if asks else []),
        note="SR = success rate; Efficiency = L*/L over successful episodes (L* fewest actions, turns included, a slide one "
        "action; L actions taken); Explore = fraction of cells visited (all episodes); Walls = failed move_forward actions "
        "(wall bumps) per episode; GS = (SR + SR*Eff + (1-SR)*Explore)/2.",
    )
    gaps: dict[tuple, dict[bool, Estimate]] = defaultdict(dict)
    for (agent, size, cond), items in group(episodes, lambda e: (agent_name(e), int(e["size"]), condition(e))).items():
        wins = sum(bool(e["success"]) for e in items)
        row = [
            agent,
            f"{size}x{size}",
            cond,
            len(items),
            _percent(wilson(wins, len(items))),
            mean_ci([e["optimal_steps"] / e["steps"] for e in items if e["success"]], bounds=(0.0, 1.0)),
            _percent(mean_ci([e["visited_cells"] / e["cells"] for e in items], bounds=(0.0, 1.0))),
            mean_ci([e["collisions"] for e in items]),
            bootstrap_statistic(items, game_score),
        ]
        if asks:
            row.append(
                _percent(
                    mean_ci([e["traj_match"] for e in items if e.get("traj_match") is not None], bounds=(0.0, 1.0))
                )
            )
        table.rows.append(row)
    for (agent, size, cond, memory), items in group(
        episodes,
        lambda e: (agent_name(e), int(e["size"]), condition(e, with_memory=False), bool(option(e, ORACLE, False))),
    ).items():
        gaps[(agent, f"{size}x{size}", cond)][memory] = Estimate(game_score(items), None, None, len(items))
    gap = memory_gap_table(
        "3D Maze Memory Gap (GS)",
        "GS",
        gaps,
        ["Agent", "Size", "Condition"],
        oracle="the release's minimap of the uncovered maze is shown every step (minimap=True)",
    )
    return [table] + ([gap] if gap else [])


def _percent(estimate: Estimate) -> Estimate:
    scale = lambda v: None if v is None else 100.0 * v
    return Estimate(100.0 * estimate.value, scale(estimate.low), scale(estimate.high), estimate.n)


register("maze3d", summarize)
