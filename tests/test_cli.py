"""The `cogsim` command: subcommands, outputs, and errors that name the problem."""

import subprocess
import sys

from cogsim.cli import main


def test_help_lists_the_subcommands(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    for command in ("demo", "cube", "render"):
        assert command in out


def test_cube_distance_and_solve(capsys, cube_oracle):
    assert main(["cube", "distance", "R U R' U'"]) == 0
    assert capsys.readouterr().out.strip() == "4"
    assert main(["cube", "solve", "R U2 F' L D B2"]) == 0
    assert capsys.readouterr().out.split() == ["B2", "D'", "L'", "F", "U2", "R'"]
    assert main(["cube", "distance", "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"]) == 0
    assert capsys.readouterr().out.strip() == "0"


def test_cube_effects_and_scramble(capsys, cube_oracle):
    assert main(["cube", "effects", "R"]) == 0
    lines = dict(line.split() for line in capsys.readouterr().out.splitlines())
    assert lines["R'"] == "DECREASE" and lines["U"] == "INCREASE" and lines["L"] == "INCREASE"
    assert main(["cube", "scramble", "7", "--seed", "2"]) == 0
    assert len(capsys.readouterr().out.split()) == 7


def test_bad_input_exits_2_with_a_message(capsys, cube_oracle):
    assert main(["cube", "distance", "R U X"]) == 2
    assert "invalid move 'X'" in capsys.readouterr().err
    assert main(["cube", "scramble", "25"]) == 2
    assert "0..20" in capsys.readouterr().err


def test_cube_distances_reads_a_file_and_writes_one_distance_per_line(capsys, cube_oracle, tmp_path):
    states = tmp_path / "states.txt"
    states.write_text("R U R' U'\nUUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB\n\nR U2 F' L D B2\n\n")
    out = tmp_path / "d.txt"
    assert main(["cube", "distances", str(states), "--out", str(out), "--chunk", "2", "--no-progress"]) == 0
    assert out.read_text() == "4\n0\n0\n6\n"  # an empty line is the solved cube; trailing ones are dropped
    assert main(["cube", "distances", str(states), "--no-progress"]) == 0
    assert capsys.readouterr().out == "4\n0\n0\n6\n"
    states.write_text("R U\nR X\n")
    assert main(["cube", "distances", str(states), "--no-progress"]) == 2
    error = capsys.readouterr().err
    assert "line 2: " in error and "invalid move 'X'" in error
    assert main(["cube", "distances", str(tmp_path / "missing.txt"), "--no-progress"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_console_script_runs():
    result = subprocess.run([sys.executable, "-m", "cogsim.cli", "--version"], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.startswith("cogsim ")


def test_demo_writes_a_report(tmp_path, cube_oracle):
    from cogsim.demo import run_demo

    assert run_demo(tmp_path, quick=True) == 0
    report = (tmp_path / "report.md").read_text()
    assert "| 12 | 5 | 5 |" in report and "Every check passed" in report
    # the renderer's section: each benchmark's first frame as it is sent, the look named (the tests install
    # KidGym's files, not RNG-Bench's card images)
    for name in ("kidgym_maze.png", "pairs_single.png", "maze3d_nav.jpg", "cube_net.png"):
        assert (tmp_path / name).stat().st_size > 1000 and f"]({name})" in report
    assert "KidGym (`kidgym/maze`), the release's look, sent as PNG" in report
    assert "(`pairs/single`), cogsim's look (the release's files are not installed), sent as PNG" in report
    assert "(`maze3d/nav`), the release's look, sent as JPEG quality 88 (optimized)" in report
    assert "Cube Bench, the net of scramble" in report and "the release's look, sent as PNG" in report
    assert (tmp_path / "maze3d_nav.jpg").read_bytes()[:3] == b"\xff\xd8\xff"


def test_the_demo_pictures_say_which_look_they_are_where_release_files_are_missing(tmp_path, monkeypatch, cube_oracle):
    from cogsim.demo import _render_section

    monkeypatch.setenv("COGSIM_CACHE", str(tmp_path / "bare"))  # no release files installed (cube tables loaded)
    text, ok = _render_section(tmp_path, quick=True)
    assert ok and "(`kidgym/maze`), cogsim's look (the release's files are not installed)" in text
    assert "not installed here: `kidgym/maze`, `pairs/single`. `cogsim assets add BENCHMARK PATH`" in text
    assert "(`maze3d/nav`), the release's look" in text  # drawn from facts: no files needed


def test_demo_falls_back_to_cogsims_look_without_release_files(tmp_path, monkeypatch):
    from cogsim.demo import _options_drawable_here

    monkeypatch.setenv("COGSIM_CACHE", str(tmp_path))  # no release files installed
    fallbacks: dict = {}
    options = {"rows": 2, "cols": 4, "modality": "image", "theme": "poker"}
    assert _options_drawable_here({"env_id": "pairs/single", "options": options}, fallbacks) == {
        **options,
        "look": "cogsim",
    }
    assert "rngbench pictures need image files of its release" in fallbacks["pairs/single"]
    text = {"rows": 2, "cols": 4, "modality": "image"}  # the release's text board needs no files
    assert _options_drawable_here({"env_id": "pairs/duel", "options": text}, fallbacks) == text
    assert "pairs/duel" not in fallbacks
    kidgym = {"env_id": "kidgym/maze", "options": {"level": 2}, "fallback": {"look": "cogsim", "cell_size": 32}}
    assert _options_drawable_here(kidgym, fallbacks) == {"level": 2, "look": "cogsim", "cell_size": 32}
    assert "kidgym pictures need image files of its release" in fallbacks["kidgym/maze"]
