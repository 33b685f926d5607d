"""Cube Bench items: deterministic, labelled by the oracle, balanced, exportable."""

import json
from collections import Counter

import pytest

from cogsim import cube
from cogsim.benchmarks.cubebench import items, seed_lists, views
from cogsim.benchmarks.cubebench import parser as parsers
from cogsim.cube import MOVES, Cube

DEPTHS = (1, 2, 3, 5)


@pytest.fixture(autouse=True)
def _oracle(cube_oracle):
    return cube_oracle


@pytest.mark.parametrize("test", items.TESTS)
def test_same_seed_same_item_and_shared_scramble(test):
    first, again = items.make_item(test, 3, 11), items.make_item(test, 3, 11)
    assert json.dumps(first, sort_keys=True) == json.dumps(again, sort_keys=True)
    assert first["scramble"].split() == cube.scramble(3, first.get("scramble_seed", 11))
    assert first["teacher"] == views.inverse_sequence(first["scramble"].split())
    assert Cube.from_facelets(first["facelets"]).apply(first["teacher"]).is_solved()
    assert items.make_item(test, 3, 12)["scramble"] != first["scramble"]


@pytest.mark.parametrize("depth", DEPTHS)
def test_optimal_move_options_are_labelled_by_the_oracle(depth):
    for seed in range(12):
        item = items.make_item("optimal-move", depth, seed)
        state = Cube.from_facelets(item["facelets"])
        assert len(set(item["options"])) == 4
        base = cube.distance(state)
        assert base == depth
        for label, move in zip(items.LABELS, item["options"]):
            decreases = cube.distance(state.apply(move)) == base - 1
            assert decreases == (label == item["gold"]), (seed, move)
        assert item["options"][items.LABELS.index(item["gold"])] == item["teacher"][0]


@pytest.mark.parametrize("test", ["optimal-move", "closed-loop"])
@pytest.mark.parametrize("depth", (1, 3))
def test_gold_slots_are_balanced_in_every_block_of_four(test, depth):
    slots = [items.make_item(test, depth, seed) for seed in range(40)]
    slots = [item["gold"] if test == "optimal-move" else item["steps"][0]["gold"] for item in slots]
    for block in range(10):
        assert sorted(slots[4 * block : 4 * block + 4]) == list("ABCD")
    prefix = Counter(slots[:23])
    assert max(prefix.values()) - min(prefix.values()) <= 1


def test_balanced_position_visits_every_position_per_block():
    for k in (2, 3, 4):
        positions = [items.balanced_position(i, k, "key") for i in range(6 * k)]
        for block in range(6):
            assert sorted(positions[block * k : (block + 1) * k]) == list(range(k))
    assert [items.balanced_position(i, 4, "a") for i in range(8)] != [
        items.balanced_position(i, 4, "b") for i in range(8)
    ]


@pytest.mark.parametrize("depth", (1, 2, 4))
def test_closed_loop_steps_hold_the_teacher_move_and_one_other_progress_move_when_there_is_one(depth):
    """Paper's step MCQ: the teacher's move, one more progress move when the state has one, the rest
    non-progress."""
    for seed in range(12):
        item = items.make_item("closed-loop", depth, seed)
        state = Cube.from_facelets(item["facelets"])
        assert len(item["steps"]) == depth
        for step, move in zip(item["steps"], item["teacher"]):
            assert step["facelets"] == state.to_facelets()
            effects = cube.move_effects(state)
            progress_moves = [m for m in cube.MOVES if effects[m] == cube.DECREASE]
            shown = [effects[m] for m in step["options"]].count(cube.DECREASE)
            assert shown == min(2, len(progress_moves)) and len(set(step["options"])) == 4
            assert step["options"][items.LABELS.index(step["gold"])] == move
            state = state.apply(move)
        assert state.is_solved()


