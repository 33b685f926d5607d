"""Model replies are untrusted input (docs/security.md). Every env's parser runs in linear time on any
reply and never crashes on it:

- one regression case per pathological family at 1 MB, through ``env.step`` of every registered env
  (a quadratic parser takes minutes on these, a linear one milliseconds, so the generous timeout
  cannot flake);
- property-based fuzzing of every parser and of ``env.step`` with replies built from the tokens the
  answer formats use, plus arbitrary unicode (lone surrogates, NULs, control characters).
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cogsim
from cogsim.benchmarks.cubebench import parser as cube_parsers
from cogsim.benchmarks.rngbench.pairs import parser as pairs_parser
from cogsim.benchmarks.wilt import parser as wilt_parser

MEGABYTE = 1 << 20
PATHOLOGICAL = {
    "answer-tags": "<answer>" * (MEGABYTE // 8),
    "think-tags": "<think>" * (MEGABYTE // 7),
    "stars": "*" * MEGABYTE,
    "test-case-then-spaces": "Test case" + " " * MEGABYTE,
    "action-then-spaces": "Action:" + " " * MEGABYTE,
    "answer-colon-then-spaces": "ANSWER:" + " " * MEGABYTE,
    "open-bracket-run": "<" * MEGABYTE,
    "digits": "1," * (MEGABYTE // 2),
    "final-guess-backticks": "Final Guess: " + "`" * MEGABYTE,
}
ENV_IDS = cogsim.list_envs()
LINEAR_ENV_IDS = ENV_IDS
TOKENS = [
    "<think>",
    "</think>",
    "<answer>",
    "</answer>",
    "<ANSWER>",
    "</ANSWER>",
    "Action:",
    "action",
    "**",
    "*",
    "`",
    "```",
    "Test Case:",
    "Final Guess:",
    "lambda x, y, z:",
    "(",
    ")",
    ",",
    "1",
    "-2.5",
    "1e309",
    "nan",
    "A",
    "B",
    "Answer: Yes",
    "ANSWER: C",
    "Row 1: [W, Y, R]",
    "move_forward",
    "turn_left",
    "cD",
    "(3, 4)",
    "\n",
    " ",
    "\t",
    "\ud800",
    "\x00",
    "\u0661",
    "\u00a0",
    "é",
    "\U0001f600",
    "IDK",
    "<A>",
    "Map:",
    "0",
    "f",
    "?",
]
REPLIES = st.one_of(
    st.lists(st.sampled_from(TOKENS), max_size=40).map("".join),
    st.text(alphabet=st.characters(blacklist_categories=()), max_size=200),
)


def _step_through(env_id: str, reply: str):
    env = cogsim.make(env_id)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(reply)
    assert isinstance(obs["text"], str) and isinstance(reward, float)
    assert info.get("parse") in ("ok", "parse_failure", "invalid", None)
    env.close()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("env_id", LINEAR_ENV_IDS)
def test_a_megabyte_of_every_pathological_family_steps_every_env(env_id):
    for name, reply in PATHOLOGICAL.items():
        _step_through(env_id, reply)


@pytest.mark.timeout(300)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reply=REPLIES, env_index=st.integers(0, len(ENV_IDS) - 1))
def test_fuzzed_replies_never_crash_any_env(reply, env_index):
    _step_through(ENV_IDS[env_index], reply)


@settings(max_examples=300, deadline=None)
@given(reply=REPLIES)
def test_wilt_parsers_return_their_documented_values(reply):
    for strict in (False, True):
        parsed = wilt_parser.parse_response(reply, strict_inputs=strict)
        wilt_parser.describe(parsed)
    assert wilt_parser.release_kind(reply) in ("empty", "guess", "test", "other")
    point = wilt_parser.release_test_point(reply)
    assert isinstance(point, (tuple, str))
    guess = wilt_parser.release_guess_text(reply)
    assert guess is None or isinstance(guess, str)


@settings(max_examples=300, deadline=None)
@given(reply=REPLIES)
def test_cube_parsers_return_parsed_values(reply):
    for parse in (
        cube_parsers.parse_yes_no,
        cube_parsers.parse_effect,
        cube_parsers.parse_grid,
        cube_parsers.parse_effects,
        cube_parsers.release_choice,
        cube_parsers.release_yes_no,
        cube_parsers.release_effects,
        cube_parsers.release_grid,
    ):
        parsed = parse(reply)
        assert parsed.status in (cube_parsers.OK, cube_parsers.INVALID, cube_parsers.PARSE_FAILURE)
    assert cube_parsers.parse_choice(reply, "ABCD").status in (
        cube_parsers.OK,
        cube_parsers.INVALID,
        cube_parsers.PARSE_FAILURE,
    )


@settings(max_examples=300, deadline=None)
@given(reply=REPLIES)
def test_pairs_parsers_give_a_cell_or_a_value_error(reply):
    assert isinstance(pairs_parser.strip_think(reply), str)
    assert -1 <= pairs_parser.last_action_end(reply) <= len(reply)
    for coords in ("letters", "numbers"):
        for cot in (True, False):
            try:
                row, col = pairs_parser.parse_flip(reply, cot=cot, coords=coords, rows=26, cols=26)
            except ValueError:
                continue
            assert 0 <= row < 26 and 0 <= col < 26


def test_non_ascii_digits_are_not_numbers_in_cogsims_own_wilt_parser():
    parsed = wilt_parser.parse_response("Test Case: (\u0661, 2, 3)")
    assert not isinstance(parsed, wilt_parser.TestCase)


def test_given_tests_must_be_finite():
    for bad in ([[float("nan"), 1, 2]], [[1, float("inf"), 2]]):
        with pytest.raises(ValueError, match="finite"):
            cogsim.make("wilt/full", given_tests=bad).reset(seed=0)


def test_step_before_reset_and_non_text_actions_are_clear_errors():
    import gymnasium

    env = cogsim.make(ENV_IDS[0])
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step("x")
    env.reset(seed=0)
    with pytest.raises(TypeError, match="response text"):
        env.step(np.array([1]))
