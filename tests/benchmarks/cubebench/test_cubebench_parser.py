"""Cube Bench parsers: exactly the documented formats parse, everything else is a parse failure."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cogsim.benchmarks.cubebench import parser as parsers
from cogsim.benchmarks.cubebench.parser import parse_choice, parse_effect, parse_grid, parse_yes_no


@pytest.mark.parametrize(
    "text",
    [
        "B",
        "  B\n",
        "ANSWER: B",
        "Answer: B",
        "ANSWER:B",
        "ANSWER:   B ",
        "<ANSWER>B</ANSWER>",
        "<ANSWER> B </ANSWER>",
        "\n<ANSWER>B</ANSWER>\n",
    ],
)
def test_choice_accepts_the_three_formats(text):
    assert parse_choice(text) == parsers.Parsed("ok", "B")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "b",
        "B.",
        "(B)",
        "B)",
        "answer: B",
        "ANSWER - B",
        "The answer is B",
        "ANSWER: B\nbecause",
        "B\nC",
        "<ANSWER>B",
        "<answer>B</answer>",
        "ANSWER: B C",
        "AB",
        "ANSWER: R'",
        "**B**",
        "ANSWER: <ANSWER>B</ANSWER>",
    ],
)
def test_choice_rejects_everything_else(text):
    assert parse_choice(text).status == "parse_failure"


def test_letters_outside_the_options_are_invalid_not_failures():
    assert parse_choice("E") == parsers.Parsed("invalid", "E")
    assert parse_choice("ANSWER: Z").status == "invalid"
    assert parse_choice("ANSWER: E", labels="ABCDE").ok


@pytest.mark.parametrize(
    "text",
    [
        "IDK",
        "idk",
        "ANSWER: IDK",
        "<ANSWER>IDK</ANSWER>",
        "I don't know",
        "I do not know",
        "i dont know",
        "I don\u2019t know",
        "ANSWER: E",
    ],
)
def test_abstention_variants(text):
    assert parse_choice(text, allow_idk=True, idk_label="E") == parsers.Parsed("ok", parsers.IDK)


def test_abstention_is_invalid_when_not_offered():
    assert parse_choice("IDK") == parsers.Parsed("invalid", parsers.IDK)
    assert parse_choice("I don't know.", allow_idk=True).status == "parse_failure"


def test_last_line_mode_reads_only_the_final_line():
    reflection = "Option B turns the wrong face.\nOption C undoes the scramble.\n\nANSWER: C\n"
    assert parse_choice(reflection, last_line=True) == parsers.Parsed("ok", "C")
    assert parse_choice("ANSWER: C\nI am sure.", last_line=True).status == "parse_failure"
    assert parse_choice(reflection).status == "parse_failure"


@pytest.mark.parametrize(
    "text,value", [("Yes", "Yes"), ("no", "No"), ("YES", "Yes"), ("ANSWER: No", "No"), ("<ANSWER>yes</ANSWER>", "Yes")]
)
def test_yes_no(text, value):
    assert parse_yes_no(text) == parsers.Parsed("ok", value)


@pytest.mark.parametrize("text", ["Y", "N", "Yes.", "Yes, it matches", "Yes\nNo", "True", "ANSWER: Maybe", ""])
def test_yes_no_rejects(text):
    assert parse_yes_no(text).status == "parse_failure"


@pytest.mark.parametrize("label", parsers.EFFECT_LABELS)
def test_effect_labels(label):
    for text in (label, f"ANSWER: {label}", f"<ANSWER>{label}</ANSWER>"):
        assert parse_effect(text) == parsers.Parsed("ok", label)


@pytest.mark.parametrize("text", ["decrease", "NO CHANGE", "NOCHANGE", "DECREASES", "-1", "ANSWER: UP", "DECREASE."])
def test_effect_rejects(text):
    assert parse_effect(text).status == "parse_failure"


def test_grid_formats():
    expected = parsers.Parsed("ok", ("WGB", "RRO", "YGW"))
    assert parse_grid("W G B\nR R O\nY G W") == expected
    assert parse_grid("  W G B  \n R R O\nY G W\n") == expected
    assert parse_grid("<ANSWER>\nW G B\nR R O\nY G W\n</ANSWER>") == expected
    assert parse_grid("<ANSWER>W G B\nR R O\nY G W</ANSWER>") == expected


@pytest.mark.parametrize(
    "text",
    [
        "WGB\nRRO\nYGW",
        "W G B\nR R O",
        "W G B\nR R O\nY G W\nY G W",
        "w g b\nr r o\ny g w",
        "W,G,B\nR,R,O\nY,G,W",
        "W G X\nR R O\nY G W",
        "W  G B\nR R O\nY G W",
        "W G B\n\nR R O\nY G W",
        "Front:\nW G B\nR R O\nY G W",
        "[[W,G,B],[R,R,O],[Y,G,W]]",
    ],
)
def test_grid_rejects(text):
    assert parse_grid(text).status == "parse_failure"


def test_oversized_and_non_text_responses_fail_cleanly():
    assert parse_choice("B" + " " * parsers.MAX_RESPONSE_CHARS).status == "parse_failure"
    assert parse_choice(None).status == "parse_failure"
    assert parse_grid(42).status == "parse_failure"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_fuzz_choice_never_crashes_and_only_accepts_exact_forms(text):
    parsed = parse_choice(text, allow_idk=True, idk_label="E")
    if parsed.ok:
        assert parsed.value in ("A", "B", "C", "D", parsers.IDK)
        core = text.strip()
        assert len(core.splitlines()) == 1
        assert (
            core.startswith(("ANSWER:", "<ANSWER>")) or core in ("A", "B", "C", "D", "E") or parsed.value == parsers.IDK
        )


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="WYROGBwx \n<>/ANSWER:", max_size=40))
def test_fuzz_grid_values_are_always_three_rows_of_three_colours(text):
    parsed = parse_grid(text)
    if parsed.ok:
        assert len(parsed.value) == 3 and all(len(r) == 3 and set(r) <= set(parsers.COLOURS) for r in parsed.value)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["A", "B", "C", "D"]),
    st.sampled_from(["{}", "ANSWER: {}", "<ANSWER>{}</ANSWER>"]),
    st.text(alphabet=" \t\n", max_size=3),
    st.text(alphabet=" \t\n", max_size=3),
)
def test_fuzz_wrapped_answers_round_trip(letter, wrapper, before, after):
    assert parse_choice(before + wrapper.format(letter) + after) == parsers.Parsed("ok", letter)


def test_effects_four_lines_in_option_order():
    tagged = "<A> DECREASE </A>\n<B>NO_CHANGE</B>\n<C> INCREASE </C>\n<D> DECREASE </D>"
    assert parsers.parse_effects(tagged) == parsers.Parsed("ok", ("DECREASE", "NO_CHANGE", "INCREASE", "DECREASE"))
    assert parsers.parse_effects("A: INCREASE\nB: INCREASE\nC:NO_CHANGE\n<D> DECREASE </D>").ok


@pytest.mark.parametrize(
    "text",
    [
        "<A> DECREASE </A>\n<B> NO_CHANGE </B>\n<C> INCREASE </C>",  # a line missing
        "<B> NO_CHANGE </B>\n<A> DECREASE </A>\n<C> INCREASE </C>\n<D> DECREASE </D>",  # reordered
        "<A> DECREASE </B>\n<B> NO_CHANGE </B>\n<C> INCREASE </C>\n<D> DECREASE </D>",  # mismatched tags
        "<A> decrease </A>\n<B> NO_CHANGE </B>\n<C> INCREASE </C>\n<D> DECREASE </D>",  # case
        "<A> NO CHANGE </A>\n<B> NO_CHANGE </B>\n<C> INCREASE </C>\n<D> DECREASE </D>",
        "<A> DECREASE </A>\n<B> NO_CHANGE </B>\n<C> INCREASE </C>\n<D> DECREASE </D>\nDone.",
        "",
        "DECREASE",
    ],
)
def test_effects_reject_everything_else(text):
    assert parsers.parse_effects(text).status == "parse_failure"


def test_grid_in_the_papers_row_block():
    block = "ANSWER:\n  Row 1: [Green, White, R]\n  Row 2: [g, G, g]\n  Row 3: [Blue, Orange, Yellow]\n"
    assert parse_grid(block) == parsers.Parsed("ok", ("GWR", "GGG", "BOY"))
    assert parse_grid(block + "Answer verified for correctness.").ok
    assert parse_grid("ANSWER: Row 1: [G, W, R]\nRow 2: [G, G, G]\nRow 3: [B, O, Y]").ok
    for bad in (
        block.replace("Row 2", "Row 3"),
        block.replace("Orange", "Purple"),
        block + "Thanks!",
        block.replace("[g, G, g]", "[G, G]"),
        "Row 1: [G, W, R]\nRow 2: [G, G, G]\nRow 3: [B, O, Y]",
    ):
        assert parse_grid(bad).status == "parse_failure", bad
