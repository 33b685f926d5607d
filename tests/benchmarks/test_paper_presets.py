"""Paper presets (`cogsim run --preset paper:<benchmark>`) and the report's paper tables: the cells
each preset runs, the run's rows in the paper's layout beside the published ones, and the marks on
cells whose protocol differs from the paper's."""

from __future__ import annotations

import numpy as np
import pytest

import cogsim
from cogsim.benchmarks.kidgym import PAPER_TASKS
from cogsim.cli import main
from cogsim.envs import spec
from cogsim.harness import RunConfig
from cogsim.report import build_report
from cogsim.report.document import Document
from cogsim.report.papers import RunCells, add_paper_section, paper, preset_cells, presets, published
from cogsim.store import open_store


def _episode(env_id: str, agent, seed: int, options: dict, **outcome) -> dict:
    return {"env_id": env_id, "agent": agent, "seed": seed, "options": {**spec(env_id).defaults, **options}, **outcome}


def _table(tables, title_start: str):
    return next(t for t in tables if t.title.startswith(title_start))


def test_presets_and_their_cells_make_envs(tmp_path, monkeypatch):
    from tests.benchmarks.rngbench.pairs.pairs_standin import make_standin, use_standin

    from cogsim.release_assets import AssetsMissing
    from conftest import KIDGYM_RELEASE
    from kidgym_standin import install_kidgym_images

    assert presets() == ["paper:cubebench", "paper:kidgym", "paper:rngbench", "paper:wilt"]
    monkeypatch.setenv("COGSIM_CACHE", str(tmp_path / "bare"))
    pictures = [c for c in preset_cells("paper:rngbench", ["a", "b"]) if c.options.get("modality") == "image"]
    for cell in pictures:  # the release's pictures: without its files the run stops before it starts
        if cell.env_id.startswith("pairs/"):
            with pytest.raises(AssetsMissing):
                cogsim.make(cell.env_id, **cell.options)
    use_standin(make_standin(tmp_path), tmp_path / "cache", monkeypatch)  # files of the release's names
    install_kidgym_images(KIDGYM_RELEASE)  # in that cache too
    for name in presets():
        for cell in preset_cells(name, ["a", "b"]):
            cogsim.make(cell.env_id, **cell.options).close()


def test_kidgym_preset_runs_the_papers_twelve_tasks_at_three_levels():
    cells = preset_cells("paper:kidgym", ["oracle"])
    assert len(cells) == 36 and all(c.episodes == 100 for c in cells)
    assert {c.env_id for c in cells} == {f"kidgym/{t}" for t in PAPER_TASKS}
    assert "kidgym/decode" not in {c.env_id for c in cells}  # the release's thirteenth is not in the tables


def test_duels_need_two_agents_and_two_are_seated_both_ways():
    assert all(c.env_id != "pairs/duel" for c in preset_cells("paper:rngbench", ["a"]))
    duels = [c for c in preset_cells("paper:rngbench", ["a", "b"]) if c.env_id == "pairs/duel"]
    assert [c.seats for c in duels] == [("a", "b"), ("b", "a")]
    duels = [c for c in preset_cells("paper:rngbench", list("abcde")) if c.env_id == "pairs/duel"]
    assert [c.seats for c in duels] == [None]  # five agents play every seating anyway


def test_unknown_preset_is_refused_with_the_known_ones(tmp_path, capsys):
    with pytest.raises(ValueError, match="paper:kidgym"):
        RunConfig(tasks=[], agents=["oracle"], preset="paper:nope")
    assert main(["run", "--preset", "kidgym", "--out", str(tmp_path / "x"), "--no-progress"]) != 0
    assert "preset must be one of paper:cubebench, paper:kidgym" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_kidgym_rows_reproducing_the_papers_rates_give_its_rows_unmarked():
    data = published("kidgym")
    o3 = {r["level"]: r["values"] for r in data["table2"] if r["model"] == "o3"}
    code_of = {"classification": "CL", "selection": "SE", "sorting": "SO", "maze": "MA", "filling": "FI"}
    code_of |= {"puzzle": "PU", "placement": "PL", "counting": "CO", "decode_maze": "DMA", "memory_maze": "MMA"}
    code_of |= {"memory_decode": "MDE", "memory_filling": "MFI"}
    episodes = [
        _episode(f"kidgym/{task}", "m", seed, {"level": level}, success=seed < round(100 * o3[level][code_of[task]]))
        for task in PAPER_TASKS
        for level in (1, 2, 3)
        for seed in range(100)
    ]
    chosen = paper("paper:kidgym")
    run = RunCells(chosen.cells, episodes)
    table2, table6 = chosen.tables(run, data)
    mine = [row for row in table2.rows if row[2] == "this run"]
    theirs = [row for row in table2.rows if row[0] == "o3"]
    assert [row[3:] for row in mine] == [row[3:] for row in theirs]  # same layout, same cells, no mark
    assert table2.columns[3:] == data["tasks"]
    assert [float(v) for v in table6.rows[0][2:]] == pytest.approx(data["table6"]["rows"]["o3"], abs=0.5)
    assert run.differences() == []


