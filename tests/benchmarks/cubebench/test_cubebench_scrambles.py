"""Cube Bench scrambles: episode i at depth d starts from the release's scramble for random_seed=i,
n_moves=d. The older line's sampler (1ca7d58, not exact-depth) is checked against
tests/benchmarks/cubebench/data/cube_scrambles.json (produced offline by that line's own sampler), and prints as
the release prints it; the newest line's exact-depth sampler (the envs' default) against the
release's golden records in tests/benchmarks/cubebench/test_cubebench_golden.py."""

import json
from pathlib import Path

import pytest

import cogsim
from cogsim.benchmarks.cubebench import items, seed_lists, views
from cogsim.cube import Cube

DATA = json.loads((Path(__file__).parent / "data" / "cube_scrambles.json").read_text())


@pytest.fixture(autouse=True)
def _oracle(cube_oracle):
    return cube_oracle


def test_data_names_its_source():
    assert "VirtualCube.scramble" in DATA["source"] and "commit" in DATA["source"]


@pytest.mark.parametrize("case", DATA["scrambles"], ids=lambda c: f"d{c['depth']}-s{c['seed']}")
def test_release_scramble_matches_the_release(case):
    moves = items.release_scramble(case["depth"], case["seed"])
    assert " ".join(moves) == case["moves"]
    state = Cube.from_moves(" ".join(moves))
    assert views.release_net_text(views.recolour(state)) == case["text"]


@pytest.mark.parametrize("test", items.TESTS)
def test_env_items_use_each_lines_scrambles(test):
    case = next(c for c in DATA["scrambles"] if c["depth"] == 2 and c["seed"] == 3)
    older = cogsim.make(f"cube/{test}", depth=2, release="1ca7d58")
    older.reset(seed=3)
    newest = cogsim.make(f"cube/{test}", depth=2)
    newest.reset(seed=3)
    exact = " ".join(items.release_exact_scramble(2, 3))
    if test != "reconstruction":  # reconstruction may re-scramble (colour-prior control), as the release does
        assert older.item["scramble"] == case["moves"] and older.item["scrambles"] == "release-1ca7d58"
        assert older.item["teacher"] == views.inverse_sequence(case["moves"].split())
        # the newest line's sweep keeps the older sampler (its invariance_sweep.py draws without exact_depth)
        assert newest.item["scramble"] == (case["moves"] if test == "invariance" else exact)
    legacy = cogsim.make(f"cube/{test}", depth=2, scrambles="cogsim")
    legacy.reset(seed=3)
    assert "scrambles" not in legacy.item and legacy.item["scramble"] == " ".join(items.scramble_of(2, 3))


def test_release_scrambles_need_not_be_exact_depth_and_items_stay_well_formed():
    from cogsim import cube

    short = [s for s in range(400) if cube.distance(Cube.from_moves(" ".join(items.release_scramble(3, s)))) < 3]
    assert short  # e.g. R L R: opposite faces commute
    for seed in short[:5]:
        for test in ("optimal-move", "closed-loop", "recovery", "move-effect"):
            item = items.make_item(test, 3, seed, scrambles="release-1ca7d58")
            if "options" in item:
                assert len(set(item["options"])) == 4
            for step in item.get("steps", []):
                assert len(set(step["options"])) == 4


def test_release_seed_lists_export_and_verify(tmp_path):
    from cogsim.benchmarks.cubebench.__main__ import main

    out = tmp_path / "om.json"
    assert main(["export", "--test", "optimal-move", "--depth", "2", "--count", "4", "--out", str(out)]) == 0
    data = seed_lists.load_seed_list(str(out))
    assert data["episodes"]["1"]["scramble"] == " ".join(items.release_exact_scramble(2, 1))
    assert data["episodes"]["1"]["layout"] == "release"
    seed_lists.verify_seed_list(data)
    env = cogsim.make("cube/optimal-move", depth=2, seed_list=str(out))
    env.reset(seed=1)
    assert env.item["scramble"] == " ".join(items.release_exact_scramble(2, 1))


def test_seed_lists_of_the_previous_format_still_verify(tmp_path):
    """Lists written before the newest line was followed name the older sampler "release"."""
    data = seed_lists.build_seed_list("closed-loop", 2, 3, scrambles="release-1ca7d58")
    legacy = {
        **data,
        "format": "cogsim-cubebench-seed-list/1",
        "episodes": {k: {**v, "scrambles": "release"} for k, v in data["episodes"].items()},
    }
    seed_lists.verify_seed_list(legacy)
    assert seed_lists.load_seed_list(legacy)["episodes"]["0"]["scrambles"] == "release-1ca7d58"
