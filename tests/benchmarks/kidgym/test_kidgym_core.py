"""KidGym core: determinism, the action list is exactly the executable set, generators are
solvable in exactly the budget, the oracle takes the fewest steps, bad input raises ValueError."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from kidgym_reference import executable_actions

from cogsim import _core
from cogsim.benchmarks import kidgym
from cogsim.benchmarks.kidgym.tasks import CHOOSE, CONTINUE, ITEM, PLACE, TASKS

CASES = [(name, level) for name in TASKS for level in kidgym.LEVELS]


@pytest.mark.parametrize("name, level", CASES)
def test_same_seed_same_episode(name, level):
    a = kidgym.generate(name, level, range(20))
    b = kidgym.generate(name, level, range(20), threads=2)
    assert [s.to_bytes() for s in a] == [s.to_bytes() for s in b]
    assert len({s.to_bytes() for s in a}) == 20  # different seeds, different episodes


@pytest.mark.parametrize("name, level", CASES)
def test_oracle_solves_every_seed_in_exactly_the_budget(name, level):
    seeds = range(300)
    success, steps = kidgym.simulate(name, level, seeds, policy="oracle")
    budget = _core.kidgym_default_budget(TASKS[name].core_id, level)
    assert success.all()
    if name == "counting":  # the paper gives Counting 5 steps whatever the number
        fewest = [state.oracle_plan_length() for state in kidgym.generate(name, level, seeds)]
        assert (steps == fewest).all() and (steps <= budget).all()
    elif name == "memory_decode":  # the release's budget level + 1 for 'continue' and one choice
        assert (steps == 2).all() and budget == level + 1
    elif name == "decode":  # the release's budget is the level (1/2/3) for one choice
        assert (steps == 1).all() and budget == level
    elif name == "decode_maze":  # the release registers one step of slack: 4/6/8 for plans of 3/5/7
        assert (steps == 2 * level + 1).all() and budget == 2 * level + 2
    else:  # every other task is budgeted at its fewest steps
        assert (steps == budget).all()


@pytest.mark.parametrize("level", kidgym.LEVELS)
def test_counting_oracle_takes_the_fewest_piles(level):
    for state in kidgym.generate("counting", level, range(40)):
        number = int(state.goal[0])
        piles = [int(state.cells[r, c, 6]) for r in range(5) for c in range(5) if state.cells[r, c, 0] == ITEM]
        assert sorted(piles) == sorted([1, 2, 3] * level) and level <= number <= 3 * level
        fewest = min(k for k in range(1, 5) if any(sum(p) == number for p in itertools.combinations(piles, k)))
        assert state.oracle_plan_length() == fewest + 1  # the piles, then the declaration


@pytest.mark.parametrize("name, level", CASES)
def test_action_list_is_exactly_the_executable_set(name, level):
    rng = np.random.default_rng(level)
    for state in kidgym.generate(name, level, range(25)):
        while not state.done:
            listed = state.enumerate()
            assert len(listed) == len(set(listed)), "an action is listed twice"
            assert set(listed) == executable_actions(name, state)
            assert sorted(state.options()) == sorted(listed)  # options: the same set, shuffled
            state.apply(listed[rng.integers(len(listed))])


@pytest.mark.parametrize("name", TASKS)
def test_an_action_outside_the_list_only_spends_a_step(name):
    state = kidgym.generate(name, 2, [7])[0]
    listed = set(state.enumerate())
    outside = next(a for a in itertools.product(range(7), range(12), range(12)) if a not in listed)
    before = state.to_bytes()
    assert state.apply(outside) is False
    assert state.steps == 1
    after = state.to_bytes()
    cells_bytes = 25 * 6
    assert after[:cells_bytes] == before[:cells_bytes]


def _no_shorter_plan(state, depth: int) -> bool:
    """Brute force: no action sequence shorter than ``depth`` succeeds."""
    if depth <= 0:
        return True
    for action in state.enumerate():
        child = state.copy()
        child.apply(action)
        if child.done and child.success:
            return False
        if not child.done and not _no_shorter_plan(child, depth - 1):
            return False
    return True


@pytest.mark.parametrize("name", TASKS)
def test_no_plan_is_shorter_than_the_oracle_plan(name):
    for state in kidgym.generate(name, 1, range(10)):
        fewest = state.oracle_plan_length()
        assert fewest == state.budget or name in ("counting", "memory_decode", "decode_maze", "decode")
        assert _no_shorter_plan(state, fewest - 1)


def test_random_agent_is_far_from_perfect():
    for name in TASKS:
        success, _ = kidgym.simulate(name, 3, range(200), policy="random")
        assert success.mean() < 0.5, name


def test_memory_tasks_start_with_continue_only():
    for name in ("selection", "memory_maze", "memory_decode", "memory_filling"):
        state = kidgym.generate(name, 2, [3])[0]
        assert state.enumerate() == [(CONTINUE, 0, 0)] and state.phase == 0
        state.apply((CONTINUE, 0, 0))
        assert state.phase == 1 and (CONTINUE, 0, 0) not in state.enumerate()


def test_budget_exhaustion_truncates():
    state = kidgym.generate("classification", 1, [0])[0]
    for _ in range(state.budget):
        state.waste_step()
    assert state.done and state.truncated and not state.success


def test_longer_budget_is_allowed_and_shorter_is_rejected():
    state = kidgym.generate("maze", 2, [0], max_steps=9)[0]
    assert state.budget == 9
    with pytest.raises(ValueError, match="max_steps"):
        kidgym.generate("maze", 2, [0], max_steps=3)


def test_sorting_places_every_animal_once():
    state = kidgym.generate("sorting", 3, [11])[0]
    while not state.done:
        state.apply(state.enumerate()[0])
    placed = state.cells[:, :, 4]
    assert (placed > 0).sum() == 4 and state.bag == []
    assert all(a[0] == PLACE for a in kidgym.generate("sorting", 3, [11])[0].enumerate())


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: kidgym.generate("classification", 4, [0]), "level"),
        (lambda: kidgym.generate("counting_sheep", 1, [0]), "task"),
        (lambda: kidgym.simulate("maze", 1, [0], policy="greedy"), "policy"),
        (lambda: kidgym.generate("maze", 1, [0])[0].apply((9, 0, 0)), "verb"),
        (lambda: kidgym.generate("maze", 1, [-1]), "seeds"),
        (lambda: kidgym.generate("maze", 1, [0])[0].apply((0, 300, 0)), "arguments"),
        (lambda: _core.kidgym_generate(42, 1, [0], kidgym.cogsim_catalog.core_catalog()), "task id"),
    ],
)
def test_bad_input_raises_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_bad_catalog_raises_value_error():
    with pytest.raises(ValueError, match="memory_chests"):
        kidgym.cogsim_catalog.core_catalog(kidgym.cogsim_catalog.CatalogOptions(memory_chests=9))


_COMPASS = {
    "north": (-1, 0),
    "northeast": (-1, 1),
    "east": (0, 1),
    "southeast": (1, 1),
    "south": (1, 0),
    "southwest": (1, -1),
    "west": (0, -1),
    "northwest": (-1, -1),
}


def _placement_cell(stated: str, rotation) -> tuple[int, int]:
    """Geometry from the goal's words: the opposite direction, then one compass step if asked."""
    names = list(_COMPASS)  # clockwise from north
    opposite = names[(names.index(stated) + 4) % 8]
    if rotation is not None:
        opposite = names[(names.index(opposite) + (1 if rotation == "clockwise" else -1)) % 8]
    dr, dc = _COMPASS[opposite]
    return 2 + dr, 2 + dc


