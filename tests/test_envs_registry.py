"""The env registry under concurrency and failure, and the env contract's misuse errors."""

from __future__ import annotations

import subprocess
import sys
import threading

import gymnasium
import pytest

import cogsim
from cogsim import envs


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
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.stdout.startswith("0 "), result.stdout + result.stderr[-2000:]


def test_a_family_that_fails_to_import_is_an_error_naming_it(monkeypatch):
    monkeypatch.setattr(envs, "_loaded", False)
    real_import = envs.importlib.import_module

    def failing_import(name, *args):
        if name == "cogsim.envs.maze3d":
            raise RuntimeError("broken on purpose")
        return real_import(name, *args)

    monkeypatch.setattr(envs.importlib, "import_module", failing_import)
    with pytest.raises(envs.FamilyImportError, match="maze3d.*broken on purpose"):
        cogsim.list_envs()
    assert envs._loaded is False  # not marked complete: the next call tries again


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
