"""The papers' published rows (each benchmark's published.json, shown beside a preset run's tables)
checked against the aggregates each paper derives from them, so that a transcription typo is caught:
KidGym's capability scores from its Table 2, WILT's average repeats from its Table 3, Cube Bench's
gains, Wilson intervals and APA, RNG-Bench's game scores and duel records. Where a paper's own
tables disagree, the data file lists the cells (``printed_differently``) and the test holds both
the printed value and the derived one."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from cogsim.benchmarks.kidgym.metrics import PAPER_TASK_CODES, TASK_CAPABILITIES, capability_scores
from cogsim.metrics import wilson
from cogsim.report.papers import published

KIDGYM, WILT, CUBE, RNG = (published(name) for name in ("kidgym", "wilt", "cubebench", "rngbench"))


@pytest.mark.parametrize("data", [KIDGYM, WILT, CUBE, RNG], ids=["kidgym", "wilt", "cubebench", "rngbench"])
def test_every_file_states_its_source(data):
    assert "paper" in data["source"] and "Table" in data["source"]


# -- KidGym ------------------------------------------------------------------------------------------


def _kidgym_rates(model: str) -> dict:
    rows = [r for r in KIDGYM["table2"] if r["model"] == model]
    return {code: {r["level"]: r["values"][code] for r in rows} for code in KIDGYM["tasks"]}


def test_kidgym_table2_has_every_model_at_three_levels_and_twelve_tasks():
    assert sorted(KIDGYM["tasks"]) == sorted(PAPER_TASK_CODES)
    models = {r["model"] for r in KIDGYM["table2"]}
    assert models == set(KIDGYM["table6"]["rows"]) | {"Random"}
    for model in models:
        assert sorted(r["level"] for r in KIDGYM["table2"] if r["model"] == model) == [1, 2, 3]
    for row in KIDGYM["table2"]:
        assert set(row["values"]) == set(KIDGYM["tasks"])
        assert all(0 <= v <= 1 and round(v * 100) == pytest.approx(v * 100) for v in row["values"].values())


def test_kidgym_capability_map_is_the_papers():
    for capability, codes in KIDGYM["capabilities"].items():
        assert sorted(codes) == sorted(c for c in PAPER_TASK_CODES if capability in TASK_CAPABILITIES[c][1])


def test_kidgym_table6_is_the_level_weighted_score_of_table2():
    differently = {(d["model"], d["capability"]): d for d in KIDGYM["table6"]["printed_differently"]}
    checked = 0
    for model, printed in KIDGYM["table6"]["rows"].items():
        derived = capability_scores(_kidgym_rates(model), codes=PAPER_TASK_CODES)
        for capability, value in zip(KIDGYM["table6"]["columns"], printed):
            slip = differently.get((model, capability))
            if slip is None:
                assert round(derived[capability]) == value, (model, capability, derived[capability])
                checked += 1
            else:  # the paper prints another value than its Table 2 gives; both are pinned
                assert slip["printed"] == value
                assert derived[capability] == pytest.approx(slip["from_table2"], abs=0.05)
    assert checked == 14 * 5 - len(differently)


def test_kidgym_project_page_disagreements_are_exactly_the_listed_cells():
    listed = {(d["model"], d["level"], d["task"]): d for d in KIDGYM["project_page_differs"]}
    found = {}
    for model, levels in KIDGYM["project_page_rows"].items():
        paper = _kidgym_rates(model)
        for level, values in levels.items():
            for task, page_value in values.items():
                if page_value != paper[task][int(level)]:
                    found[(model, int(level), task)] = (paper[task][int(level)], page_value)
    assert set(found) == set(listed)
    for key, (paper_value, page_value) in found.items():
        assert (listed[key]["paper"], listed[key]["project_page"]) == (paper_value, page_value)
    # the two rows: the page's Random level 1 and Human level 2 differ from the paper
    assert any(k[:2] == ("Random", 1) for k in found) and any(k[:2] == ("Human", 2) for k in found)


# -- WILT --------------------------------------------------------------------------------------------


def _count(text: str, n: int) -> int:
    k, total = map(int, text.split("/"))
    assert total == n and 0 <= k <= n
    return k


def test_wilt_table1_counts_orders_and_repeats_from_table3():
    repeats = {r["model"]: r["repeats"] for r in WILT["table3"]}
    differently = {d["model"]: d for d in WILT["printed_differently"]}
    accuracy = [_count(r["accuracy"], 50) for r in WILT["table1"]]
    assert accuracy == sorted(accuracy, reverse=True)  # the table is ordered by accuracy
    for row, correct in zip(WILT["table1"], accuracy):
        assert correct + _count(row["approx_correct"], 50) <= 50  # approximately correct excludes correct
        from_table3 = repeats[row["table3_name"]] / 50
        if row["model"] in differently:
            assert differently[row["model"]]["printed"] == row["avg_repeats"]
            assert differently[row["model"]]["from_table3"] == pytest.approx(from_table3)
        else:
            assert row["avg_repeats"] == pytest.approx(from_table3), row["model"]
    assert len(WILT["table1"]) == len(WILT["table3"]) == 20


def test_wilt_table4_counts_and_order():
    accuracy = [_count(r["accuracy"], 10) for r in WILT["table4"]]
    assert accuracy == sorted(accuracy, reverse=True)
    assert all(r["avg_guesses"] > 0 for r in WILT["table4"])


# -- Cube Bench --------------------------------------------------------------------------------------


def test_cube_table1_element_accuracy_is_stickers_of_100_items_and_bounds_matrix():
    for row in CUBE["table1"]:
        for depth in (1, 2, 3):
            element, matrix = row[f"element_d{depth}"], row[f"matrix_d{depth}"]
            stickers = element * 9  # element % = stickers right / 900 x 100
            assert abs(stickers - round(stickers)) <= 0.45 + 1e-9, (row["model"], depth)
            assert matrix <= element + 1e-9  # a fully right face has all nine stickers right
            assert matrix == int(matrix)  # faces of 100 items


def test_cube_table2_accuracy_never_exceeds_parse_rate():
    for row in CUBE["table2"]:
        for modality in ("image_text", "image", "text"):
            assert row[f"{modality}_acc"] <= row[f"{modality}_parse"], row["model"]


def _reflection_final(initial: float, efr: float, otr: float) -> float:
    return initial + efr * (100 - initial) / 100 - otr * initial / 100


def test_cube_table9_gain_is_final_minus_initial_and_follows_efr_otr():
    differently = {(d["model"], d["column"]): d for d in CUBE["printed_differently"] if d["table"] == "table9"}
    for row in CUBE["table9"]:
        slip = differently.get((row["model"], "gain"))
        if slip:
            assert slip["printed"] == row["gain"] and slip["from_final_minus_initial"] == row["final"] - row["initial"]
        else:
            assert row["gain"] == pytest.approx(row["final"] - row["initial"], abs=0.51), row["model"]
        assert _reflection_final(row["initial"], row["efr"], row["otr"]) == pytest.approx(row["final"], abs=1.5)


def test_cube_table3_gain_is_reachable_from_efr_and_otr():
    # gain = EFR (1 - i) - OTR i for the unknown initial accuracy i: it must lie in [0, 1]
    for row in CUBE["table3"]:
        efr, otr, gain = row["efr"] / 100, row["otr"] / 100, row["gain"] / 100
        initial = (efr - gain) / (efr + otr)
        assert -0.01 <= initial <= 1.01, row["model"]


def _median_bounds(solved: int, median: float, budget: int = 6) -> tuple[float, float]:
    """Least and greatest sum of ``solved`` step counts in 1..budget with this median."""
    if solved == 0:
        return 0, 0
    side = (solved - 1) // 2
    middle = median * (1 if solved % 2 else 2)
    return side + middle + side * median, side * median + middle + side * budget


def test_cube_table5_wilson_interval_counts_and_averages():
    for row in CUBE["table5"]:
        low, high = row["ci95"]
        scale = 100 if row["ci_unit"] == "fraction" else 1
        low, high = low * scale, high * scale
        # the n that makes SR a count and Wilson's interval the printed one
        fits = []
        for n in range(1, 101):
            k = row["sr"] * n / 100
            if abs(k - round(k)) > 1e-6:
                continue
            estimate = wilson(round(k), n)
            if abs(estimate.low * 100 - low) <= 0.06 and abs(estimate.high * 100 - high) <= 0.6:
                fits.append((round(k), n))
        assert fits, row["model"]
        assert row["p1"] <= row["p3"] <= row["sr"] / 100 + 1e-9
        assert any(
            _median_bounds(k, row["med_solved"])[0] + 6 * (n - k) <= row["avg_all"] * n + 0.5 * n / 100 + 1e-6
            and row["avg_all"] * n - 0.5 * n / 100 - 1e-6 <= _median_bounds(k, row["med_solved"])[1] + 6 * (n - k)
            for k, n in fits
        ), row["model"]


def test_cube_table6_apa_is_coverage_times_selective_accuracy_plus_quarter_idk():
    for row in CUBE["table6"]:
        apa = row["coverage"] / 100 * row["selective_acc"] / 100 + 0.25 * row["idk"] / 100
        assert apa == pytest.approx(row["apa"], abs=0.005), row["model"]
        assert row["coverage"] + row["idk"] <= 100 + 1e-9


def test_cube_table4_ranges():
    for row in CUBE["table4"]:
        for depth in (1, 2, 3):
            assert 0 <= row[f"acc_d{depth}"] <= 100 and 0 <= row[f"f1_d{depth}"] <= 1
            assert -1 <= row[f"kappa_d{depth}"] <= 1


# -- RNG-Bench ---------------------------------------------------------------------------------------


def test_rng_table2_game_score_from_success_efficiency_exploration():
    for row in RNG["table2"]:
        sr, eff, explore = row["sr"] / 100, row["eff"] / 100, row["explore"] / 100
        assert 100 * (sr + sr * eff + (1 - sr) * explore) / 2 == pytest.approx(row["gs"], abs=0.11), row["model"]
        assert row["pf"] < 5 and row["ia"] < 5  # the paper's text: both stay below 5%


def test_rng_table3_records_win_rates_and_elo():
    differently = {(d["model"], d["column"]): d for d in RNG["printed_differently"]}
    rows = RNG["table3"]
    for row in rows:
        assert row["w"] + row["t"] + row["l"] == 16
        win = 100 * float(Fraction(2 * row["w"] + row["t"], 32))
        slip = differently.get((row["model"], "win"))
        if slip:
            assert slip["printed"] == row["win"] and slip["from_w_t_l"] == pytest.approx(win)
        else:
            assert row["win"] == pytest.approx(win, abs=0.05), row["model"]
    assert sum(r["w"] for r in rows) == sum(r["l"] for r in rows)  # every win is someone's loss
    assert sum(r["t"] for r in rows) % 2 == 0  # a tie counts for both players
    assert sum(r["elo"] for r in rows) / len(rows) == pytest.approx(1500, abs=0.5)


def test_rng_published_rows_are_numbers():
    for row in RNG["table2"] + RNG["table3"]:
        assert all(isinstance(v, (int, float)) and not math.isnan(v) for k, v in row.items() if k != "model")
