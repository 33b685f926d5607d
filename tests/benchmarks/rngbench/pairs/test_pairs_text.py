"""Matching Pairs text against the released harness: the text board, the coordinates, the parser,
the prompt's answer format and the per-round messages; and linear-time parsing of hostile replies.

Expected boards and parses come from the release's TextRenderer and parse_coord, run offline
(tests/benchmarks/rngbench/pairs/data/pairs_release_text.json, its "source" says how)."""

import json
from pathlib import Path

import numpy as np
import pytest

import cogsim
from cogsim.benchmarks.rngbench import pairs
from cogsim.benchmarks.rngbench.pairs import parser as reply_parser
from cogsim.benchmarks.rngbench.pairs import prompts
from cogsim.benchmarks.rngbench.pairs.parser import ParseError

DATA = json.loads((Path(__file__).parent / "data" / "pairs_release_text.json").read_text())


def test_source_is_named():
    assert "TextRenderer.render" in DATA["source"] and "parse_coord" in DATA["source"]


@pytest.mark.parametrize("case", DATA["boards"], ids=lambda c: f"{c['rows']}x{c['cols']}")
def test_text_board_is_the_release_board(case):
    board = pairs.deal(case["rows"], case["cols"], case["seed"])
    state = np.zeros(board.shape, np.uint8)
    for r, c in case["removed"]:
        state[r, c] = pairs.REMOVED
    revealed = tuple(tuple(x) for x in case["current_flips"])
    assert prompts.board_text(board, state, revealed, coords="letters") == case["text"]
    assert prompts.board_text(board, state, (), coords="letters") == case["text_no_flips"]


@pytest.mark.parametrize("case", DATA["parses"], ids=lambda c: repr(c["reply"])[:30])
def test_parser_is_the_release_parser(case):
    if case["parsed"] is None:
        with pytest.raises(ParseError):
            reply_parser.parse_flip(case["reply"], coords="letters", rows=case["rows"], cols=case["cols"])
    else:
        got = reply_parser.parse_flip(case["reply"], coords="letters", rows=case["rows"], cols=case["cols"])
        assert list(got) == case["parsed"]
        # the release's parser does not depend on chain of thought
        assert (
            list(
                reply_parser.parse_flip(
                    case["reply"], cot=False, coords="letters", rows=case["rows"], cols=case["cols"]
                )
            )
            == case["parsed"]
        )


def test_coordinates_format_and_round_trip():
    assert reply_parser.format_flip(2, 3, "letters") == "Action: cD"
    assert reply_parser.format_flip(2, 3, "numbers") == "Action: (3, 4)"
    for r in range(6):
        for c in range(8):
            assert reply_parser.parse_flip(
                reply_parser.format_flip(r, c, "letters"), coords="letters", rows=6, cols=8
            ) == (r, c)
            assert reply_parser.parse_flip(reply_parser.format_flip(r, c, "numbers")) == (r, c)


def test_env_default_speaks_the_release_protocol():
    env = cogsim.make("pairs/single", rows=2, cols=4)
    obs, _ = env.reset(seed=1)
    assert "Action: cD" in env.system_prompt and "[*]" in env.system_prompt
    assert "Round 1" in obs["text"] and "  [A][B][C][D]\na [*][*][*][*]\nb [*][*][*][*]" in obs["text"]
    assert "Score: 0. Pairs remaining: 4." in obs["text"] and "Thought: ...\nAction: <coordinate>" in obs["text"]
    board = env.board
    # first flip: the board after it, with the card's symbol; the instruction for the second card
    obs, _, _, _, info = env.step("Thought: start\nAction: aA")
    assert info["parse"] == "ok" and info["outcome"] == "first"
    assert f"a [{prompts.card_symbol(int(board[0, 0]), 4)}][*][*][*]" in obs["text"] and "second card" in obs["text"]
    # second flip on the partner: both revealed, the verdict with score and pairs remaining, round 2
    r, c = next((r, c) for r in range(2) for c in range(4) if (r, c) != (0, 0) and board[r, c] == board[0, 0])
    obs, reward, _, _, info = env.step(f"Action: {'ab'[r]}{'ABCD'[c]}")
    assert info["outcome"] == "match" and reward == 1.0
    assert (
        "Both cards revealed:" in obs["text"]
        and "Match!" in obs["text"]
        and "Score: 1. Pairs remaining: 3." in obs["text"]
    )
    assert "Round 2" in obs["text"] and "a [ ]" in obs["text"]
    # off the board is a parse failure in the release (its parser returns nothing), not an invalid action
    assert env.step("Action: cA")[4]["parse"] == "parse_failure"
    # a removed card is an invalid action
    assert env.step("Action: aA")[4]["parse"] == "invalid"


def test_duel_opponent_sees_the_whole_turn():
    env = cogsim.make("pairs/duel", rows=2, cols=2)
    env.reset(seed=0, options={"players": ["p", "q"]})
    board = env.board
    other = next((r, c) for r in range(2) for c in range(2) if board[r, c] != board[0, 0])
    env.step("Action: aA")
    obs, *_ = env.step(f"Action: {'ab'[other[0]]}{'AB'[other[1]]}")
    assert obs["player"] == 1
    assert f"Your opponent flipped aA and then {'ab'[other[0]]}{'AB'[other[1]]} (no match)" in obs["text"]
    assert "Score: you 0, opponent 0." in obs["text"]


def test_numbers_option_keeps_cogsims_style():
    env = cogsim.make("pairs/single", rows=2, cols=2, coords="numbers")
    obs, _ = env.reset(seed=0)
    assert "Action: (row, column)" in env.system_prompt and "??" in obs["text"]
    assert env.step("Action: (1, 1)")[4]["parse"] == "ok"
    with pytest.raises(ValueError, match="coords"):
        cogsim.make("pairs/single", coords="chess")


N = 1 << 20


@pytest.mark.parametrize("coords", ["letters", "numbers"])
@pytest.mark.parametrize("cot", [True, False])
@pytest.mark.parametrize(
    "reply",
    [
        "<think>" * (N // 7),
        "*" * N,
        "Action:" + " " * N,
        "Action: " + "*" * N,
        "action" * (N // 6),
        "**Action**" * (N // 10),
        "Action: (" + " " * N,
        "Action: a" + " " * N,
        "<think>" + "</think" * (N // 8),
    ],
    ids=[
        "think",
        "stars",
        "spaces",
        "action-stars",
        "actions",
        "starred-actions",
        "paren-spaces",
        "row-spaces",
        "unclosed",
    ],
)
def test_hostile_megabyte_replies_are_rejected(reply, cot, coords):
    with pytest.raises(ParseError):
        reply_parser.parse_flip(reply, cot=cot, coords=coords, rows=4, cols=4)


@pytest.mark.parametrize("coords", ["letters", "numbers"])
def test_hostile_prefix_then_a_valid_action(coords):
    action = reply_parser.format_flip(1, 2, coords)
    for prefix in ("<think>" * (N // 7), "*" * N, " " * N, "Action:" * (N // 7)):
        assert reply_parser.parse_flip(prefix + "\n" + action, coords=coords, rows=4, cols=4) == (1, 2)
    assert reply_parser.parse_flip("<think>" + "x" * N + "</think>" + action, coords=coords, rows=4, cols=4) == (1, 2)
