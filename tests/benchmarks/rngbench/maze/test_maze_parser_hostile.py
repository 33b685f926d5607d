"""Issue 18: the maze parsers read 1 MB hostile replies through env.step in linear time (only
correctness is asserted; a quadratic scan would not finish)."""

from __future__ import annotations

import pytest

import cogsim
from cogsim.benchmarks.rngbench.maze import parser as reply_parser

N = 1 << 20


def fresh(**options):
    env = cogsim.make("maze3d/nav", size=7, modality="text", **options)
    env.reset(seed=2)  # facing east into a wall: move_forward is not available, the turns are
    return env


@pytest.mark.parametrize("parser", ["release", "strict"])
@pytest.mark.parametrize(
    "reply, expected",
    [
        ("<think>" * (N // 7), None),
        ("*" * N, None),
        ("Action:" + " " * N, None),
        ("action" + " " * N, None),
        ("Action:" + " " * N + "!", None),
        ("<think>" * (N // 7) + "\nAction: turn_left", "turn_left"),
        ("*" * N + "Action: turn_right", "turn_right"),
        ("**Action**\n" * (N // 11) + "**Action**: turn_left", "turn_left"),
        ("Action:" + " " * N + "turn_right", "turn_right"),
        ("go" + " " * N + "left", None),
    ],
    ids=[
        "think",
        "stars",
        "action-spaces",
        "keyword-spaces",
        "spaces-bang",
        "think-then-action",
        "stars-then-action",
        "bold-markers",
        "spaces-then-action",
        "go-spaces",
    ],
)
def test_hostile_replies_parse_correctly_through_env_step(parser, reply, expected):
    env = fresh(parser=parser)
    obs, _, _, _, info = env.step(reply)
    if expected is None:
        assert info["parse"] == "parse_failure"
    else:
        assert info["parsed"] == expected


@pytest.mark.parametrize("reply", ["<think>" * (N // 7), "*" * N, "Map:" + " " * N, "**map**" * (N // 7) + ":"])
def test_the_direct_and_map_parsers_are_linear(reply):
    with pytest.raises(reply_parser.ParseError):
        reply_parser.parse_action(reply, cot=False, ask_output=True)
    assert reply_parser.parse_map(reply, 5) is None
    env = fresh(parser="strict", cot=False, ask_output=True)
    assert env.step(reply)[4]["parse"] == "parse_failure"


def test_direct_mode_still_reads_a_clean_line():
    assert reply_parser.parse_action("**Action:** `turn_left` **", cot=False) == 1
    assert reply_parser.parse_action("Map:\n3?\n??\nAction: turn_left", cot=False, ask_output=True) == 1
    with pytest.raises(reply_parser.ParseError):
        reply_parser.parse_action("Go. Action: move_forward", cot=False)
