"""Cube Bench metrics against hand-computed examples."""

import math

import pytest

from cogsim.benchmarks.cubebench import metrics as m
from cogsim.metrics import Estimate, summarize, wilson

GOLD = ["DECREASE", "DECREASE", "NO_CHANGE", "INCREASE", "INCREASE", "INCREASE"]
PRED = ["DECREASE", "NO_CHANGE", "NO_CHANGE", "INCREASE", "DECREASE", None]  # None: unparsed


def test_wilson_three_of_four():
    # p = 0.75, n = 4, z = 1.96: centre 0.6275, half-width 0.3269 (textbook [0.3006, 0.9544])
    est = wilson(3, 4)
    assert est.low == pytest.approx(0.30064, abs=1e-4) and est.high == pytest.approx(0.95441, abs=1e-4)


def test_cohen_kappa_by_hand():
    # The paper's kappa: observed 3/6 (the unparsed label disagrees); chance = gold priors (2/6, 1/6,
    # 3/6) x the parsed prediction mix (2/5, 2/5, 1/5) = 4/30 + 2/30 + 3/30 = 3/10; (1/2 - 3/10)/(7/10)
    assert m.cohen_kappa(GOLD, PRED) == pytest.approx(2 / 7)
    assert m.cohen_kappa(GOLD, GOLD) == 1.0
    # a constant answer agrees only by chance: kappa 0
    assert m.cohen_kappa(GOLD, ["INCREASE"] * 6) == pytest.approx(0.0)


def test_macro_f1_by_hand():
    # F1: DECREASE 2/(2+1+1) = 1/2, NO_CHANGE 2/(2+1) = 2/3, INCREASE 2/(2+2) = 1/2
    assert m.macro_f1(GOLD, PRED) == pytest.approx((0.5 + 2 / 3 + 0.5) / 3)
    assert m.macro_f1(GOLD, GOLD) == 1.0
    # a class absent from gold and predictions scores 0 in the paper's mean over three classes
    assert m.macro_f1(["DECREASE", "INCREASE"], ["DECREASE", "INCREASE"]) == pytest.approx(2 / 3)
    assert m.macro_f1(["DECREASE", "INCREASE"], ["DECREASE", "INCREASE"], absent="skip") == 1.0
    with pytest.raises(ValueError, match="absent"):
        m.macro_f1(GOLD, PRED, absent="ignore")


def test_apa_by_hand():
    assert m.apa(correct=6, abstained=4, decisions=12) == pytest.approx((6 + 0.25 * 4) / 12)
    assert m.apa(0, 5, 5) == 0.25  # always abstaining earns the four-way chance rate
    assert math.isnan(m.apa(0, 0, 0))


def test_balanced_accuracy_and_yes_bias_by_hand():
    gold, pred = ["Yes", "Yes", "Yes", "No"], ["Yes", "No", None, "No"]
    assert m.balanced_accuracy(gold, pred) == pytest.approx((1 / 3 + 1) / 2)
    assert m.yes_bias(gold, pred) == pytest.approx(1 / 3 - 3 / 4)
    assert m.yes_bias(["Yes", "No"], ["Yes", "Yes"]) == pytest.approx(0.5)
    # the paper harness: unparsed left out (positives: 1 of 2 parsed right, negatives 1 of 1), Yes rate 1/3
    assert m.balanced_accuracy(gold, pred, unparsed="drop") == pytest.approx((1 / 2 + 1) / 2)
    assert m.yes_rate(pred) == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="unparsed"):
        m.balanced_accuracy(gold, pred, unparsed="skip")


def test_reconstruction_accuracies_by_hand():
    gold = [["WWW", "GGG", "YYY"], ["RRR", "RRR", "RRR"]]
    pred = [["WWW", "GGG", "YYB"], None]
    element = m.element_accuracy(pred, gold)
    assert (element.value, element.n) == (8 / 18, 18)
    assert m.matrix_accuracy(pred, gold).value == 0.0
    assert m.matrix_accuracy(gold, gold).value == 1.0


def test_reflection_rates_by_hand():
    initial, final = [True, True, False, False, False], [True, False, True, False, True]
    assert m.error_fix_rate(initial, final).value == pytest.approx(2 / 3)
    assert m.overthink_rate(initial, final).value == pytest.approx(1 / 2)