@pytest.mark.parametrize("depth", (1, 2, 3))
def test_move_effect_labels_and_class_balance(depth):
    """Paper's balancing: one option of every class the state has plus a doubled class, the doubled
    class's anchor rotating through the slots A-D."""
    doubled, anchors, gold = Counter(), [], Counter()
    for seed in range(24):
        item = items.make_item("move-effect", depth, seed)
        state = Cube.from_facelets(item["facelets"])
        assert len(set(item["options"])) == 4
        present = {label for label in parsers.EFFECT_LABELS if label in cube_effect_names(state).values()}
        for move, label in zip(item["options"], item["gold_labels"]):
            change = cube.distance(state.apply(move)) - cube.distance(state)
            assert label == {-1: "DECREASE", 0: "NO_CHANGE", 1: "INCREASE"}[change]
        counts = Counter(item["gold_labels"])
        assert set(counts) == present and counts[item["doubled_class"]] >= 2
        doubled[item["doubled_class"]] += 1
        anchors.append(item["gold_labels"][seed % 4] == item["doubled_class"])
        gold.update(item["gold_labels"])
    assert all(anchors)  # the doubled class sits at the rotating slot
    # DECREASE rarely has two moves (never at depth 1): the feasible classes share its turns
    assert doubled["NO_CHANGE"] >= 8 and doubled["INCREASE"] >= 8
    assert min(gold.values()) >= 24 - 1


def cube_effect_names(state):
    return items.effect_labels(state)


@pytest.mark.parametrize("depth", (1, 3))
def test_verification_is_balanced_and_negatives_differ(depth):
    kinds = Counter()
    for seed in range(40):
        item = items.make_item("verification", depth, seed)
        truth = list(views.front_rows(item["facelets"]))
        assert item["gold_grid"] == item["shown_grid"] == truth  # the text is always the true face
        shown_in_image = list(views.front_rows(item["image_facelets"]))
        assert (shown_in_image == truth) == (item["gold"] == "Yes")
        if item["gold"] == "No":  # the paper's negative: the image is one face turn (not B) later
            assert not item["negative_move"].startswith("B")
            moved = Cube.from_facelets(item["facelets"]).apply(item["negative_move"])
            assert item["image_facelets"] == moved.to_facelets()
            edit = item["text_edit"]
            assert edit["shown_grid"] != truth
            if edit["kind"] == "move":
                assert edit["shown_grid"] == list(
                    views.front_rows(Cube.from_facelets(item["facelets"]).apply(edit["move"]))
                )
            kinds[edit["kind"]] += 1
        else:
            assert item["text_edit"] is None and item["image_facelets"] == item["facelets"]
            kinds[None] += 1
    assert kinds[None] == 20 and kinds["token_edit"] > 3 and kinds["move"] > 3


def test_recovery_item_injects_a_non_progress_failure():
    for depth in (1, 2, 4):
        item = items.make_item("recovery", depth, 3)
        start = Cube.from_facelets(item["facelets"])
        after = start.apply(item["failure_move"])
        assert after.to_facelets() == item["recovery_facelets"]
        assert cube.distance(after) >= depth
        assert after.apply(item["recovery_teacher"]).is_solved()
        assert (item["horizon"], item["budget"]) == (depth, depth + 3)


@pytest.mark.parametrize("depth", (2, 3))
def test_reconstruction_regenerates_faces_dominated_by_one_colour(depth):
    """Paper's colour-prior control: at depth >= 3 no colour fills more than 6 Front stickers; the
    scramble is redrawn from seed * 10000 + attempt."""
    regenerated = 0
    for seed in range(120):
        item = items.make_item("reconstruction", depth, seed)
        counts = Counter("".join(item["gold_grid"]))
        assert max(counts.values()) <= (9 if depth < 3 else 6)
        if item["scramble_seed"] != seed:
            regenerated += 1
            original = Cube.from_moves(" ".join(cube.scramble(depth, seed)))
            assert max(Counter("".join(views.front_rows(original))).values()) > 6
            assert item["scramble_seed"] // 10000 == seed and item["scramble"].split() == cube.scramble(
                depth, item["scramble_seed"]
            )
    assert (regenerated > 0) == (depth >= 3)


def test_reconstruction_gold_is_the_front_face_colours():
    item = items.make_item("reconstruction", 1, 0)
    front = item["facelets"][18:27]
    scheme = {"U": "W", "R": "R", "F": "G", "D": "Y", "L": "O", "B": "B"}
    assert "".join(item["gold_grid"]) == "".join(scheme[f] for f in front)


