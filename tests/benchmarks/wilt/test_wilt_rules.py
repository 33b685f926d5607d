"""WILT fidelity: the hidden rules are the release's (RiotGames/WILT harness/test_cases.py)."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from cogsim.benchmarks import wilt
from cogsim.benchmarks.wilt.cases import release_cases

DATA = json.loads((Path(__file__).parent / "data" / "wilt_rules.json").read_text())


def test_data_names_its_source():
    assert "harness/test_cases.py" in DATA["source"] and "6344f04" in DATA["source"]
    assert len(DATA["full"]) == 50 and len(DATA["lite"]) == 10


def test_full_split_is_the_releases_fifty_in_order_and_tiers():
    assert list(wilt.RELEASE_FULL_SOURCES) == DATA["full"]
    assert list(wilt.FULL_SPLIT) == DATA["full"]  # every rule as the release writes it, 46's tuple targets too
    assert list(wilt.FULL_TIERS) == DATA["full_tiers"]
    assert wilt.FULL_TIERS.count("easy") == 14 and wilt.FULL_TIERS.count("very hard") == 11


def test_lite_split_is_the_releases_ten():
    assert list(wilt.LITE_SPLIT) == DATA["lite"]


@pytest.mark.parametrize("split", ["full", "lite", "prototype"])
def test_every_rule_compiles(split):
    for src in wilt.SPLITS[split]:
        wilt.compile_rule(src)


def test_the_compiler_takes_every_release_rule_verbatim():
    for src in DATA["full"] + DATA["lite"]:
        wilt.compile_rule(src)  # rule 46's "for a, b in [(x, y), ...]" included


def test_rule_46_as_written_is_the_coprimality_of_the_pairs_spelled_out():
    written = DATA["full"][45]
    spelled = (
        "lambda x, y, z: all([m % 1 == 0 for m in [x, y, z]]) and math.gcd(int(x), int(y)) == 1 "
        "and math.gcd(int(y), int(z)) == 1 and math.gcd(int(z), int(x)) == 1"
    )
    for equivalence in ("release", "strict"):
        assert wilt.equivalent(written, spelled, equivalence=equivalence).equivalent


def test_compiled_rules_agree_with_the_release_lambdas_on_its_points():
    """The release's rule texts, run by CPython (our own fixed data, not model text), against the VM."""
    cases = release_cases()
    pick = np.r_[np.arange(0, 10_000, 7), np.arange(10_000, len(cases), 29), np.arange(len(cases) - 10, len(cases))]
    xs, ys, zs = cases.xs[pick], cases.ys[pick], cases.zs[pick]
    for i, src in enumerate(DATA["full"]):
        reference = eval(src, {"math": math})  # noqa: S307 - the release's rule table, stored in the repo
        expected = [bool(reference(float(x), float(y), float(z))) for x, y, z in zip(xs, ys, zs)]
        got = wilt.compile_rule(wilt.FULL_SPLIT[i]).evaluate(xs, ys, zs).tolist()
        assert got == expected, f"rule {i + 1}"


def test_prototype_split_stays_available_as_a_named_env():
    from cogsim.envs import make

    env = make("wilt/prototype")
    env.reset(seed=7)
    assert env.hidden_source == wilt.PROTOTYPE_SPLIT[7]
