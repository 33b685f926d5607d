"""WILT's final verdict as the release reaches it: the first failing point decides between "Sorry"
and "Invalid lambda function.", and the guess's value is compared with ``==`` to the rule's bool
(tests/benchmarks/wilt/data/wilt_transcripts.json holds the release's own replies for both; here the named
options for cogsim's earlier readings, and an independent statement of the release's loop in Python)."""

import json
from pathlib import Path

import numpy as np
import pytest

import cogsim
from cogsim.benchmarks.wilt import compile_rule, prompts, verdict
from cogsim.benchmarks.wilt.cases import CaseSet

DATA = json.loads((Path(__file__).parent / "data" / "wilt_transcripts.json").read_text())["transcripts"]
HIDDEN = "lambda x, y, z: x > y > z"


def last_reply(name, **options):
    case = DATA[name]
    env = cogsim.make("wilt/full", rule_index=case["rule_number"] - 1, **options)
    env.reset(seed=0)
    for reply in case["replies"]:
        obs, reward, done, _, info = env.step(reply)
    return obs["text"], info["episode"]


def test_a_guess_wrong_before_it_raises_is_wrong_not_invalid():
    text, episode = last_reply("wrong_before_raising")
    assert text == DATA["wrong_before_raising"]["feedback"][-1] and text.startswith("Sorry")
    assert not episode["invalid"] and episode["raises"] == "release"
    text, episode = last_reply("wrong_before_raising", raises="invalid")  # cogsim's earlier reading
    assert text == prompts.INVALID_GUESS_REPLY and episode["invalid"] and not episode["approx_correct"]
    assert last_reply("raising_before_any_mismatch")[0] == prompts.INVALID_GUESS_REPLY


def test_values_are_compared_with_equals_truthiness_is_an_option():
    text, episode = last_reply("value_two_is_not_true")
    assert text.startswith("Sorry") and not episode["correct"] and episode["compare"] == "equals"
    text, episode = last_reply("value_two_is_not_true", compare="truthiness")
    assert text.startswith("Congratulations") and episode["correct"]
    assert last_reply("value_one_equals_true")[1]["correct"]
    with pytest.raises(ValueError, match="compare must be one of equals, truthiness, got 'bool'"):
        cogsim.make("wilt/full", compare="bool")


def release_loop(guess_src: str, hidden_src: str, points) -> str:
    """The release's check, restated: ``all(rule(*p) == guess(*p) for p in points)`` in a ``try``."""
    guess, hidden = eval(guess_src), eval(hidden_src)  # test-authored sources only
    try:
        return "correct" if all(hidden(*p) == guess(*p) for p in points) else "wrong"
    except Exception:
        return "invalid"


GUESSES = [
    "lambda x, y, z: not (x > y > z) if x != 0 else 1 / 0",
    "lambda x, y, z: (x > y > z) if x != 0 else 1 / 0",
    "lambda x, y, z: (x > y > z) if y != 1 else x // 0 > 1",
    "lambda x, y, z: 2 if x > y > z else 0",
    "lambda x, y, z: 1.0 if x > y > z else 0.0",
    "lambda x, y, z: x > y > z and x",
    "lambda x, y, z: (x > y) + (y > z) - 1",
    "lambda x, y, z: x > y > z or -0.0",
    "lambda x, y, z: abs(x) if x > y > z else False",
    "lambda x, y, z: x > y and y > z",
    "lambda x, y, z: x / (y - z) > 0",
]


@pytest.mark.parametrize("guess", GUESSES)
def test_verdict_matches_the_releases_loop_on_shuffled_points(guess):
    rng = np.random.default_rng(len(guess))
    grid = np.array([(x, y, z) for x in range(-2, 3) for y in range(-2, 3) for z in range(-2, 3)], dtype=float)
    for order in range(4):
        points = np.concatenate([rng.uniform(-3, 3, (20, 3)), grid])[rng.permutation(145)]
        cases = CaseSet(points[:, 0].copy(), points[:, 1].copy(), points[:, 2].copy(), {"all": slice(0, 145)})
        got = verdict.final_verdict(guess, HIDDEN, cases)
        outcome = "invalid" if got.invalid else ("correct" if got.equivalent else "wrong")
        assert outcome == release_loop(guess, HIDDEN, [tuple(map(float, p)) for p in points]), (guess, order)


@pytest.mark.parametrize("guess", GUESSES)
def test_the_bool_shortcut_only_skips_guesses_cpython_returns_bools_for(guess):
    if verdict.returns_bool(compile_rule(guess)):
        function = eval(guess)
        for point in np.random.default_rng(1).uniform(-3, 3, (200, 3)):
            try:
                assert type(function(*map(float, point))) is bool
            except ZeroDivisionError:
                pass


def test_defaults_and_the_old_readings_agree_on_bool_guesses_that_never_raise():
    for mode in verdict.RAISES:
        got = verdict.final_verdict("lambda x, y, z: x >= y >= z", HIDDEN, raises=mode, compare="truthiness")
        assert not got.equivalent and not got.invalid and got.mismatches > 0