def _verdict(name: str, state) -> bool:
    """Success judged from the final state alone, independently of the core's bookkeeping."""
    from cogsim.benchmarks.kidgym import cogsim_catalog
    from cogsim.benchmarks.kidgym.tasks import CHEST, DIAMOND, TARGET

    cells, goal, bag, level = state.cells, state.goal, state.bag, state.level
    kinds = cells[:, :, 0]
    targets = [cells[r, c] for r in range(5) for c in range(5) if kinds[r, c] == TARGET]
    if name == "classification":
        return not (kinds == ITEM).any() and bag == []
    if name in ("maze", "decode_maze"):
        return not (kinds == DIAMOND).any()
    if name == "memory_maze":
        return kinds[goal[0] // 5, goal[0] % 5] != CHEST
    if name == "selection":
        return {(c, t) for _, c, t, _ in bag} == {(goal[0], goal[1 + i]) for i in range(level)}
    if name in ("memory_decode", "decode"):
        wanted = [(goal[4 * goal[12] + 2], goal[4 * goal[12] + 3])]
        return [(c, t) for _, c, t, _ in bag] == wanted
    if name == "sorting":
        return all(t[4] - 1 == goal[t[3]] for t in targets)
    if name == "placement":
        row, col = _placement_cell(cogsim_catalog.DIRECTIONS[goal[0]], cogsim_catalog.ROTATIONS[goal[1]])
        assert goal[2] == 5 * row + col
        return kinds[row, col] == TARGET and cells[row, col, 4] > 0
    if name == "counting":
        return sum(slot[3] for slot in bag) == goal[0]
    if name in ("filling", "puzzle", "memory_filling"):
        return all(t[4] - 1 == goal[1] and t[5] == goal[0] and t[6] == t[1] for t in targets)
    raise ValueError(name)


@pytest.mark.parametrize("name, level", CASES)
def test_success_matches_an_independent_verdict(name, level):
    rng = np.random.default_rng(100 + level)
    outcomes = set()
    for seed, state in enumerate(kidgym.generate(name, level, range(150))):
        oracle_episode = seed % 3 == 0
        while not state.done:
            action = state.oracle_action() if oracle_episode else None
            if action is None:
                listed = state.enumerate()
                action = listed[rng.integers(len(listed))]
            state.apply(action)
        expected = False if state.truncated else _verdict(name, state)
        assert state.success == expected
        outcomes.add(state.success)
    assert outcomes == {True, False}


@pytest.mark.parametrize("level", kidgym.LEVELS)
@pytest.mark.parametrize("name", ["memory_decode", "decode"])
def test_decode_tasks_ask_one_pair_among_the_releases_candidates(name, level):
    for state in kidgym.generate(name, level, range(30)):
        asked = int(state.goal[12])
        assert 0 <= asked < level
        if name == "memory_decode":
            state.apply((CONTINUE, 0, 0))
        else:  # no memory phase: the choice is offered from the first turn
            assert state.phase == 0 and all(action[0] == CHOOSE for action in state.enumerate())
        cells = state.cells
        shown = {
            (int(cells[r, c, 2]), int(cells[r, c, 1])) for r in range(5) for c in range(5) if cells[r, c, 0] == ITEM
        }
        pairs = [tuple(int(v) for v in state.goal[4 * k : 4 * k + 4]) for k in range(level)]
        assert len(shown) == 2 * level + 2  # the partner and 2L+1 distractors
        assert (pairs[asked][2], pairs[asked][3]) in shown
        in_pairs = {(p[0], p[1]) for p in pairs} | {(p[2], p[3]) for p in pairs}
        assert len(shown & in_pairs) == 1


def test_decode_maze_level_1_has_the_releases_trap_key():
    """A key of the door's own colour lies in the maze, and the hint's table does not let it open the door."""
    from cogsim.benchmarks.kidgym.tasks import DOOR, KEY

    for state in kidgym.generate("decode_maze", 1, range(40)):
        cells = state.cells
        (door,) = [int(cells[r, c, 1]) for r in range(5) for c in range(5) if cells[r, c, 0] == DOOR]
        keys = [int(cells[r, c, 1]) for r in range(5) for c in range(5) if cells[r, c, 0] == KEY]
        opener = [k for k in range(4) if state.goal[k] == door]
        assert door in keys and len(opener) == 1 and opener[0] != door and opener[0] in keys
