"""paper:kidgym puts the rows of people (agents human:NAME, from `cogsim play --preset paper:kidgym`)
just above the paper's Human row in Tables 2 and 6; models' rows stay above the published ones."""

from __future__ import annotations

from cogsim.benchmarks.kidgym import PAPER_TASKS
from cogsim.envs import spec
from cogsim.report.papers import RunCells, paper, published


def _episodes(agent: str) -> list[dict]:
    return [
        {
            "env_id": f"kidgym/{task}",
            "agent": agent,
            "seed": 0,
            "success": True,
            "layout": None,
            "mechanics": "release",
            "look": "release",
            "options": {**spec(f"kidgym/{task}").defaults, "level": level},
        }
        for task in PAPER_TASKS
        for level in (1, 2, 3)
    ]


def test_a_persons_rows_sit_beside_the_papers_human_row():
    chosen = paper("paper:kidgym")
    run = RunCells(chosen.cells, _episodes("human:ann") + _episodes("openai:m"), None, chosen.release_check)
    table2, table6 = chosen.tables(run, published("kidgym"))
    names2 = [(row[0], row[2]) for row in table2.rows]
    at = names2.index(("Human", "Table 2"))
    assert names2[at - 3 : at] == [("human:ann", "this run")] * 3
    assert names2[:3] == [("openai:m", "this run")] * 3 and names2[3][1] == "Table 2"
    names6 = [(row[0], row[1]) for row in table6.rows]
    assert names6[names6.index(("Human", "Table 6")) - 1] == ("human:ann", "this run")
    assert names6[0] == ("openai:m", "this run")
