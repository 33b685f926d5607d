"""Cube Bench parsers: the release extraction gives, on every sample reply, the parse that the
released harness's own functions gave (the newest line by default, the older line 1ca7d58 with
``line="1ca7d58"``; tests/benchmarks/cubebench/data/cube_replies.json, produced offline), and every parser,
release or strict, finishes on 1 MB hostile replies."""

import json
from pathlib import Path

import pytest

from cogsim.benchmarks.cubebench import parser as parsers

DATA = json.loads((Path(__file__).parent / "data" / "cube_replies.json").read_text())
OPTIONS = ("R", "R'", "U2", "F")
OLDER = "1ca7d58"


def test_data_names_its_source():
    assert "dana-23/cube-bench commit" in DATA["source"] and "parse_letter" in DATA["source"]


@pytest.mark.parametrize("case", DATA["choice"], ids=lambda c: c["reply"][:30])
def test_choice_matches_both_release_lines(case):
    newest = parsers.release_choice(case["reply"], options=OPTIONS)
    assert (newest.value if newest.ok else None) == case["letter_newest"]
    got = parsers.release_choice(case["reply"], line=OLDER)
    assert (got.value if got.ok else None) == case["letter"]
    with_options = parsers.release_choice(case["reply"], options=OPTIONS, line=OLDER)
    assert (with_options.value if with_options.ok else None) == case["letter_with_options"]
    abstaining = parsers.release_choice(case["reply"], allow_idk=True, line=OLDER)
    if case["idk"]:
        assert abstaining.value == parsers.IDK
    else:
        assert abstaining.value == (case["letter"] if case["letter"] else None) or not abstaining.ok


@pytest.mark.parametrize("case", DATA["yes_no"], ids=lambda c: c["reply"][:30])
def test_yes_no_matches_release(case):
    got = parsers.release_yes_no(case["reply"])
    assert (got.value if got.ok else None) == case["answer"]


@pytest.mark.parametrize("case", DATA["effects"], ids=lambda c: c["reply"][:30])
def test_effects_match_release(case):
    got = parsers.release_effects(case["reply"])
    assert (list(got.value) if got.ok else [None] * 4) == case["labels"]


@pytest.mark.parametrize("case", DATA["grid"], ids=lambda c: c["reply"][:30])
def test_grid_matches_release(case):
    got = parsers.release_grid(case["reply"])
    if case["grid"] is None:
        assert got.status == parsers.PARSE_FAILURE
    elif case["grid"]["normalised"] is None:
        assert got.status == parsers.INVALID and list(got.value) == case["grid"]["raw"]
    else:
        assert got.ok and list(got.value) == case["grid"]["normalised"]


def test_release_and_strict_disagree_on_most_samples():
    """The point of the default: most realistic replies parse differently under the strict reading."""
    differ = sum(
        (parsers.parse_choice(c["reply"]).value if parsers.parse_choice(c["reply"]).ok else None) != c["letter"]
        for c in DATA["choice"]
    )
    assert differ >= len(DATA["choice"]) // 3


N = 1 << 20
HOSTILE = [
    "<ANSWER>" * (N // 8),
    "*" * N,
    "ANSWER:" + " " * N,
    "<" + " " * N,
    "<ANSWER>" + " " * N,
    "answer: row 1: [" + " " * N,
    "[[" * (N // 2),
    "[['a'" * (N // 5),
    "I" + " " * N + "DON",
    "A:" + " " * N,
    "<A" + " " * N,
    "<ANSWER> " + "A" * N,
    "```" * (N // 3),
    "\n" * N,
    "Answer:" * (N // 7),
]


@pytest.mark.parametrize("reply", HOSTILE, ids=range(len(HOSTILE)))
def test_every_parser_finishes_on_hostile_replies(reply):
    for line in ("731aff82", OLDER):
        assert parsers.release_choice(reply, allow_idk=True, options=OPTIONS, line=line).status != parsers.OK
    assert not parsers.release_yes_no(reply).ok
    assert not parsers.release_effects(reply).ok
    assert not parsers.release_grid(reply).ok
    assert not parsers.parse_choice(reply).ok
    assert not parsers.parse_effects(reply).ok
    assert not parsers.parse_grid(reply).ok


def test_hostile_reply_with_answer_at_the_end_still_parses():
    assert parsers.release_choice("<ANSWER>" * (N // 8) + "<ANSWER> C </ANSWER>").value == "C"
    assert parsers.release_yes_no(" " * N + "Answer: no").value == "No"
