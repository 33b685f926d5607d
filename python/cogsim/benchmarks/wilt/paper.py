"""paper:wilt: the full split's 50 rules once each (Table 1) and the lite split's 10 (Table 4). A
rule is the episode seed modulo the split size, so any run of 50 (10) consecutive seeds plays every
rule once."""

from __future__ import annotations

from cogsim.metrics import Table
from cogsim.report.papers import Cell, Paper, RunCells, fmt, register

FULL, LITE = 50, 10


def cells() -> list[Cell]:
    return [
        Cell("wilt/full", {}, FULL),
        Cell("wilt/lite", {}, LITE),
    ]


def _count(episodes: list[dict], key: str) -> str:
    return f"{sum(bool(e[key]) for e in episodes)}/{len(episodes)}" if episodes else "-"


def _mean(episodes: list[dict], key: str) -> float:
    return sum(e[key] for e in episodes) / len(episodes) if episodes else float("nan")


def tables(run: RunCells, data: dict) -> list[Table]:
    full, lite = run.find("wilt/full"), run.find("wilt/lite")
    table1 = Table(
        "WILT Table 1: full split (50 rules)",
        ["model", "source", "accuracy", "approx. correct", "avg. guesses", "avg. repeats"],
        note="Avg. guesses: test cases asked before the final guess (the episodes' tests used); "
        "avg. repeats: repeated test cases per rule. The paper's o1-preview guesses carry its footnote 3.",
    )
    table4 = Table(
        "WILT Table 4: lite split (10 rules)",
        ["model", "source", "accuracy", "avg. guesses"],
    )
    for agent in run.agents():
        played = run.get(full, agent)
        mark = lambda label, value: run.mark("Table 1", agent, label, [full], value)
        table1.rows.append(
            [
                agent,
                "this run",
                mark("accuracy", _count(played, "correct")),
                mark("approx. correct", _count(played, "approx_correct")),
                mark("avg. guesses", fmt(_mean(played, "num_tests"), 2)),
                mark("avg. repeats", fmt(_mean(played, "repeats"), 2)),
            ]
        )
        played = run.get(lite, agent)
        table4.rows.append(
            [
                agent,
                "this run",
                run.mark("Table 4", agent, "accuracy", [lite], _count(played, "correct")),
                run.mark("Table 4", agent, "avg. guesses", [lite], fmt(_mean(played, "num_tests"), 2)),
            ]
        )
    for row in data["table1"]:
        guesses = f"{row['avg_guesses']:g}" + (f" ({row['footnote']})" if row.get("footnote") else "")
        table1.rows.append(
            [row["model"], "Table 1", row["accuracy"], row["approx_correct"], guesses, f"{row['avg_repeats']:.2f}"]
        )
    table4.rows += [[row["model"], "Table 4", row["accuracy"], f"{row['avg_guesses']:g}"] for row in data["table4"]]
    return [table1, table4]


register(Paper("wilt", "WILT (Tables 1 and 4)", cells(), tables, __package__))
