"""Cube Bench against the newest release line's golden records (tests/benchmarks/cubebench/data/cube_golden.json):
every per-item record the release's golden tests wrote (the mock model's reply, the gold, the
release's parse and score) replayed through cogsim's envs, parsers and metrics, with the run
aggregates the release saved (accuracy, balanced accuracy, Yes rate, element and matrix accuracy,
micro accuracy, per-class F1, macro-F1, Cohen's kappa, closed-loop adherence and selective accuracy,
reflection EFR/OTR with their Wilson intervals, the learning curve's figures)."""

import json
from pathlib import Path

import numpy as np
import pytest

import cogsim
from cogsim import cube
from cogsim.benchmarks.cubebench import items, views
from cogsim.benchmarks.cubebench import metrics as cm
from cogsim.benchmarks.cubebench import parser as parsers
from cogsim.cube import Cube

DATA = json.loads((Path(__file__).parent / "data" / "cube_golden.json").read_text())
INITIAL = {"white": "W", "yellow": "Y", "red": "R", "orange": "O", "green": "G", "blue": "B"}
EFFECTS = ("INCREASE", "NO_CHANGE", "DECREASE")


@pytest.fixture(autouse=True)
def _oracle(cube_oracle):
    return cube_oracle


def initials(grid) -> list:
    return ["".join(INITIAL[c.lower()] for c in row) for row in grid]


def test_data_names_its_source():
    assert "tests/golden" in DATA["source"] and "cb46fb4" in DATA["source"] and "4073ea3" in DATA["source"]


@pytest.mark.parametrize("depth", ["1", "2", "3"])
def test_scrambles_are_the_releases_exact_depth_draws(depth):
    for seed, scramble in enumerate(DATA["scrambles"][depth]):
        assert " ".join(items.release_exact_scramble(int(depth), seed)) == scramble
        assert cube.distance(Cube.from_moves(scramble)) == int(depth)


# -- prediction (optimal move) ------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(DATA["prediction"]))
def test_prediction_items_replies_and_accuracy(name):
    case = DATA["prediction"][name]
    env = cogsim.make("cube/optimal-move", depth=case["depth"], modality=case["modality"], sticker=8)
    rewards = []
    for record in case["items"]:
        env.reset(seed=record["id"])
        assert env.item["scramble"] == DATA["scrambles"][str(case["depth"])][record["id"]]
        assert env.item["options"] == record["options"] and env.item["gold"] == record["gold"]
        assert env.item["gold_move"] == record["correct_move"]
        _, reward, _, _, info = env.step(record["response"])
        assert info["parsed"] == record["pred"] and reward == record["ok"]
        rewards.append(reward)
    assert np.mean(rewards) == pytest.approx(case["average_accuracy"])


# -- verification ---------------------------------------------------------------------------------


def test_verification_cells_replies_and_metrics():
    case = DATA["verification_d3"]
    env = cogsim.make("cube/verification", depth=3, sticker=8)
    episodes = []
    for record in case["items"]:
        env.reset(seed=record["index"])
        item = env.item
        assert (item["gold"], item["polarity"], item["states_match"]) == (
            record["gold"],
            record["polarity"],
            record["states_match"],
        )
        *_, info = env.step(record["response"])
        episode = info["episode"]
        assert episode["template"] == record["template_id"]
        assert episode["answer"] == record["pred"] and episode["correct"] == bool(record["ok"])
        episodes.append(episode)
    metrics, gold = case["metrics"], [e["gold"] for e in episodes]
    answers = [e["answer"] for e in episodes]
    assert np.mean([e["correct"] for e in episodes]) == pytest.approx(metrics["accuracy"])
    assert cm.balanced_accuracy(gold, answers) == pytest.approx(metrics["balanced_accuracy"])
    assert cm.yes_rate(answers) == pytest.approx(metrics["yes_rate"])
    for polarity, expected in metrics["by_polarity"].items():
        group = [e for e in episodes if e["polarity"] == polarity]
        assert np.mean([e["correct"] for e in group]) == pytest.approx(expected["accuracy"])
        assert cm.balanced_accuracy([e["gold"] for e in group], [e["answer"] for e in group]) == pytest.approx(
            expected["balanced_accuracy"]
        )
    for template, expected in metrics["by_template"].items():
        assert np.mean([e["correct"] for e in episodes if e["template"] == template]) == pytest.approx(expected)
    row = dict(zip(*(lambda t: (t.columns, t.rows[0]))(cm.verification_table(episodes))))
    assert row["balanced acc."] == pytest.approx(metrics["balanced_accuracy"], abs=5e-4)


def test_verification_claims_state_the_releases_front_faces():
    env = cogsim.make("cube/verification", depth=3, sticker=8)
    for claim in DATA["snapshots"]["verification_d3_claims"]:
        obs, _ = env.reset(seed=claim["index"])
        assert env.item["polarity"] == claim["polarity"]
        assert views.recolour_grid(env.item["shown_grid"]) == initials(claim["grid"])
        assert views.grid_text(initials(claim["grid"])) in obs["text"]