def test_wilt_marks_cells_with_fewer_episodes_other_options_or_history():
    lite = [
        _episode("wilt/lite", "m", seed, {}, correct=seed < 6, approx_correct=False, num_tests=13, repeats=0)
        for seed in range(10)
    ]
    full = [
        _episode(
            "wilt/full",
            "m",
            seed,
            {"compare": "truthiness"},
            correct=False,
            approx_correct=True,
            num_tests=20,
            repeats=1,
        )
        for seed in range(40)
    ]
    chosen = paper("paper:wilt")
    table1, table4 = chosen.tables(RunCells(chosen.cells, full + lite), published("wilt"))
    assert table4.rows[0] == ["m", "this run", "6/10", "13.00"]  # the paper's protocol: no mark
    assert table1.rows[0][2:] == ["0/40*", "40/40*", "20.00*", "1.00*"]
    run = RunCells(chosen.cells, full + lite, history="last:2")
    chosen.tables(run, published("wilt"))
    how = {row[0]: row[3] for row in run.differences()}
    assert "finished episodes: 40 (the paper: 50)" in how["Table 1"] and "options compare=truthiness" in how["Table 1"]
    assert how["Table 4"] == "history last:2"


def test_rng_duels_of_five_agents_give_the_papers_record_shape():
    agents = list("abcde")
    episodes = []
    for i, a in enumerate(agents):
        for j, b in enumerate(agents):
            if a != b:
                for seed in (0, 1):  # the earlier agent in the list always wins
                    scores = [30, 10] if i < j else [10, 30]
                    episodes.append(
                        _episode("pairs/duel", [a, b], seed, dict(paper_options()), scores=scores, pairs=40)
                    )
    chosen = paper("paper:rngbench")
    run = RunCells(chosen.cells, episodes)
    table3 = chosen.tables(run, published("rngbench"))[1]
    mine = {row[0]: row[2:] for row in table3.rows if row[1] == "this run"}
    assert mine["a"][:4] == ["100.0", "16", "0", "0"] and mine["e"][:4] == ["0.0", "0", "0", "16"]
    assert run.differences() == []


def paper_options() -> dict:
    from cogsim.benchmarks.rngbench.paper import PAIRS_DUEL

    return PAIRS_DUEL


def test_unknown_preset_in_a_store_is_reported_not_run():
    document = Document("r")
    add_paper_section(document, "paper:<script>", [], None)
    assert "unknown preset" in document.markdown() and "<script>" not in document.html()


