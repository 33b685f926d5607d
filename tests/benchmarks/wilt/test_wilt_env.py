"""The WILT multi-turn env: parser, replies, attempts, repeats, scripted agents, episode record."""

from __future__ import annotations

import json

import pytest

import cogsim
from cogsim.benchmarks.wilt import parser as reply_parser
from cogsim.benchmarks.wilt import prompts
from cogsim.benchmarks.wilt.generator import generate_rules, hypothesis_space, procedural_rule
from cogsim.envs import play_scripted


def run_episode(env, agent: str, seed: int):
    played = play_scripted(env, agent, seed)
    return played.observations[-1], played.rewards[-1], played.infos[-1], played.turns


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Let me think.\nTest Case: ```(1, 2, 3)```", (1.0, 2.0, 3.0)),
        ("**Test Case:** `(-11.3, 0.5, .25)`", (-11.3, 0.5, 0.25)),
        ("Test Case: ```(1,2,3)```\nActually no.\nTest Case: ```(4, 5, 6)```", (4.0, 5.0, 6.0)),
        ("Test case: (7, 8, 9)", (7.0, 8.0, 9.0)),
        ("TEST CASE:\n```\n(1e2, -0, +3)\n```", (100.0, 0.0, 3.0)),
    ],
)
def test_parser_reads_the_last_test_case(text, expected):
    parsed = reply_parser.parse_response(text)
    assert isinstance(parsed, reply_parser.TestCase) and parsed.point == expected


@pytest.mark.parametrize(
    "text,source",
    [
        ("Final Guess: ```lambda x,y,z: x < y < z```", "lambda x,y,z: x < y < z"),
        (
            "Test Case: ```(1,2,3)```\n**Final Guess:** ```python\nlambda x, y, z: x + y == z\n```",
            "lambda x, y, z: x + y == z",
        ),
        ("Final Guess: lambda a, b, c: a > b\nthanks", "lambda a, b, c: a > b"),
        ("**Final Guess:** ```lambda x, y, z: x**2 + y**2 == z**2```", "lambda x, y, z: x**2 + y**2 == z**2"),
        ("**Final Guess**: lambda x, y, z: x**2 == y", "lambda x, y, z: x**2 == y"),
    ],
)
def test_parser_reads_the_final_guess(text, source):
    parsed = reply_parser.parse_response(text)
    assert isinstance(parsed, reply_parser.FinalGuess) and parsed.source == source


@pytest.mark.parametrize("text", ["I am not sure yet.", "Test Case: (1, 2)", "Test Case: ```(a, b, c)```", ""])
def test_parser_failures_are_values(text):
    assert isinstance(reply_parser.parse_response(text), reply_parser.ParseFailure)


def test_strict_inputs_refuse_more_than_three_digits():
    assert isinstance(
        reply_parser.parse_response("Test Case: (1000, 2, 3)", strict_inputs=True), reply_parser.ParseFailure
    )
    assert isinstance(
        reply_parser.parse_response("Test Case: (-11.3, 999, .125)", strict_inputs=True), reply_parser.TestCase
    )
    assert isinstance(reply_parser.parse_response("Test Case: (1000, 2, 3)"), reply_parser.TestCase)


def test_a_full_conversation_with_replies_repeats_and_guess():
    # cogsim's earlier episode rules, kept as protocol="prototype" (the release's are in test_wilt_episode.py).
    env = cogsim.make("wilt/lite", rule_index=1, protocol="prototype")  # x < y < z
    obs, _ = env.reset(seed=0)
    assert "hidden rule" in obs["text"] and "30 attempts" in obs["text"]
    obs, reward, term, trunc, info = env.step("Test Case: ```(2, 4, 6)```")
    assert obs["text"] == "(2.0, 4.0, 6.0): True. Attempts Remaining: 29" and info["parse"] == "ok"
    obs, *_ = env.step("Test Case: ```(2, 4, 6)```")
    assert obs["text"].endswith("Attempts Remaining: 28")
    obs, _, term, _, info = env.step("no idea")
    assert info["parse"] == "parse_failure" and not term and "backticks" in obs["text"]
    obs, reward, term, _, info = env.step("Final Guess: ```lambda a, b, c: c > b > a```")
    assert term and reward == 1.0 and obs["text"] == prompts.CORRECT_REPLY
    episode = info["episode"]
    assert episode["correct"] and episode["repeats"] == 1 and episode["num_tests"] == 2
    assert episode["tests"] == [[2.0, 4.0, 6.0, True], [2.0, 4.0, 6.0, True]]
    assert len(episode["reduction"]) == 2 and 0 < episode["reduction"][0] <= episode["reduction"][1] < 1
    assert episode["guess_operators"] == 2 and episode["tier"] == "easy"
    json.dumps(episode)


