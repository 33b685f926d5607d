"""The example benchmark of docs/adding-a-benchmark.md (the project ``guessgame/`` beside this file, with
its own ``pyproject.toml``), installed as a user installs a plugin: ``pip install`` of the folder (here
into a target folder, without its dependencies, which are cogsim's). Nothing registers it by hand:
cogsim finds its family through the entry point pip wrote and then runs it end to end
(``cogsim.make``, ``cogsim run`` with spawned workers, ``cogsim report``, its paper preset, its picture
and its inspect task)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import tomllib

import cogsim
from cogsim import envs, families, metrics
from cogsim.cli import main
from cogsim.envs import play_scripted
from cogsim.report import papers
from cogsim.store import open_store

HERE = Path(__file__).resolve().parent
PROJECT = HERE / "guessgame"  # pyproject.toml, README.md and the package guessgame/
TABLE = "Guess: solved within the budget"  # guessgame.metrics.TITLE


def pip_install(project: Path, target: Path) -> Path:
    """``pip install`` of the project into ``target``, as a user would but offline: no dependencies (they
    are cogsim's, installed), the build backend of this environment (setuptools) and a copy of the
    project, so the build leaves nothing in the repository."""
    source = target.parent / f"{target.name}-source"
    shutil.copytree(project, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index"]
    done = subprocess.run([*command, "--target", str(target), str(source)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    return target


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The folder pip installed guessgame into: the package and its ``*.dist-info`` with the entry point."""
    return pip_install(PROJECT, tmp_path_factory.mktemp("plugin") / "site")


@pytest.fixture(scope="module")
def installed(site):
    """guessgame installed in this process for this module's tests, then taken away again with what
    it registered. cogsim reads the entry points once, when it is imported, so the test makes it
    read them again (a real install precedes the process)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(site))  # spawned workers inherit sys.path
        patch.setattr(families, "_families", None)
        families.register_with_gymnasium()
        if "cogsim.integrations.inspect_registry" in sys.modules:  # inspect loaded cogsim's tasks already
            from cogsim.integrations.inspect_tasks import register_tasks

            register_tasks()
        yield site
    uninstall()


def uninstall() -> None:
    """Takes away exactly what guessgame added to cogsim's registries (the modules cogsim imported
    meanwhile stay registered: they are imported only once)."""
    from cogsim.render import Renderer

    plugin = [name for name in sys.modules if name == "guessgame" or name.startswith("guessgame.")]
    families._imported.difference_update(plugin)
    for name in plugin:
        del sys.modules[name]
    envs._REGISTRY.pop("guess/number", None)
    metrics._SUMMARIZERS.pop("guess", None)
    papers._PAPERS.pop("paper:guess", None)
    gymnasium.registry.pop("cogsim/guess-number", None)
    if "guess_range" in vars(Renderer):
        delattr(Renderer, "guess_range")


def run_cli(*args: str) -> None:
    progress = ["--no-progress"] if args[0] == "run" else []
    assert main([*args, *progress]) == 0


def test_the_entry_point_declares_the_env_and_make_plays_it(installed):
    family = families.family_of("guess/number")
    assert family is not None and family.name == "guess" and family.metric_suite == "guess"
    assert "guess/number" in cogsim.list_envs() and "guess" in metrics.suites()
    env = cogsim.make("guess/number")
    assert env.scripted_policies == ("oracle", "bisect", "random")
    with pytest.raises(envs.ResetNeeded):
        env.step("Guess: 50")
    obs, info = env.reset(seed=5)
    assert env.observation_space.contains(obs) and info["episode_seed"] == 5
    with pytest.raises(TypeError, match="response text"):
        env.step(None)
    # bisection needs at most 7 guesses on 1..100 (the reference row of the preset); the oracle one
    bisect = [play_scripted(env, "bisect", seed) for seed in range(100)]
    assert all(e.episode["solved"] for e in bisect) and max(e.episode["guesses"] for e in bisect) == 7
    assert play_scripted(env, "oracle", 3).rewards == [1.0]
    again = play_scripted(cogsim.make("guess/number"), "random", 11)
    assert [o["text"] for o in again.observations] == [o["text"] for o in play_scripted(env, "random", 11).observations]
    gym_env = gymnasium.make("cogsim/guess-number")
    assert gym_env.reset(seed=1)[0]["text"].startswith("I am thinking of an integer from 1 to 100")


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"colour": "red"}, ["colour", "allowed: low, high, max_guesses, images"]),
        ({"low": 5, "high": 5}, ["high must be an integer in [6,"]),
        ({"max_guesses": 0}, ["max_guesses"]),
        ({"images": "yes"}, ["images must be True or False"]),
    ],
)
def test_bad_options_are_clear_errors(installed, options, words):
    with pytest.raises(ValueError) as error:
        cogsim.make("guess/number", **options)
    assert all(w in str(error.value) for w in words), str(error.value)


def test_replies_are_read_in_linear_time_and_unreadable_ones_cost_a_guess(installed):
    from guessgame.parser import parse_guess

    assert parse_guess("I think... GUESS: 42") == 42 and parse_guess("guess: 1\nGuess:\t-7") == -7
    assert parse_guess("Guess: ") is None and parse_guess("Guess: 1234567890") is None
    assert parse_guess("Guess: " + "9" * (1 << 20)) is None and parse_guess("guess:" * (1 << 18)) is None
    env = cogsim.make("guess/number", max_guesses=2)
    env.reset(seed=0)
    assert env.step("no idea")[4]["parse"] == "parse_failure"
    _, reward, terminated, _, info = env.step("Guess: 101")
    assert (reward, terminated, info["parse"], info["episode"]["invalid"]) == (0.0, True, "invalid", 1)


def test_the_look_is_found_through_the_scene_kind_of_the_family_record(installed):
    assert "guessgame.look" not in sys.modules  # the env never imports it: the renderer does
    env = cogsim.make("guess/number", images=True)
    obs, _ = env.reset(seed=0)
    assert "guessgame.look" in sys.modules
    (frame,) = obs["images"]
    assert frame.shape == (64, 320, 3) and frame.dtype == np.uint8
    open_green = np.all(frame == (60, 160, 90), axis=-1)
    assert open_green[20].sum() > 200  # the whole range is still open: most of the bar is green
    obs, *_ = env.step("Guess: 1" if env.secret != 1 else "Guess: 2")
    assert np.all(obs["images"][0] == (60, 160, 90), axis=-1)[20].sum() < open_green[20].sum()


def test_cogsim_run_with_spawned_workers_and_the_report_show_its_metric_table(installed, tmp_path):
    out = tmp_path / "run"
    agents = ["--agent", "oracle", "--agent", "bisect", "--agent", "random"]
    run_cli("run", "guess", *agents, "--episodes", "6", "--workers", "2", "--out", str(out))
    with open_store(out) as store:
        episodes = store.episodes(("done",))
    assert len(episodes) == 18 and all(e["solved"] for e in episodes if e["agent"] in ("oracle", "bisect"))
    run_cli("report", str(out))
    report = (out / "report.md").read_text()
    assert "## Suite: guess" in report and f"**{TABLE}**" in report
    assert "| guess/number | oracle | 6 | 1.00 [0.61, 1.00] | 1.00 [1.00, 1.00] |" in report


def test_cogsim_list_names_the_plugins_env_id_agents_suite_and_preset(installed, capsys):
    run_cli("list")
    out = capsys.readouterr().out
    assert "guess/number" in out and "[agents: oracle, bisect, random]" in out
    assert "metric suites: " in out and "guess" in out.split("metric suites: ")[1].splitlines()[0]
    assert "paper:guess" in out.split("paper presets: ")[1]


def test_the_paper_preset_of_the_plugin_runs_and_reports_beside_its_reference_rows(installed, tmp_path):
    assert "paper:guess" in papers.presets()
    out = tmp_path / "preset"
    run_cli("run", "--preset", "paper:guess", "--agent", "bisect", "--episodes", "10", "--out", str(out), "--report")
    report = (out / "report.md").read_text()
    assert "Paper tables: Guessing game (the example's reference rows)" in report
    assert "| bisect | this run | 100.0\\* |" in report  # 10 episodes where the preset plays 100: marked
    assert "| bisection | reference | 100.0 | 7 |" in report
    assert "finished episodes: 10 (the paper: 100)" in report


def test_the_inspect_task_of_the_env_id_gives_the_rewards_of_cogsim_run(installed, tmp_path):
    inspect_ai = pytest.importorskip("inspect_ai")
    from inspect_ai.log import read_eval_log

    (log,) = inspect_ai.eval(
        "cogsim/guess_number",
        model="cogsim/bisect",
        task_args={"episodes": 4, "seed": 3},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    log = read_eval_log(log.location)
    rewards = {s.metadata["seed"]: s.scores["episode_reward"].value for s in log.samples}
    out = tmp_path / "run"
    run_cli("run", "guess/number", "--agent", "bisect", "--episodes", "4", "--seed", "3", "--out", str(out))
    with open_store(out) as store:
        assert rewards == {e["seed"]: e["total_reward"] for e in store.episodes(("done",))}
    shown = {m.name for score in log.results.scores for m in score.metrics.values()}
    assert any(name.startswith(f"{TABLE}: solved") for name in shown), shown  # the suite's table, by cogsim


def test_pip_installs_the_package_its_data_and_its_entry_point(site):
    (info,) = site.glob("cogsim_guessgame-*.dist-info")
    assert "guess = guessgame.family:FAMILY" in (info / "entry_points.txt").read_text()
    assert (site / "guessgame" / "published.json").is_file() and (site / "guessgame" / "look.py").is_file()


def test_a_fresh_process_finds_the_installed_plugin_without_importing_it(site, tmp_path):
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}
    listing = (
        "import sys, cogsim\n"
        "print('guess/number' in cogsim.list_envs(), sorted(m for m in sys.modules if m.startswith('guessgame')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", listing], capture_output=True, text=True, env=environment, timeout=300
    )
    assert result.stdout.strip() == "True ['guessgame', 'guessgame.family']", result.stdout + result.stderr[-2000:]
    out = tmp_path / "run"
    command = [sys.executable, "-m", "cogsim.cli", "run", "guess/number", "--agent", "bisect", "--episodes", "3"]
    command += ["--workers", "2", "--out", str(out), "--no-progress", "--report"]
    result = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr[-2000:]
    assert f"**{TABLE}**" in (out / "report.md").read_text()


def _code(line: str) -> str:
    """A line without its comment and indentation (naive, but the snippets quote no '#')."""
    return line.partition("  #")[0].partition("# ")[0].strip() if "#" in line else line.strip()


def test_the_guides_snippets_are_the_examples_code():
    guide = (HERE.parents[1] / "docs" / "adding-a-benchmark.md").read_text(encoding="utf-8")
    source = {_code(line) for path in (PROJECT / "guessgame").glob("*.py") for line in path.read_text().splitlines()}
    snippets = re.findall(r"```python\n(.*?)```", guide, re.S)
    assert len(snippets) >= 6
    quoted = [_code(line) for snippet in snippets for line in snippet.splitlines()]
    assert [line for line in quoted if line and line not in source] == []
    (toml,) = [s for s in re.findall(r"```toml\n(.*?)```", guide, re.S) if "cogsim.families" in s]
    project = tomllib.loads((PROJECT / "pyproject.toml").read_text())
    assert tomllib.loads(toml)["project"]["entry-points"] == project["project"]["entry-points"]