# -- reconstruction ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(DATA["reconstruction"]))
def test_reconstruction_gold_faces_parse_and_accuracies(name):
    case = DATA["reconstruction"][name]
    env = cogsim.make("cube/reconstruction", depth=case["depth"], sticker=8)
    predicted, gold = [], []
    for record in case["items"]:
        env.reset(seed=record["index"])  # the release numbers reconstruction items from 1, as cogsim's episodes here
        *_, info = env.step(record["response"])
        episode = info["episode"]
        assert episode["gold_grid"] == initials(record["gold"])
        assert episode["predicted_grid"] == initials(record["pred"])
        assert episode["stickers_correct"] / 9 == pytest.approx(record["elementwise"])
        assert float(episode["matrix_correct"]) == record["overall"]
        predicted.append(episode["predicted_grid"])
        gold.append(episode["gold_grid"])
    assert cm.element_accuracy(predicted, gold).value == pytest.approx(case["average_accuracy_element_wise"])
    assert cm.matrix_accuracy(predicted, gold).value == pytest.approx(case["average_accuracy_overall"])
    assert sum(p is not None for p in predicted) == case["correct_parse"]


# -- move effect ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(DATA["move_effect"]))
def test_move_effect_labels_parse_and_kappa_and_f1(name):
    case = DATA["move_effect"][name]
    gold, predicted = [], []
    for record in case["items"]:
        effects = items.effect_labels(Cube.from_moves(record["scramble"]))
        assert [effects[m] for m in record["options"]] == record["gold"]
        parsed = parsers.release_effects(record["response"])
        assert parsed.ok and list(parsed.value) == record["pred"]
        assert sum(g == p for g, p in zip(record["gold"], parsed.value)) == record["correct_this_item"]
        gold += record["gold"]
        predicted += list(parsed.value)
    assert np.mean([g == p for g, p in zip(gold, predicted)]) == pytest.approx(case["micro_acc"])
    assert cm.macro_f1(gold, predicted) == pytest.approx(case["macro_f1"])
    assert cm.cohen_kappa(gold, predicted) == pytest.approx(case["kappa"])
    for label in EFFECTS:
        assert cm.macro_f1(gold, predicted, labels=(label,)) == pytest.approx(case["per_class_f1"][label])
        for g in EFFECTS:
            assert sum(x == g and y == label for x, y in zip(gold, predicted)) == case["confusion"][g][label]
    table = cm.move_effect_table(
        [
            {"test": "move-effect", "agent": "mock", "depth": case["depth"], "modality": "text", "parse": "ok", **r}
            for r in ({"gold_labels": rec["gold"], "answers": rec["pred"]} for rec in case["items"])
        ]
    )
    row = dict(zip(table.columns, table.rows[0]))
    assert row["kappa"] == pytest.approx(case["kappa"], abs=5e-4) and row["macro-F1"] == pytest.approx(
        case["macro_f1"], abs=5e-4
    )


# -- closed loop ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(DATA["step_by_step"]))
def test_closed_loop_replays_every_step_of_the_release(name):
    case = DATA["step_by_step"][name]
    env = cogsim.make("cube/closed-loop", depth=case["depth"], abstention=case["abstention"], sticker=8)
    episodes = []
    for record in case["episodes"]:
        obs, _ = env.reset(seed=record["sample_id"])
        assert env.item["scramble"] == record["scramble"] and env.item["teacher"] == record["solution_path"]
        for step in record["steps"]:
            assert views.release_net_text(views.recolour(env.state)) == step["cube_state"]
            assert step["cube_state"] in obs["text"] and f"{step['oracle_distance']} move(s)" in obs["text"]
            assert env.current["options"] == list(
                step["options"].values() if isinstance(step["options"], dict) else step["options"]
            )
            assert env.current["gold"] == step["correct_letter"] and env.plan[0] == step["teacher_move"]
            good = sorted(m for m in env.current["options"] if env.current["effects"][m] == "DECREASE")
            assert set(good) <= set(step["oracle_good_moves"]) and step["teacher_move"] in good
            obs, reward, done, _, info = env.step(step["full_response"])
            assert info["parsed"] == step["predicted_letter"] and reward == float(step["is_correct"])
        assert done
        episode = info["episode"]
        assert episode["adherent"] == record["oracle_correct_steps"] and not episode["perfect_solve"]
        episodes.append({"agent": "mock", **episode})
    assert np.mean([e["adherent"] for e in episodes]) == pytest.approx(case["average_solve_depth"])
    decisions = sum(e["decisions"] for e in episodes)
    assert decisions == case["total_decisions"] and sum(e["abstained"] for e in episodes) == case["n_idk"]
    assert sum(e["adherent"] for e in episodes) == case["n_correct"]
    row = dict(zip(*(lambda t: (t.columns, t.rows[0]))(cm.closed_loop_table(episodes))))
    assert row["selective acc."].value == pytest.approx(case["selective_accuracy"])
    assert row["APA (s=0.25)"] == pytest.approx(case["apa"], abs=5e-4)
    for t, expected in enumerate(case["step_accuracy"]):
        reached = [e for e in episodes if len(e["outcomes"]) > t]
        assert np.mean([e["outcomes"][t] in ("teacher", "progress") for e in reached]) == pytest.approx(expected)


