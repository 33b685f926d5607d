"""The KidGym answer decoder on paper-style answers and on fuzzed text."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cogsim.benchmarks.kidgym import decode_answer, format_options, letter_list

ACTIONS = [
    "pick up the item with label 1",
    "pick up the item with label 2",
    "put the item from backpack A into the basket with label 3",
]


@pytest.mark.parametrize(
    "response, expected",
    [
        ("B", 1),
        ("B: 'pick up the item with label 2'", 1),
        ("Since the item with label 2 is a sushi, the first action you should choose is B.", 1),
        ("<answer>C</answer>", 2),
        ("<ANSWER>A</ANSWER>", 0),
        ("<THINK>The basket with label 3 is green, so I put it there: C.</THINK>\n<ANSWER>C</ANSWER>", 2),
        ("<Answer>\nB\n</Answer>", 1),
        (
            "I choose 'put the item from backpack A into the basket with label 3'",
            2,
        ),  # quoted text wins over the letter I
        ("The answer is (A).", 0),
        ("Option B.", 1),  # "O" is not a label here; "B" stands alone
        ("ABC", 0),  # no standalone letter: the paper falls back to the first label letter anywhere
        ("Dunno", None),  # D is not among A-C; no valid letter anywhere
        ("", None),
        ("b", None),  # labels are uppercase
        ("<answer>Z</answer> B", None),  # only the tagged span is read
    ],
)
def test_paper_style_answers(response, expected):
    assert decode_answer(response, ACTIONS) == expected


def test_letter_inside_a_word_counts_only_in_the_paper_mode():
    assert decode_answer("Apparently none", ACTIONS) == 0
    assert decode_answer("Apparently none", ACTIONS, strict=True) is None


def test_strict_mode_matches_unquoted_whole_phrases_longest_first():
    actions = ["obtain item with label 1", "obtain item with label 12"]
    assert decode_answer("i will obtain item with label 12 now", actions, strict=True) == 1
    assert decode_answer("obtain item with label 1.", actions, strict=True) == 0


def test_quoted_action_must_match_exactly():
    actions = ["obtain item with label 1", "obtain item with label 12"]
    assert decode_answer("'obtain item with label 12'", actions) == 1


def test_option_formatting_is_the_papers():
    assert format_options(["a", "b"]) == "A) 'a' B) 'b'"
    assert letter_list(3) == "A/B/C"


def test_bad_inputs():
    with pytest.raises(TypeError, match="response"):
        decode_answer(None, ACTIONS)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="actions"):
        decode_answer("A", [str(i) for i in range(27)])
    assert decode_answer("A", []) is None


@settings(max_examples=400, deadline=None)
@given(text=st.text(max_size=300), count=st.integers(1, 26))
def test_fuzzed_text_never_crashes_and_stays_in_range(text, count):
    actions = [f"choose the item with label {i}" for i in range(count)]
    for strict in (False, True):
        index = decode_answer(text, actions, strict=strict)
        assert index is None or 0 <= index < count


@settings(max_examples=300, deadline=None)
@given(noise=st.text(alphabet=string.ascii_lowercase + " .,\n", max_size=80), count=st.integers(1, 26), data=st.data())
def test_fuzzed_tagged_letter_is_decoded(noise, count, data):
    index = data.draw(st.integers(0, count - 1))
    letter = string.ascii_uppercase[index]
    actions = [f"choose the item with label {i}" for i in range(count)]
    tag = data.draw(st.sampled_from(["answer", "ANSWER", "Answer"]))
    assert decode_answer(f"{noise}<{tag}>{letter}</{tag}>{noise}", actions) == index
    assert decode_answer(f"{noise} '{actions[index]}' {noise}", actions) == index
