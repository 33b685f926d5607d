"""Cube Bench state text: the default net text and colours are the release's (pycuber's print-out,
tests/benchmarks/cubebench/data/cube_states.json, produced offline from the release's simulator)."""

import json
from pathlib import Path

import pytest

from cogsim.benchmarks.cubebench import views
from cogsim.cube import Cube

DATA = json.loads((Path(__file__).parent / "data" / "cube_states.json").read_text())


def _state(moves: str) -> Cube:
    cube = Cube()
    return cube.apply(moves) if moves else cube


def test_data_names_its_source():
    assert "cube_simulator.py" in DATA["source"] and "commit" in DATA["source"]


@pytest.mark.parametrize("case", DATA["states"], ids=lambda c: c["moves"] or "solved")
def test_release_net_text_matches_release_print(case):
    state = _state(case["moves"])
    assert views.release_net_text(views.recolour(state, "release")) == case["text"]


def test_cogsim_scheme_is_a_named_variant():
    solved = views.release_net_text(views.recolour(Cube(), "cogsim"))
    assert solved.splitlines()[0] == " " * 9 + "[w][w][w]"
    assert views.recolour_grid(["WOG", "YRB"], "release") == ["YRG", "WOB"]
    assert views.recolour_grid(["WOG"], "cogsim") == ["WOG"]