def test_attempt_limit_parse_abort_and_invalid_guess():
    env = cogsim.make("wilt/full", rule_index=0, max_attempts=2, protocol="prototype")
    env.reset(seed=0)
    env.step("Test Case: (1, 2, 3)")
    obs, *_ = env.step("Test Case: (3, 2, 1)")
    assert obs["text"] == "(3.0, 2.0, 1.0): True. Attempts Remaining: 0"
    obs, reward, term, _, info = env.step("Test Case: (5, 2, 1)")
    assert term and reward == 0.0 and info["episode"]["out_of_tests"]
    env.reset(seed=0)
    env.step("hmm")
    _, _, term, _, info = env.step("still thinking")
    assert term and info["parse"] == "parse_failure" and not info["episode"]["correct"]
    env.reset(seed=0)
    obs, _, term, _, info = env.step("Final Guess: ```lambda x, y, z: __import__('os')```")
    assert term and info["parse"] == "invalid" and info["episode"]["invalid_guess"]
    assert obs["text"].startswith(prompts.INVALID_GUESS_REPLY)


def test_wrong_guess_records_complexity_and_inclusion():
    env = cogsim.make("wilt/full", rule_index=49)  # (x < y < z) and (0 < z - x <= 1)
    env.reset(seed=0)
    _, reward, _, _, info = env.step("Final Guess: ```lambda x, y, z: x < y < z```")
    episode = info["episode"]
    assert reward == 0.0 and not episode["correct"] and episode["relation"] == "superset"
    assert episode["inclusion_ratio"] > 1 and episode["guess_length"] == len("lambda x, y, z: x < y < z")


@pytest.mark.parametrize("env_id,episodes", [("wilt/lite", 10), ("wilt/full", 50), ("wilt/procedural", 5)])
def test_oracle_is_always_right(env_id, episodes):
    env = cogsim.make(env_id)
    for seed in range(episodes):
        _, reward, info, turns = run_episode(env, "oracle", seed)
        assert reward == 1.0 and info["episode"]["correct"] and turns == 1


def test_elimination_beats_random_and_is_deterministic():
    env = cogsim.make("wilt/lite")
    eliminated = [run_episode(env, "elimination", s)[2]["episode"] for s in range(10)]
    randoms = [run_episode(env, "random", s)[2]["episode"] for s in range(10)]
    assert sum(e["correct"] for e in eliminated) >= 8
    assert sum(e["correct"] for e in eliminated) > sum(e["correct"] for e in randoms)
    assert all(e["num_tests"] < 30 for e in eliminated)
    again = run_episode(env, "elimination", 3)[2]["episode"]
    assert again["tests"] == eliminated[3]["tests"]
    assert all(r["num_tests"] == 30 for r in randoms)


def test_strict_elimination_only_types_short_numbers():
    env = cogsim.make("wilt/full", strict_inputs=True)
    _, _, info, _ = run_episode(env, "elimination", 26)
    for x, y, z, _ in info["episode"]["tests"]:
        for value in (x, y, z):
            typed = str(int(value)) if value.is_integer() else repr(value)
            assert reply_parser.count_digits(typed) <= 3


