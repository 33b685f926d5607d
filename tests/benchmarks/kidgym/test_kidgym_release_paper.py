"""paper:kidgym marks the cells whose episodes are not the release's, and says why."""

from __future__ import annotations

from cogsim.benchmarks.kidgym import PAPER_TASKS
from cogsim.benchmarks.kidgym.paper import UNPLAYABLE_LAYOUTS
from cogsim.envs import spec
from cogsim.report.papers import RunCells, paper, published


def _episodes(options: dict, outcome: dict) -> list[dict]:
    """100 rounds per cell as a run stores them: the options given and the env's outcome record."""
    out = []
    for task in PAPER_TASKS:
        env_id = f"kidgym/{task}"
        for level in (1, 2, 3):
            for seed in range(100):
                layout = seed % 100 + 1 if task in ("maze", "decode_maze", "memory_maze") else None
                record = {"env_id": env_id, "agent": "m", "seed": seed, "success": seed % 3 == 0, "layout": layout}
                record["options"] = {**spec(env_id).defaults, "level": level, **options}
                out.append({**record, **outcome})
    return out


def _marked(run: RunCells) -> dict[str, str]:
    chosen = paper("paper:kidgym")
    chosen.tables(run, published("kidgym"))
    return {cells: how for table, _, cells, how in run.differences() if table == "Table 2"}


def test_release_runs_mark_only_what_the_release_cannot_play():
    chosen = paper("paper:kidgym")
    run = RunCells(chosen.cells, _episodes({}, {"mechanics": "release", "look": "release"}), None, chosen.release_check)
    marked = _marked(run)
    assert set(marked) == {"SO level 1", "MA level 2", "MA level 3"}
    assert "(Sorting_L1.json) is not published" in marked["SO level 1"]
    assert ", ".join(map(str, UNPLAYABLE_LAYOUTS[2])) in marked["MA level 2"]


def test_cogsims_pictures_and_mechanics_mark_every_cell():
    chosen = paper("paper:kidgym")
    episodes = _episodes({"look": "cogsim"}, {"mechanics": "cogsim", "look": "cogsim"})
    marked = _marked(RunCells(chosen.cells, episodes, None, chosen.release_check))
    reasons = " ".join(marked.values())
    assert "cogsim's pictures, not the release's" in reasons and "cogsim's mechanics" in reasons
    assert sum(len(cells.split(", ")) if "cells" not in cells else int(cells.split()[0]) for cells in marked) >= 36


def test_text_only_and_executable_actions_are_marked():
    chosen = paper("paper:kidgym")
    episodes = _episodes({"images": False, "actions": "executable"}, {"mechanics": "release", "look": None})
    reasons = " ".join(_marked(RunCells(chosen.cells, episodes, None, chosen.release_check)).values())
    assert "no pictures (images=False)" in reasons and "actions=executable" in reasons


def test_maze_cells_that_repeat_layouts_are_marked():
    chosen = paper("paper:kidgym")
    episodes = [
        {**e, "layout": 1} if e["env_id"] == "kidgym/memory_maze" else e
        for e in _episodes({}, {"mechanics": "release", "look": "release"})
    ]
    marked = _marked(RunCells(chosen.cells, episodes, None, chosen.release_check))
    assert any("MMA level 1" in cells and "1 distinct layouts in 100 episodes" in how for cells, how in marked.items())
