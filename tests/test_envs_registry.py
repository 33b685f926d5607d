"""The env registry under concurrency and failure, and the env contract's misuse errors."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import gymnasium
import pytest

import cogsim
from cogsim import envs

ROOT = Path(__file__).resolve().parents[1]


def test_first_make_from_many_threads_finds_every_env_id():
    # A fresh interpreter, so the registry is loaded for the first time by eight threads at once.
    code = (
        "import threading, cogsim\n"
        "errors = []\n"
        "def go():\n"
        "    try: cogsim.make('wilt/lite')\n"
        "    except Exception as e: errors.append(repr(e))\n"
        "ts = [threading.Thread(target=go) for _ in range(8)]\n"
        "[t.start() for t in ts]; [t.join() for t in ts]\n"
        "print(len(errors), errors[:1])\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.stdout.startswith("0 "), result.stdout + result.stderr[-2000:]


def test_a_family_that_fails_to_import_is_an_error_naming_it(monkeypatch):
    from cogsim import families

    monkeypatch.setattr(families, "_imported", set())
    monkeypatch.setattr(envs, "_REGISTRY", {})
    real_import = families.importlib.import_module

    def failing_import(name, *args):
        if name == "cogsim.benchmarks.rngbench.maze.env":
            raise RuntimeError("broken on purpose")
        return real_import(name, *args)

    monkeypatch.setattr(families.importlib, "import_module", failing_import)
    with pytest.raises(envs.FamilyImportError, match="maze3d.*broken on purpose"):
        cogsim.make("maze3d/nav")
    assert (
        "cogsim.benchmarks.rngbench.maze.env" not in families._imported
    )  # not marked imported: the next call tries again
    assert "maze3d/nav" in cogsim.list_envs()  # declared ids stay listed


def test_declared_ids_are_exactly_what_each_family_registers():
    from cogsim import families

    for family in families.all_families():
        for env_id in family.env_ids:
            assert envs.spec(env_id).env_id == env_id
        registered = {e for e in envs._REGISTRY if e.split("/")[0] == family.name}
        assert registered == set(family.env_ids), family.name


def test_listing_imports_no_family_and_gymnasium_knows_every_id():
    code = (
        "import sys, cogsim, gymnasium\n"
        "ids = cogsim.list_envs()\n"
        "print(sorted(m for m in sys.modules if m.startswith('cogsim.envs.') and m.split('.')[-1] in "
        "('wilt', 'kidgym', 'pairs', 'maze3d')))\n"
        "env = gymnasium.make('cogsim/wilt-lite')\n"
        "obs, info = env.reset(seed=1)\n"
        "print(len(ids), all(('cogsim/' + i.replace('/', '-')) in gymnasium.registry for i in ids), type(obs).__name__)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    lines = result.stdout.splitlines()
    assert lines[0] == "[]", result.stdout + result.stderr[-2000:]
    from cogsim import families

    assert lines[1] == f"{len(families.declared_env_ids())} True dict"  # a fresh process: only the families' ids


def test_a_plugin_family_from_an_entry_point_is_listed_and_made(monkeypatch, tmp_path):
    from importlib import metadata

    from cogsim import families

    plugin = tmp_path / "toyfamily.py"
    plugin.write_text(
        "from cogsim.envs import TextEnv, observation, register\n"
        "from cogsim.families import Family\n"
        "class Toy(TextEnv):\n"
        "    def _reset(self, seed, options): return observation('say hi')\n"
        "    def _step(self, action): return observation('bye'), 1.0, True, False, {'parse': 'ok', 'episode': {}}\n"
        "FAMILY = Family('toy', ('toy/hello',), 'toyfamily')\n"
        "register('toy/hello', Toy)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(envs, "_REGISTRY", dict(envs._REGISTRY))  # the toy ids leave with the test
    entry = metadata.EntryPoint("toy", "toyfamily:FAMILY", families.ENTRY_POINT_GROUP)
    monkeypatch.setattr(
        families.metadata, "entry_points", lambda group: [entry] if group == families.ENTRY_POINT_GROUP else []
    )
    monkeypatch.setattr(families, "_families", None)
    assert "toy/hello" in cogsim.list_envs()
    env = cogsim.make("toy/hello")
    env.reset(seed=0)
    assert env.step("hi")[1] == 1.0
    monkeypatch.setattr(families, "_families", None)
    broken = metadata.EntryPoint("bad", "no_such_module_here:FAMILY", families.ENTRY_POINT_GROUP)
    monkeypatch.setattr(families.metadata, "entry_points", lambda group: [broken])
    with pytest.raises(envs.FamilyImportError, match="bad"):
        cogsim.list_envs()
    monkeypatch.setattr(families, "_families", None)


@pytest.mark.parametrize(
    ("record", "claim"),
    [
        ("Family('toy', ('wilt/full',), 'toyclash')", "env id 'wilt/full'"),
        ("Family('kidgym', ('kidgym/toy',), 'toyclash')", "name 'kidgym'"),
        ("Family('toy', ('toy/a',), 'toyclash', 'toyclash', suite='pairs')", "metric suite 'pairs'"),
        ("Family('toy', ('toy/a',), 'toyclash', scenes='toyclash', scene_kinds=('grid',))", "scene kind 'grid'"),
    ],
)
def test_a_plugin_family_that_claims_what_another_declares_is_an_error_naming_both(
    monkeypatch, tmp_path, record, claim
):
    from importlib import metadata

    from cogsim import families

    (tmp_path / "toyclash.py").write_text(f"from cogsim.families import Family\nFAMILY = {record}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "toyclash", raising=False)
    entry = metadata.EntryPoint("toy", "toyclash:FAMILY", families.ENTRY_POINT_GROUP)
    monkeypatch.setattr(families.metadata, "entry_points", lambda group: [entry])
    monkeypatch.setattr(families, "_families", None)
    with pytest.raises(envs.FamilyImportError, match=f"family '.*' \\(toyclash\\) declares the {claim}, which family"):
        cogsim.list_envs()
    monkeypatch.setattr(families, "_families", None)


def test_registry_lists_every_family():
    ids = cogsim.list_envs()
    for family in ("wilt/", "cube/", "kidgym/", "pairs/", "maze3d/"):
        assert any(env_id.startswith(family) for env_id in ids), family


def test_step_before_reset_says_reset_first():
    env = cogsim.make("wilt/lite")
    with pytest.raises(gymnasium.error.ResetNeeded, match="reset"):
        env.step("Test Case: ```(1, 2, 3)```")


@pytest.mark.parametrize("num_envs", [0, -1, envs.MAX_VEC_ENVS + 1, 10**9, True, 2.0, "4"])
def test_make_vec_rejects_out_of_range_counts(num_envs):
    with pytest.raises(ValueError, match=f"1 to {envs.MAX_VEC_ENVS}"):
        cogsim.make_vec("wilt/lite", num_envs)


def test_concurrent_makes_after_loading_share_one_registry():
    made, errors = [], []

    def go():
        try:
            made.append(cogsim.make("pairs/single"))
        except Exception as error:  # asserted below
            errors.append(error)

    threads = [threading.Thread(target=go) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(made) == 8
