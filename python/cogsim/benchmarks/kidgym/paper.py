"""paper:kidgym: the twelve tasks of the paper's Table 2 at levels 1-3, 100 zero-shot rounds per task
and level for every model (seeds SEED..SEED+99 in every cell: "every model on the identical set"; the
paper publishes no seeds). Tables: Table 2 (success rate per task and level) and Table 6 (the
capability scores the paper derives from it)."""

from __future__ import annotations

from cogsim.benchmarks.kidgym import PAPER_TASKS
from cogsim.benchmarks.kidgym.metrics import CAPABILITIES, PAPER_TASK_CODES, TASK_CAPABILITIES, capability_scores
from cogsim.metrics import Table
from cogsim.report.papers import Cell, Paper, RunCells, fmt, register

LEVELS = (1, 2, 3)
ROUNDS = 100
_NAME_OF = {code: name for code, (name, _) in TASK_CAPABILITIES.items()}


def cells() -> list[Cell]:
    return [Cell(f"kidgym/{name}", {"level": level}, ROUNDS) for name in PAPER_TASKS for level in LEVELS]


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
    for agent in run.agents():
        rates: dict[str, dict[int, float]] = {code: {} for code in codes}
        for level in LEVELS:
            row = [agent, level, "this run"]
            for code in codes:
                cell = run.find(f"kidgym/{_NAME_OF[code]}", level=level)
                episodes = run.get(cell, agent)
                if episodes:
                    rates[code][level] = _rate(episodes)
                row.append(run.mark("Table 2", agent, f"{code} level {level}", [cell], fmt(_rate(episodes), 2)))
            table2.rows.append(row)
        scores = capability_scores(rates, codes=codes)
        row = [agent, "this run"]
        for capability in CAPABILITIES:
            tested = [c for c in codes if capability in TASK_CAPABILITIES[c][1]]
            tasks = [run.find(f"kidgym/{_NAME_OF[c]}", level=lv) for c in tested for lv in LEVELS]
            row.append(run.mark("Table 6", agent, capability, tasks, fmt(scores[capability], 1)))
        table6.rows.append(row)
    table2.rows += [
        [r["model"], r["level"], "Table 2"] + [fmt(r["values"][c], 2) for c in codes] for r in data["table2"]
    ]
    table6.rows += [[model, "Table 6"] + [str(v) for v in values] for model, values in data["table6"]["rows"].items()]
    return [table2, table6]


register(Paper("kidgym", "KidGym (Table 2, Table 6)", cells(), tables, __package__))