def test_seed_list_export_import_and_tamper_check(tmp_path):
    seed_list = seed_lists.build_seed_list("optimal-move", 2, 6)
    assert [e["seed"] for e in seed_list["episodes"].values()] == list(range(6))
    path = seed_lists.export_seed_list(seed_list, tmp_path / "optimal-move-d2.json")
    loaded = seed_lists.load_seed_list(path)
    assert loaded == json.loads(json.dumps(seed_list))
    seed_lists.verify_seed_list(loaded)
    loaded["episodes"]["3"]["gold"] = "A" if loaded["episodes"]["3"]["gold"] != "A" else "B"
    with pytest.raises(ValueError, match="episode 3 differs"):
        seed_lists.verify_seed_list(loaded)


def test_unique_seed_lists_skip_repeated_states():
    seed_list = seed_lists.build_seed_list("reconstruction", 1, 18, unique_states=True)
    states = [e["facelets"] for e in seed_list["episodes"].values()]
    assert len(set(states)) == 18  # every depth-1 state once
    with pytest.raises(ValueError, match="fewer than 19 distinct"):
        seed_lists.build_seed_list("reconstruction", 1, 19, unique_states=True)


@pytest.mark.parametrize("bad", [0, 21, -1, 1.5, True, "2"])
def test_bad_depth_is_a_value_error(bad):
    with pytest.raises(ValueError, match="depth"):
        items.make_item("optimal-move", bad, 0)


def test_bad_test_seed_and_seed_list_are_value_errors():
    with pytest.raises(ValueError, match="test must be one of"):
        items.make_item("nope", 1, 0)
    with pytest.raises(ValueError, match="seed"):
        items.make_item("optimal-move", 1, -3)
    with pytest.raises(ValueError, match="seed_list"):
        seed_lists.load_seed_list({"format": "other"})
    with pytest.raises(ValueError, match="no episode 9"):
        seed_lists.seed_list_item(seed_lists.build_seed_list("optimal-move", 1, 2), "optimal-move", 1, 9)
    with pytest.raises(ValueError, match="is for test"):
        seed_lists.seed_list_item(seed_lists.build_seed_list("optimal-move", 1, 2), "move-effect", 1, 0)


def test_options_never_repeat_a_move():
    for test in ("optimal-move", "move-effect", "reflection"):
        for seed in range(30):
            options = items.make_item(test, 2, seed)["options"]
            assert len(set(options)) == 4 and set(options) <= set(MOVES)


def test_command_line_export_and_verify(tmp_path, capsys):
    from cogsim.benchmarks.cubebench.__main__ import main

    out = tmp_path / "closed-loop-d2.json"
    assert main(["export", "--test", "closed-loop", "--depth", "2", "--count", "3", "--out", str(out)]) == 0
    assert main(["verify", str(out)]) == 0
    assert json.loads(out.read_text())["episodes"]["2"]["seed"] == 2
    assert main(["export", "--test", "closed-loop", "--depth", "0", "--count", "3", "--out", str(out)]) == 2
    assert "depth must be" in capsys.readouterr().err


PINNED_VERIFICATION = ("No", "R'")
PINNED_MOVE_EFFECT = (["B'", "R", "B", "U'"], ["NO_CHANGE", "INCREASE", "DECREASE", "INCREASE"])


def test_items_are_pinned_so_published_seed_lists_stay_valid():
    # Any change here changes every published seed list: bump PROMPT_VERSION / the list format.
    item = items.make_item("optimal-move", 3, 5)
    assert item["scramble"] == "R' D2 B'"
    assert (item["options"], item["gold"]) == (["B2", "D'", "B", "R"], "C")
    # move-effect items changed with the paper's four-label format (prompts v2): re-pinned.
    effect = items.make_item("move-effect", 3, 5)
    assert (effect["options"], effect["gold_labels"]) == PINNED_MOVE_EFFECT
    verification = items.make_item("verification", 3, 5)
    # verification negatives changed to the paper's (image one move later; prompts v2): re-pinned.
    assert (verification["gold"], verification["negative_move"]) == PINNED_VERIFICATION
