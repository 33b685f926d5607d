"""WILT fidelity: episode rules, transcript by transcript, against the released harness's own replies
(tests/benchmarks/wilt/data/wilt_transcripts.json, produced by running the release's loop offline)."""

import json
from pathlib import Path

import pytest

import cogsim
from cogsim.benchmarks.wilt import parser, prompts

DATA = json.loads((Path(__file__).parent / "data" / "wilt_transcripts.json").read_text())
NAMES = sorted(DATA["transcripts"])


def play(case):
    env = cogsim.make(f"wilt/{case['split']}", rule_index=case["rule_number"] - 1, max_attempts=case["max_attempts"])
    env.reset(seed=0)
    feedback, info, done = [], {}, False
    for reply in case["replies"]:
        assert not done, "the release kept talking after our episode ended"
        obs, reward, done, _, info = env.step(reply)
        feedback.append(obs["text"])
    return feedback, done, info, reward


@pytest.mark.parametrize("name", NAMES)
def test_transcript_matches_the_release(name):
    case = DATA["transcripts"][name]
    feedback, done, info, reward = play(case)
    assert feedback == case["feedback"]
    assert done, "the release ended the episode here"
    episode = info["episode"]
    assert episode["protocol"] == "release"
    assert episode["points"] == pytest.approx(case["result"]["points"])
    assert episode["correct"] == (case["result"]["points"] >= 1000) == (reward == 1.0)
    assert episode["attempts"] == case["result"]["guesses"]


def test_prompt_has_the_releases_instructions_in_our_words():
    env = cogsim.make("wilt/lite", max_attempts=12)
    obs, _ = env.reset(seed=0)
    text = obs["text"]
    assert "step by step" in text and "differ from the ones you already tried" in text
    assert "at most 12 test cases" in text and "Test Case: ```(1, 2, 3)```" in text and "Final Guess: ```" in text


def test_prompt_file_loads_any_text_with_one_placeholder(tmp_path):
    path = tmp_path / "prompt.txt"
    path.write_text("Published text {max_attempts} tests, {not a placeholder}.")
    obs, _ = cogsim.make("wilt/lite", prompt_file=str(path), max_attempts=7).reset(seed=0)
    assert obs["text"] == "Published text 7 tests, {not a placeholder}."
    with pytest.raises(ValueError, match="prompt_file"):
        cogsim.make("wilt/lite", prompt_file=str(tmp_path / "missing.txt"))


def test_empty_reply_costs_an_attempt_and_a_second_one_aborts():
    env = cogsim.make("wilt/lite", rule_index=0)
    env.reset(seed=0)
    obs, _, done, _, _ = env.step("")
    assert not done and obs["text"] == ""
    obs, _, done, _, _ = env.step("Test Case: (3, 2, 1)")
    assert obs["text"] == "Result for input (3.0, 2.0, 1.0): True. Attempts Remaining: 29"
    env.reset(seed=0)
    env.step("")
    _, reward, done, _, info = env.step("")
    assert done and reward == 0.0 and info["episode"]["aborted"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("test case:" + " " * 1_000_000, prompts.RELEASE_NO_TEST),
        ("Test Case: " + "(" * 1_000_000, prompts.RELEASE_NO_TEST),
        ("Test Case: " + "(\n" * 500_000 + ")", prompts.RELEASE_NO_TEST),  # "." does not cross lines in the release
        ("Test Case: (" + "1," * 300_000 + "x)", prompts.RELEASE_UNPARSEABLE_TEST),
        ("Test Case: " + "(1,2,3" + " " * 1_000_000 + ")", (1.0, 2.0, 3.0)),
        ("Final Guess: " + "`" * 1_000_000, "`"),  # as the release's pattern reads it (then an invalid guess)
        ("Final Guess: ```" + " " * 1_000_000, "`"),  # the single-backtick pattern matches inside the fence
        ("final guess:" * 80_000, None),
        ("Final Guess: `lambda x, y, z: True`" + " " * 1_000_000, "lambda x, y, z: True"),
    ],
)
def test_release_parsers_are_linear_on_hostile_replies(text, expected):
    if parser.release_kind(text) == "test":
        assert parser.release_test_point(text) == expected
    else:
        assert parser.release_kind(text) == "guess" and parser.release_guess_text(text) == expected


def test_strict_inputs_under_the_release_protocol_refuse_long_numbers_without_using_an_attempt():
    env = cogsim.make("wilt/lite", rule_index=0, strict_inputs=True)
    env.reset(seed=0)
    obs, _, done, _, info = env.step("Test Case: (1000, 2, 3)")
    assert not done and obs["text"] == prompts.STRICT_DIGITS_REPLY and info["parse"] == "parse_failure"
    obs, *_ = env.step("Test Case: (-11.3, 999, .125)")
    assert obs["text"] == "Result for input (-11.3, 999.0, 0.125): False. Attempts Remaining: 30"
    with pytest.raises(ValueError, match="judge_options"):
        cogsim.make("wilt/lite", judge="openai:m", judge_options="x")


PARSER_CASES = json.loads((Path(__file__).parent / "data" / "wilt_parser_cases.json").read_text())["cases"]


def test_release_parsers_agree_with_the_releases_readings_on_random_replies():
    mismatches = []
    for case in PARSER_CASES:
        text = case["reply"]
        got = {"kind": parser.release_kind(text)}
        if got["kind"] == "test":
            point = parser.release_test_point(text)
            got["test"] = (
                {prompts.RELEASE_NO_TEST: "none", prompts.RELEASE_UNPARSEABLE_TEST: "unparseable"}[point]
                if isinstance(point, str)
                else list(point)
            )
        if got["kind"] == "guess":
            got["guess"] = parser.release_guess_text(text)
        want = {k: v for k, v in case.items() if k != "reply"}
        if want.get("guess") == "":
            want["guess"] = None  # the release treats a blank guess as no guess
        if got != want:
            mismatches.append((text, got, case))
    assert not mismatches, mismatches[:5]
