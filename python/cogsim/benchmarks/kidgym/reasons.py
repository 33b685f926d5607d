"""Reasons for the oracle's choices, in the style of the paper's worked examples ("Since one of the
goals is to place sushi in the green basket, and the item with label 2 is a sushi, ...")."""

from __future__ import annotations

from cogsim.benchmarks.kidgym import cogsim_catalog
from cogsim.benchmarks.kidgym.cogsim_look import roman
from cogsim.benchmarks.kidgym.tasks import (
    CHOOSE,
    CONTINUE,
    DECLARE,
    DIAMOND,
    KEY,
    OBTAIN,
    PICK,
    PLACE,
    PUT,
    UNLOCK,
    TaskSpec,
    slot_letter,
)

QUARTERS = ("top-left", "top-right", "bottom-left", "bottom-right")


def _cell_with_label(state, label: int, kinds=None):
    cells = state.cells
    for row in range(5):
        for col in range(5):
            if cells[row, col, 3] == label and (kinds is None or cells[row, col, 0] in kinds):
                return cells[row, col]
    raise ValueError(f"no cell with label {label}")


def _target_cell(state, numeral: int):
    cells = state.cells
    for row in range(5):
        for col in range(5):
            if cells[row, col, 0] == 8 and cells[row, col, 3] == numeral:
                return row, col
    raise ValueError(f"no target {numeral}")


def explain(spec: TaskSpec, state, action: tuple[int, int, int]) -> str:
    """Why ``action`` is the right move in ``state`` (the oracle's choice)."""
    verb, a, b = action
    goal = state.goal
    if verb == CONTINUE:
        return "The first image shows what has to be remembered; having memorised it, the task can begin."
    if verb == PICK and spec.name == "classification":
        cell = _cell_with_label(state, a)
        name = cogsim_catalog.item_name(cell[2], cell[1])
        colour = cogsim_catalog.BASKET_COLOURS[goal[1] if goal[0] == cell[1] else goal[3]][0]
        return f"The item with label {a} is a {name}, and the goal asks to place {name} in the {colour} basket, so pick it up first."
    if verb == PUT:
        _, category, item, _ = state.bag[a]
        basket = _cell_with_label(state, b)
        return (
            f"The {cogsim_catalog.item_name(category, item)} in backpack {slot_letter(a)} belongs in the "
            f"{cogsim_catalog.BASKET_COLOURS[basket[1]][0]} basket, which has label {b}."
        )
    if verb == PICK:  # counting
        cell = _cell_with_label(state, a)
        held = sum(slot[3] for slot in state.bag)
        return (
            f"The cell with label {a} holds {cell[6]} {cogsim_catalog.item_name(cell[2], cell[1])}(s); with the {held} already "
            f"collected this keeps the total on the way to exactly {goal[0]}."
        )
    if verb == DECLARE:
        return f"The backpack now holds exactly {goal[0]} items, so declare it."
    if verb == OBTAIN:
        cell = _cell_with_label(state, a)
        if cell[0] == KEY:
            return f"The {cogsim_catalog.KEY_COLOURS[cell[1]][0]} key with label {a} is needed to unlock a door on the way to the diamond."
        if cell[0] == DIAMOND:
            return f"The way to the diamond (label {a}) is open now, so obtain it."
        return f"The treasure box with label {a} stands where the diamond was shown in the first image."
    if verb == UNLOCK:
        key_colour = cogsim_catalog.KEY_COLOURS[state.bag[a][2]][0]
        door_colour = cogsim_catalog.KEY_COLOURS[_cell_with_label(state, b)[1]][0]
        rule = "" if key_colour == door_colour else " as the hint bar's key->door table says"
        return f"The {key_colour} key in backpack {slot_letter(a)} opens the {door_colour} door with label {b}{rule}."
    if verb == CHOOSE and spec.name == "selection":
        cell = _cell_with_label(state, a)
        return f"The {cogsim_catalog.item_name(cell[2], cell[1])} with label {a} is one of the items shown in the first image."
    if verb == CHOOSE:
        asked = goal[12]
        source = cogsim_catalog.item_name(goal[4 * asked], goal[4 * asked + 1])
        target = cogsim_catalog.item_name(goal[4 * asked + 2], goal[4 * asked + 3])
        where = "the code table" if spec.name == "decode" else "the first image"
        return f"The target {source} was paired with the {target} in {where}, and the {target} has label {a}."
    if verb == PLACE and spec.name == "sorting":
        rule = cogsim_catalog.SORTING_RULES[goal[0]]
        animal = cogsim_catalog.item_name(0, state.bag[a][2])
        return f"{rule.rule} Ranking the animals {rule.ranking}, the {animal} comes at position {roman(b)}."
    if verb == PLACE and spec.name == "placement":
        stated, rotation = cogsim_catalog.DIRECTIONS[goal[0]], cogsim_catalog.ROTATIONS[goal[1]]
        opposite = cogsim_catalog.DIRECTIONS[(goal[0] + 4) % 8]
        turn = "" if rotation is None else f", and one step {rotation} from there"
        return (
            f"The opposite of {stated} is {opposite}{turn}; around the centre item that place is position {roman(b)}."
        )
    if verb == PLACE:
        _, category, picture, quarter = state.bag[a]
        return (
            f"The piece in backpack {slot_letter(a)} is the {QUARTERS[quarter]} quarter of the "
            f"{cogsim_catalog.picture_name(category, picture)}, and the {QUARTERS[quarter]} quarter is missing at position {roman(b)}."
        )
    raise ValueError(f"no reason for action {action} in {spec.name}")