def test_recovery_statistics_by_hand():
    # Paper's learning curve over 4 episodes with a failure: solved after 1, 3 and 5 decisions, one unsolved.
    solved_at = [1, 3, None, 5]
    assert m.solved_within(solved_at, 1).value == 0.25  # P@1
    assert m.solved_within(solved_at, 3).value == 0.5  # P@3
    assert m.median_steps_solved(solved_at) == 3.0  # Med@Solved
    assert m.average_steps_all([1, 3, 6, 5], [True, True, False, True], [6, 6, 6, 6]) == pytest.approx(15 / 4)
    assert m.median_steps_solved([4, None, 6, 5]) == 5.0
    assert m.average_steps_all([4, 7, 2], [True, False, True], [7, 7, 7]) == pytest.approx(13 / 3)


def _loop(agent, adherent, depth=3, **extra):
    outcomes = (["progress"] + ["teacher"] * (adherent - 1) if adherent else []) + (
        ["wrong"] if adherent < depth else []
    )
    return {
        "test": "closed-loop",
        "agent": agent,
        "depth": depth,
        "modality": "text",
        "abstention": False,
        "steps_total": depth,
        "adherent": adherent,
        "abstained": 0,
        "answered": len(outcomes),
        "decisions": len(outcomes),
        "parse_failures": 0,
        "perfect_solve": adherent == depth,
        "outcomes": outcomes,
        **extra,
    }


def test_teacher_adherence_uses_unconditional_denominators():
    table, by_step = summarize("cube", [_loop("x", 3), _loop("x", 1), _loop("x", 0)])
    row = dict(zip(table.columns, table.rows[0]))
    assert [c.value for c in by_step.rows[0][4:]] == pytest.approx([2 / 3, 1 / 3, 1 / 3])
    assert row["TA%"].value == pytest.approx(4 / 9)  # 4 adherent steps of 3 x 3 possible
    assert row["perfect solve"].value == pytest.approx(1 / 3)
    assert row["selective acc."].value == pytest.approx(4 / 6)  # 4 adherent of 6 answered decisions


def test_tables_group_by_agent_variant_and_depth_and_accept_nested_episodes():
    # Two items of four labels each: GOLD/PRED above plus two more labels; the second item unparsed.
    gold = GOLD + ["NO_CHANGE", "DECREASE"]
    episodes = [
        {
            "agent": "a",
            "episode": {
                "test": "move-effect",
                "depth": 1,
                "modality": "text",
                "gold_labels": gold[:4],
                "answers": PRED[:4],
                "parse": "ok",
            },
        },
        {
            "agent": "a",
            "test": "move-effect",
            "depth": 1,
            "modality": "text",
            "gold_labels": gold[4:],
            "answers": None,
            "parse": "parse_failure",
        },
        {
            "agent": "a",
            "test": "move-effect",
            "depth": 2,
            "modality": "text",
            "gold_labels": ["DECREASE"] * 4,
            "answers": ["DECREASE"] * 4,
            "parse": "ok",
        },
    ]
    (table,) = summarize("cube", episodes)
    assert [(r[0], r[1], r[2], r[3]) for r in table.rows] == [("a", "text", 1, 2), ("a", "text", 2, 1)]
    row = dict(zip(table.columns, table.rows[0]))
    # labels: 3 of 8 right; parsed mix DEC 1, NC 2, INC 1 (of 4); gold priors DEC 3/8, NC 2/8, INC 3/8
    # chance = 3/32 + 4/32 + 3/32 = 10/32; kappa = (3/8 - 10/32) / (22/32) = 1/11
    assert isinstance(row["micro acc."], Estimate) and row["micro acc."].value == pytest.approx(3 / 8)
    assert row["kappa"] == pytest.approx(1 / 11, abs=1e-3)
    # F1: DEC tp1 fp0 fn2 -> 1/2; NC tp1 fp1 fn1 -> 1/2; INC tp1 fp0 fn2 -> 1/2
    assert row["macro-F1"] == pytest.approx(0.5, abs=1e-3)
    assert row["parse rate"].value == pytest.approx(1 / 2)


def test_no_cube_episodes_no_tables():
    assert summarize("cube", [{"test": "other", "depth": 1}]) == []


def test_plot_draws_one_panel_per_table(tmp_path):
    from cogsim.metrics import plot

    episodes = [_loop("x", 3, depth=d) for d in (1, 2, 3)] + [_loop("y", 0, depth=d) for d in (1, 2)]
    ((caption, path),) = plot("cube", episodes, tmp_path)
    assert "depth" in caption and path.exists() and path.stat().st_size > 1000
    assert plot("cube", [], tmp_path) == []
