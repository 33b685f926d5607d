"""paper:kidgym: the twelve tasks of the paper's Table 2 at levels 1-3, 100 zero-shot rounds per task
and level for every model (seeds SEED..SEED+99 in every cell: "every model on the identical set"; the
paper publishes no seeds; the maze tasks' 100 rounds are the release's 100 layouts, seed s playing
layout s % 100 + 1). Tables: Table 2 (success rate per task and level) and Table 6 (the capability
scores the paper derives from it).

Cells whose episodes are not the release's are marked (:func:`release_differences`): cogsim's
mechanics, pictures or action lists, text-only play, and where the release itself cannot play what
the paper reports: Sorting level 1 (its table is not published) and the Maze layouts its own check
never accepts."""

from __future__ import annotations

from typing import Sequence

from cogsim.benchmarks.kidgym import PAPER_TASKS
from cogsim.benchmarks.kidgym.metrics import CAPABILITIES, PAPER_TASK_CODES, TASK_CAPABILITIES, capability_scores
from cogsim.metrics import Table
from cogsim.report.papers import Cell, Paper, RunCells, fmt, register

LEVELS = (1, 2, 3)
ROUNDS = 100
_NAME_OF = {code: name for code, (name, _) in TASK_CAPABILITIES.items()}


def cells() -> list[Cell]:
    return [Cell(f"kidgym/{name}", {"level": level}, ROUNDS) for name in PAPER_TASKS for level in LEVELS]


# Maze layouts on which the release's generator never returns: its check_grid accepts no placement of
# the keys (tests/benchmarks/kidgym/data/kidgym_release_mechanics.json, maze_accepted)
UNPLAYABLE_LAYOUTS = {2: (12, 14, 22, 31, 35, 39, 51, 83), 3: (3, 24, 28, 31, 46, 48, 50, 72, 80, 97)}
MAZES = ("kidgym/maze", "kidgym/decode_maze", "kidgym/memory_maze")


def release_differences(cell: Cell, episodes: Sequence[dict]) -> list[str]:
    """Why a cell's episodes are not the release's: cogsim's mechanics, pictures or action lists, no
    pictures at all, and what the release itself cannot play (Sorting level 1, some Maze layouts)."""
    how = []
    if any(e.get("mechanics", "cogsim") != "release" for e in episodes):
        how.append("cogsim's mechanics, not the release's (mechanics=cogsim: its own layouts and rules)")
    looks = {e.get("look") for e in episodes}
    if "cogsim" in looks:
        how.append("cogsim's pictures, not the release's (look=cogsim)")
    if None in looks:
        how.append("no pictures (images=False): the paper's models saw the frames")
    if any((e.get("options") or {}).get("actions") == "executable" for e in episodes):
        how.append("only reachable actions listed (actions=executable); the release lists them all")
    level = cell.options.get("level")
    if cell.env_id == "kidgym/sorting" and level == 1:
        how.append("Sorting level 1: the release's table (Sorting_L1.json) is not published; cogsim reconstructs it")
    if cell.env_id == "kidgym/maze" and level in UNPLAYABLE_LAYOUTS:
        played = sorted({int(e["layout"]) for e in episodes if e.get("layout")} & set(UNPLAYABLE_LAYOUTS[level]))
        if played:
            how.append(
                f"Maze level {level} layouts {', '.join(map(str, played))}: the release's generator never finishes "
                "on them (its check accepts no key placement); cogsim places the keys at random"
            )
    if cell.env_id in MAZES:
        layouts = {int(e["layout"]) for e in episodes if e.get("layout")}
        if layouts and len(layouts) < len(episodes):
            how.append(f"{len(layouts)} distinct layouts in {len(episodes)} episodes (the paper: each of the 100 once)")
    return how


def _rate(episodes: list[dict]) -> float:
    return sum(bool(e["success"]) for e in episodes) / len(episodes) if episodes else float("nan")


def tables(run: RunCells, data: dict) -> list[Table]:
    codes = list(data["tasks"])  # the paper's column order
    if sorted(codes) != sorted(PAPER_TASK_CODES):
        raise ValueError(f"published tasks {codes} are not the paper's twelve {PAPER_TASK_CODES}")
    table2 = Table(
        "KidGym Table 2: zero-shot success rate per task and level",
        ["model", "level", "source"] + codes,
        note="Published: the paper's Table 2 (100 rounds per cell); where the authors' project "
        "page prints other Human and Random values (31 cells, docs/fidelity.md), these are the paper's.",
    )
    table6 = Table(
        "KidGym Table 6: capability scores (100 x mean over the capability's tasks of 0.2 p1 + 0.3 p2 + 0.5 p3)",
        ["model", "source"] + list(CAPABILITIES),
        note="The run's scores count the paper's twelve tasks. Published: the paper's Table 6, seven of whose cells "
        "differ from what its Table 2 gives (listed in the published data, `printed_differently`).",
    )
    people2, people6 = [], []  # the rows of people (``cogsim play``'s human:NAME): beside the paper's Human row
    for agent in run.agents():
        rates: dict[str, dict[int, float]] = {code: {} for code in codes}
        rows2 = people2 if agent.startswith("human:") else table2.rows
        rows6 = people6 if agent.startswith("human:") else table6.rows
        for level in LEVELS:
            row = [agent, level, "this run"]
            for code in codes:
                cell = run.find(f"kidgym/{_NAME_OF[code]}", level=level)
                episodes = run.get(cell, agent)
                if episodes:
                    rates[code][level] = _rate(episodes)
                row.append(run.mark("Table 2", agent, f"{code} level {level}", [cell], fmt(_rate(episodes), 2)))
            rows2.append(row)
        scores = capability_scores(rates, codes=codes)
        row = [agent, "this run"]
        for capability in CAPABILITIES:
            tested = [c for c in codes if capability in TASK_CAPABILITIES[c][1]]
            tasks = [run.find(f"kidgym/{_NAME_OF[c]}", level=lv) for c in tested for lv in LEVELS]
            row.append(run.mark("Table 6", agent, capability, tasks, fmt(scores[capability], 1)))
        rows6.append(row)
    table2.rows += _beside_human(
        [[r["model"], r["level"], "Table 2"] + [fmt(r["values"][c], 2) for c in codes] for r in data["table2"]], people2
    )
    table6.rows += _beside_human(
        [[model, "Table 6"] + [str(v) for v in values] for model, values in data["table6"]["rows"].items()], people6
    )
    return [table2, table6]


def _beside_human(published_rows: list, people: list) -> list:
    """The published rows with the run's people's rows just above the paper's Human row."""
    at = next((i for i, row in enumerate(published_rows) if row[0] == "Human"), len(published_rows))
    return published_rows[:at] + people + published_rows[at:]


register(Paper("kidgym", "KidGym (Table 2, Table 6)", cells(), tables, __package__, release_differences))
