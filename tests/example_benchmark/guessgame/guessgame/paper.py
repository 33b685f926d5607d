"""paper:guess: the example's preset, 100 episodes of ``guess/number`` (seeds 0-99), shown beside the
reference rows of ``published.json`` (derived by arithmetic, not taken from a paper: the example
has none)."""

from __future__ import annotations

from cogsim.metrics import Table
from cogsim.report.papers import Cell, Paper, RunCells, fmt, register

EPISODES = 100


def cells() -> list[Cell]:
    return [Cell("guess/number", {}, EPISODES, seeds=tuple(range(EPISODES)))]


def tables(run: RunCells, data: dict) -> list[Table]:
    (cell,) = run.cells
    table = Table("Guess: solved within 7 guesses (1..100)", ["model", "source", "solved %", "most guesses"])
    for agent in run.agents():
        episodes = run.get(cell, agent)
        solved = 100 * sum(e["solved"] for e in episodes) / len(episodes)
        most = max(e["guesses"] for e in episodes)
        mark = lambda label, value: run.mark("Guess", agent, label, [cell], value)
        table.rows.append([agent, "this run", mark("solved %", fmt(solved)), mark("most guesses", str(most))])
    for row in data["rows"]:
        table.rows.append([row["model"], "reference", fmt(row["solved"]), str(row["most_guesses"] or "-")])
    return [table]


register(Paper("guess", "Guessing game (the example's reference rows)", cells(), tables, __package__))