def test_test_swap_mode_is_one_turn():
    env = cogsim.make("wilt/full", rule_index=1, given_tests=[[1, 2, 3], [3, 2, 1]])
    obs, _ = env.reset(seed=0)
    assert "(1.0, 2.0, 3.0): True" in obs["text"] and "(3.0, 2.0, 1.0): False" in obs["text"]
    _, reward, term, _, info = env.step("Final Guess: ```lambda x, y, z: x < y < z```")
    assert term and reward == 1.0 and info["episode"]["swap"] and info["episode"]["num_tests"] == 2


def test_a_numpy_rule_index_picks_the_same_rule_as_an_int():
    import numpy as np

    by_int = cogsim.make("wilt/lite", rule_index=3)
    by_int.reset(seed=0)
    for value in (np.int64(3), np.int32(3)):
        env = cogsim.make("wilt/lite", rule_index=value)
        env.reset(seed=0)
        assert type(env.rule_index) is int and env.hidden_source == by_int.hidden_source


def test_options_are_checked():
    with pytest.raises(ValueError, match="rule_index"):
        cogsim.make("wilt/lite", rule_index=10).reset(seed=0)
    with pytest.raises(ValueError, match=r"unknown option\(s\) 'colour' for wilt/lite; allowed: "):
        cogsim.make("wilt/lite", colour="red")


HUGE = "x" * 100_000


@pytest.mark.parametrize(
    "options,name",
    [
        ({"protocol": HUGE}, "protocol"),
        ({"max_attempts": HUGE}, "max_attempts"),
        ({"strict_inputs": HUGE}, "strict_inputs"),
        ({"rule_index": HUGE}, "rule_index"),
        ({"judge": HUGE}, "judge"),
        ({HUGE: 1}, "unknown option"),
    ],
)
def test_a_huge_bad_option_gives_a_short_one_line_error(options, name):
    with pytest.raises(ValueError, match=name) as caught:
        cogsim.make("wilt/lite", **options)
    message = str(caught.value)
    assert "\n" not in message and "xxx..." in message
    if HUGE in options:  # an unknown name: the message also lists the options the env takes
        with pytest.raises(ValueError) as short:
            cogsim.make("wilt/lite", **{"x": 1})
        assert len(message) < len(str(short.value)) + 100
    else:
        assert len(message) < 300


def test_generator_is_seeded_and_diverse():
    assert generate_rules(20, seed=5) == generate_rules(20, seed=5)
    assert generate_rules(20, seed=5) != generate_rules(20, seed=6)
    space = hypothesis_space(2000, 0)
    assert len(space) == len(set(space)) == 2000
    assert procedural_rule(3) == procedural_rule(3)


@pytest.mark.parametrize(
    "text",
    [
        "Test Case: (" + "1" * 300_000,
        "Test Case: ```(" + "9" * 100 + ", " + "1." * 50_000,
        "Final Guess: " + "`" * 100_000,
        ("Test Case: " * 50_000) + "(1, 2, 3)",
        "Final Guess: ```" + "(" * 5000 + "x" + ")" * 5000 + "```",
    ],
)
def test_hostile_responses_are_handled_quickly(text):
    import time

    env = cogsim.make("wilt/lite", max_parse_failures=1)
    env.reset(seed=0)
    start = time.perf_counter()
    _, _, _, _, info = env.step(text)
    assert time.perf_counter() - start < 2.0
    assert info["parse"] in ("ok", "parse_failure", "invalid")


def test_a_guess_past_the_integer_bounds_is_an_invalid_guess_not_a_crash():
    env = cogsim.make("wilt/full", rule_index=0)
    env.reset(seed=0)
    guess = "Final Guess: ```lambda x, y, z: int(x) ** int(y) ** int(z) > 0```"
    obs, reward, term, _, info = env.step(guess)
    assert term and reward == 0.0 and info["parse"] == "invalid"
    assert info["episode"]["invalid_guess"] and not info["episode"]["correct"]
    assert obs["text"].startswith(prompts.INVALID_GUESS_REPLY)
