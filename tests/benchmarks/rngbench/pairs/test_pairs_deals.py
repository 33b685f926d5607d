"""Matching Pairs deals and the optimum against the released harness (InternLM/RNGBench).

Expected boards and optimal response counts come from running the release's Board and greedy_scan
offline (tests/benchmarks/rngbench/pairs/data/pairs_release_deals.json, its "source" says how)."""

import json
import string
from pathlib import Path

import numpy as np
import pytest

import cogsim
from cogsim.benchmarks.rngbench import pairs
from cogsim.benchmarks.rngbench.pairs import prompts

DATA = json.loads((Path(__file__).parent / "data" / "pairs_release_deals.json").read_text())
SYMBOLS = string.digits + string.ascii_uppercase + string.ascii_lowercase


def release_identities(entry) -> np.ndarray:
    """The release's card symbols back to identities: symbol i of the pool is identity i."""
    pairs_count = entry["rows"] * entry["cols"] // 2
    decode = SYMBOLS.index if pairs_count <= len(SYMBOLS) else int
    return np.array([[decode(s) for s in row] for row in entry["cards"]])


def test_source_is_named():
    assert "InternLM/RNGBench" in DATA["source"] and "greedy_scan" in DATA["source"] and "_init_cards" in DATA["source"]
    assert len(DATA["boards"]) == 35 and {(b["rows"], b["cols"]) for b in DATA["boards"]} >= {(10, 10), (12, 12)}


@pytest.mark.parametrize("entry", DATA["boards"], ids=lambda e: f"{e['rows']}x{e['cols']}-s{e['seed']}")
def test_the_default_deal_is_the_release_deal(entry):
    board = pairs.deal(entry["rows"], entry["cols"], entry["seed"])
    assert np.array_equal(board, release_identities(entry))
    # and the symbols printed on the text board are the release's
    symbols = [[prompts.card_symbol(int(i), board.size // 2) for i in row] for row in board]
    assert symbols == entry["cards"]


@pytest.mark.parametrize("entry", DATA["boards"], ids=lambda e: f"{e['rows']}x{e['cols']}-s{e['seed']}")
def test_the_optimum_equals_the_release_greedy_scan(entry):
    assert pairs.optimal_responses(release_identities(entry)) == entry["optimal_responses"]


def test_env_reports_the_release_optimum_and_the_oracle_reaches_it():
    for entry in [e for e in DATA["boards"] if (e["rows"], e["cols"]) in ((4, 4), (6, 6))]:
        env = cogsim.make("pairs/single", rows=entry["rows"], cols=entry["cols"])
        env.reset(seed=entry["seed"])
        while True:
            _, _, done, truncated, info = env.step(env.scripted_response("oracle", np.random.default_rng(0)))
            if done or truncated:
                break
        assert (
            done and info["episode"]["optimal_responses"] == entry["optimal_responses"] == info["episode"]["responses"]
        )


def test_optimal_resp_per_score_at_10x10_is_the_release_headline():
    # The release's README quotes 3.24 responses per matched pair for the optimal policy at 10x10:
    # its launcher's seeds 0, 1, 2 give 160 + 164 + 162 responses for 3 x 50 pairs.
    boards = [e for e in DATA["boards"] if (e["rows"], e["cols"]) == (10, 10) and e["seed"] < 3]
    total = sum(pairs.optimal_responses(pairs.deal(10, 10, e["seed"])) for e in boards)
    assert total == sum(e["optimal_responses"] for e in boards)
    assert round(total / 150, 2) == 3.24


def test_cogsim_deal_stays_available_and_differs():
    release = pairs.deal(6, 6, 5)
    cogsim_deal = pairs.deal(6, 6, 5, method="cogsim")
    assert not np.array_equal(release, cogsim_deal)
    assert np.array_equal(np.sort(release.ravel()), np.sort(cogsim_deal.ravel()))
    env = cogsim.make("pairs/single", rows=6, cols=6, deal="cogsim")
    env.reset(seed=5)
    assert np.array_equal(env.board, cogsim_deal)
    with pytest.raises(ValueError, match="deal"):
        pairs.deal(4, 4, 0, method="splitmix")
    with pytest.raises(ValueError, match="deal"):
        cogsim.make("pairs/single", deal="python")