# -- reflection, learning curve, invariance ----------------------------------------------------------


@pytest.mark.parametrize("name", sorted(DATA["reflection"]))
def test_reflection_replies_and_fix_rates(name):
    case = DATA["reflection"][name]
    env = cogsim.make("cube/reflection", depth=1, regime=case["regime"], reveal_choice=case["reveal_choice"], sticker=8)
    initial, final = [], []
    for index, draft in enumerate(case["drafts"]):
        if str(index) not in case["reanswers"]:
            continue  # reflect_all=False: only wrong drafts were reflected on
        env.reset(seed=index)
        assert env.item["gold"] == case["gold"][index]
        env.step(draft)
        env.step("A reflection.")
        *_, info = env.step(case["reanswers"][str(index)])
        initial.append(info["episode"]["initial_correct"])
        final.append(info["episode"]["final_correct"])
    assert all(p.startswith("<ANSWER>") for p in case["reanswers"].values())
    efr = cm.error_fix_rate(initial, final)
    assert round(efr.value, 4) == case["error_fix_rate"]
    assert [round(efr.low, 4), round(efr.high, 4)] == case["error_fix_rate_ci95"]
    otr = cm.overthink_rate(initial, final)
    if case["overthink_rate"] is None:
        assert otr.n == 0
    else:
        assert round(otr.value, 4) == case["overthink_rate"]
        assert [round(otr.low, 4), round(otr.high, 4)] == case["overthink_rate_ci95"]
    if case["reflect_all"]:
        assert round(float(np.mean(initial)), 4) == case["initial_accuracy"]
        assert round(float(np.mean(final)), 4) == case["final_accuracy_over_all"]
        assert round(float(np.mean(final)) - float(np.mean(initial)), 4) == pytest.approx(
            case["paired_net_gain_over_all"]
        )


def test_learning_curve_figures():
    case = DATA["learning_curve_d3"]
    solved_at = [r["attempts"] if r["solved"] else None for r in case["items"]]
    rate = cm.proportion(r["solved"] for r in case["items"])
    # the release's Wilson interval takes z = 1.96, cogsim's the exact 97.5% quantile: equal to 1e-4
    assert rate.value == case["success_rate"] and [rate.low, rate.high] == pytest.approx(case["sr_ci95"], abs=1e-4)
    assert cm.solved_within(solved_at, 1).value == case["p1"] and cm.solved_within(solved_at, 3).value == case["p_le_3"]
    assert np.isnan(cm.median_steps_solved(solved_at)) and case["med_at_solved"] is None
    steps = [r["attempts"] for r in case["items"]]
    assert (
        cm.average_steps_all(steps, [r["solved"] for r in case["items"]], [case["max_attempts"]] * len(steps))
        == (case["avg_attempts_all_maxed"])
    )
    assert items.recovery_budget(case["depth"]) == case["max_attempts"]


def test_invariance_items_decoding_and_variants():
    case = DATA["invariance_sweep_d3"]
    env = cogsim.make("cube/invariance", depth=case["depth"], sticker=8)
    assert env.metadata["cogsim.decoding"]["max_tokens"] == case["max_new_tokens"]
    golds, episodes = [], []
    for seed in range(case["samples"]):
        obs, _ = env.reset(seed=seed)
        if seed == 0:
            assert env.item["options"] == DATA["snapshots"]["invariance_d3_item0_options"]
        golds.append(env.item["gold"])
        seen = []
        for variant in case["variants"]:
            seen.append(variant)
            wrong = next(letter for letter in "ABCD" if letter != env.item["gold"])
            obs, _, done, _, info = env.step(f"<ANSWER> {wrong} </ANSWER>")
        assert done and info["episode"]["variants"] == case["variants"]
        episodes.append({"agent": "mock", **info["episode"]})
    assert {letter: golds.count(letter) for letter in "ABCD"} == case["gold_prior_counts"]
    row = dict(zip(*(lambda t: (t.columns, t.rows[0]))(cm.invariance_table(episodes))))
    for variant in case["variants"]:
        assert row[f"acc. {variant}"].value == case["accuracy"][variant]
        assert row[f"parse {variant}"].value == case["parse_rate"][variant]
