"""WILT fidelity: guess complexity as the release's analysis/complexity_analysis.py computes it
(medians per model of operator count, string length and set-inclusion ratio)."""

import pytest

from cogsim.benchmarks.wilt import metrics as wilt_metrics


def ep(guess, length, ratio, invalid=False):
    return {
        "correct": False,
        "approx_correct": False,
        "num_tests": 3,
        "repeats": 0,
        "guessed": True,
        "guess": guess,
        "guess_length": length,
        "inclusion_ratio": ratio,
        "invalid": invalid,
    }


@pytest.mark.parametrize(
    "source, count",
    [
        ("lambda x, y, z: x < y < z", 2),  # two "<"
        ("lambda x, y, z: x <= y and y >= z", 3),  # "<=", ">=", "and"
        ("lambda x, y, z: x**2 + y**2 == z**2", 5),  # three "**", "+", "=="
        ("lambda x, y, z: (x + y + z) % 2 == 0", 4),  # two "+", "%", "=="
        ("lambda x, y, z: x != y or not z", 3),  # "!=", "or", "not" (and "or" is not found in "not")
    ],
)
def test_operator_count_as_the_release_counts(source, count):
    assert wilt_metrics.release_operator_count(source) == count


def test_complexity_is_the_median_by_default_and_the_mean_on_request():
    episodes = [
        ep("lambda x, y, z: x < y", 21, 1.0),  # 1 operator
        ep("lambda x, y, z: x < y < z", 25, 2.0),  # 2
        ep("lambda x, y, z: x < y and y < z and z > 0 and x > 0", 51, 9.0),  # 7
        ep("lambda x, y, z: x / 0 > 1", 25, None, invalid=True),  # invalid: not a judged guess
    ]
    row = wilt_metrics.summary_row(episodes)
    assert row["complexity_statistic"] == "median"
    assert row["guess_operators"] == 2.0 and row["guess_length"] == 25.0 and row["inclusion_ratio"] == 2.0
    mean = wilt_metrics.summary_row(episodes, complexity="mean")
    assert mean["guess_operators"] == pytest.approx(10 / 3) and mean["guess_length"] == pytest.approx(97 / 3)
    assert mean["inclusion_ratio"] == pytest.approx(4.0)
    with pytest.raises(ValueError, match="complexity"):
        wilt_metrics.summary_row(episodes, complexity="mode")