def test_preset_run_and_report(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["run", "--preset", "paper:wilt", "--agent", "oracle", "--episodes", "2", "--out", str(out), "--no-progress"]
    assert main(args) == 0
    assert "4/4 episodes finished" in capsys.readouterr().out
    with open_store(out) as store:
        config = store.config()
    assert config["preset"] == "paper:wilt"
    assert [(t["env_id"], t["episodes"]) for t in config["tasks"]] == [("wilt/full", 2), ("wilt/lite", 2)]
    report = build_report(out).markdown()
    assert "## Paper tables: WILT (Tables 1 and 4)" in report
    assert "| oracle | this run | 2/2\\* | 0/2\\* | 0.00\\* | 0.00\\* |" in report
    assert "| Claude 3.5 Sonnet | Table 1 | 14/50 | 10/50 | 16.38 | 0.54 |" in report
    assert "finished episodes: 2 (the paper: 50)" in report


def test_a_malformed_record_in_a_preset_run_is_reported_not_raised():
    from cogsim.report.run_report import add_paper_tables

    finished = [{"env_id": "wilt/full", "agent": "m", "seed": 0, "options": {}}]  # a WILT record without its outcome
    document = Document("r")
    add_paper_tables(document, finished, {"preset": "paper:wilt"})
    assert "The paper tables of preset" in document.markdown() and "KeyError" in document.markdown()


# -- pictures that are not the release's are marked --------------------------------------------------
def _played(env_id: str, options: dict, seed: int = 0, agent: str = "oracle") -> dict:
    """One episode played to its end, as the store holds it (the env's own record of it)."""
    env = cogsim.make(env_id, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while True:
        _, _, done, truncated, info = env.step(env.scripted_response(agent, rng))
        if done or truncated:
            env.close()
            return _episode(env_id, agent, seed, options, **info["episode"])


PICTURE_REASONS = ("pictures", "show_goal", "release files")


def _runcells(chosen, episodes: list) -> RunCells:
    """The run's cells as the report sorts them, with the paper's check of the pictures."""
    return RunCells(chosen.cells, episodes, None, chosen.release_check)


def _picture_reasons(run: RunCells, cell, agent: str = "oracle") -> list[str]:
    how = run.how_differs(cell, agent)
    return [r for r in how if not r.startswith("options ") and any(word in r for word in PICTURE_REASONS)]


def test_rng_cells_are_marked_where_the_pictures_are_not_the_releases(tmp_path, monkeypatch):
    from tests.benchmarks.rngbench.pairs.pairs_standin import make_standin, use_standin

    from cogsim.benchmarks.rngbench.paper import MAZE, PAIRS_SINGLE

    use_standin(make_standin(tmp_path), tmp_path / "cache", monkeypatch)
    chosen = paper("paper:rngbench")
    pairs_cell, maze_cell = chosen.cells[0], chosen.cells[1]
    released = [_played("pairs/single", PAIRS_SINGLE), _played("maze3d/nav", MAZE)]
    assert released[0]["release_assets"]["benchmark"] == "rngbench" and released[1]["look"] == "release"
    run = _runcells(chosen, released)
    assert _picture_reasons(run, pairs_cell) == [] and _picture_reasons(run, maze_cell) == []

    cogsims = [
        _played("pairs/single", {**PAIRS_SINGLE, "look": "cogsim"}),
        _played("maze3d/nav", {**MAZE, "look": "cogsim"}),
    ]
    run = _runcells(chosen, cogsims)
    for cell in (pairs_cell, maze_cell):
        assert _picture_reasons(run, cell) == [
            "cogsim's pictures, not the release's (look=cogsim: chosen, or the release's files were not installed)"
        ]
    goal = _played("maze3d/nav", {**MAZE, "show_goal": True})
    run = _runcells(chosen, [goal])
    assert _picture_reasons(run, maze_cell) == [
        "the goal drawn into the 3D view (show_goal=True); the release's view never shows it"
    ]
    before = [{k: v for k, v in e.items() if k not in ("look", "release_assets")} for e in released]
    run = _runcells(chosen, before)
    assert _picture_reasons(run, maze_cell) == [
        "the pictures' look is not recorded (a run made before episodes recorded it)"
    ]
    unrecorded = {k: v for k, v in released[0].items() if k != "release_assets"}
    assert _picture_reasons(_runcells(chosen, [unrecorded]), pairs_cell) == [
        "the release files the card images came from are not recorded"
    ]
    # the table marks the cells and says why below
    run = _runcells(chosen, [goal] + released[:1])
    table2 = chosen.tables(run, published("rngbench"))[0]
    (mine,) = [row for row in table2.rows if row[1] == "this run"]
    assert all(value.endswith("*") for value in mine[6:])  # the maze's columns
    how = {row[2]: row[3] for row in run.differences()}
    assert any("show_goal=True" in text for text in how.values())


def test_cube_cells_are_marked_where_the_nets_are_not_the_releases():
    chosen = paper("paper:cubebench")
    image = next(c for c in chosen.cells if c.env_id == "cube/optimal-move" and c.options["modality"] == "image")
    text = next(c for c in chosen.cells if c.env_id == "cube/optimal-move" and c.options["modality"] == "text")
    released = [_played("cube/optimal-move", image.options), _played("cube/optimal-move", text.options)]
    assert released[0]["look"] == "release" and released[0]["frames"] == {"format": "png"}
    run = _runcells(chosen, released)
    assert _picture_reasons(run, image) == [] and _picture_reasons(run, text) == []
    cogsims = [_played("cube/optimal-move", {**c.options, "look": "cogsim"}) for c in (image, text)]
    run = _runcells(chosen, cogsims)
    assert _picture_reasons(run, image) == [
        "cogsim's pictures, not the release's (look=cogsim: chosen, or the release's files were not installed)"
    ]
    assert _picture_reasons(run, text) == []  # a text cell shows no net
