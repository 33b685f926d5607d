"""Module paths of the benchmark folders before their files were named by idea still import, with a
warning that names the new path; a look module forwards the names of cogsim's own look it used to hold."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from cogsim.benchmarks._moved import MOVED


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_module_path_imports_as_its_new_module(old):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} is now {MOVED[old]}"):
        alias = importlib.import_module(old)
    new = importlib.import_module(MOVED[old])
    public = [name for name in vars(new) if not name.startswith("_")]
    assert public and all(getattr(alias, name) is getattr(new, name) for name in public)
    with pytest.raises(AttributeError):
        alias.no_such_name  # noqa: B018


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("cogsim.benchmarks.kidgym.look", "GridScene"),
        ("cogsim.benchmarks.cubebench.look", "NetLayout"),
        ("cogsim.benchmarks.rngbench.maze.look", "ViewOptions"),
        ("cogsim.benchmarks.rngbench.pairs.look", "CardBoard"),
    ],
)
def test_a_name_of_cogsim_s_look_is_still_found_where_it_was(module, name):
    look = importlib.import_module(module)
    cogsim_look = importlib.import_module(module.rsplit(".", 1)[0] + ".cogsim_look")
    with pytest.warns(DeprecationWarning, match=f"{module}.{name} is now"):
        assert getattr(look, name) is getattr(cogsim_look, name)
    with pytest.raises(AttributeError):
        look.no_such_name  # noqa: B018


def test_from_import_of_an_old_path_works_in_a_fresh_interpreter():
    code = (
        "import warnings; warnings.simplefilter('error', DeprecationWarning)\n"
        "try:\n    from cogsim.benchmarks.kidgym.release_play import ReleasePlay\nexcept DeprecationWarning as w:\n"
        "    print(w)\n"
        "warnings.simplefilter('ignore')\n"
        "from cogsim.benchmarks.kidgym.release_play import ReleasePlay\n"
        "from cogsim.benchmarks.kidgym.game import ReleasePlay as New\n"
        "assert ReleasePlay is New\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "cogsim.benchmarks.kidgym.release_play is now cogsim.benchmarks.kidgym.game" in done.stdout


def test_a_family_record_still_takes_the_earlier_name_of_its_scenes_module():
    from cogsim.families import Family

    with pytest.warns(DeprecationWarning, match="Family\\(look=...\\) is now Family\\(scenes=...\\)"):
        family = Family("toy", ("toy/a",), "toy.env", look="toy.look", scene_kinds=("toy_board",))
    assert family.scenes == "toy.look"
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="not both"):
        Family("toy", ("toy/a",), "toy.env", scenes="toy.draw", look="toy.look")


def test_a_name_that_moved_to_another_module_of_its_benchmark_is_still_found():
    from cogsim.benchmarks.cubebench import items, seed_lists

    with pytest.warns(DeprecationWarning, match="items.build_seed_list is now cogsim.benchmarks.cubebench.seed_lists"):
        assert items.build_seed_list is seed_lists.build_seed_list
