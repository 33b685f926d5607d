"""Core state -> renderer scene: what the agent sees at this step.

Memory tasks hide what must be remembered once 'continue' is chosen, and hide the play area
before it (Selection, Memory Decode) or the decoy chests (Memory Maze). Keys and doors are the
"key"/"door" sprites on a cell tinted with their colour; maze walls are hedges.
"""

from __future__ import annotations

from cogsim.benchmarks.kidgym import cogsim_catalog
from cogsim.benchmarks.kidgym.cogsim_look import GridScene, Item, Piece, ShapeTile, SpriteQuarter, Target
from cogsim.benchmarks.kidgym.cogsim_marks import Overlay
from cogsim.benchmarks.kidgym.tasks import (
    BASKET,
    CENTER,
    CHEST,
    DIAMOND,
    DOOR,
    ITEM,
    KEY,
    PIECE,
    TARGET,
    WALL,
    TaskSpec,
    slot_letter,
)

_PLAY_HIDDEN_BEFORE_CONTINUE = {"selection", "memory_decode"}
_PIECE_TASKS = {"filling", "puzzle", "memory_filling"}


def piece(category: int, picture: int, quarter: int) -> Piece:
    """A quarter of a picture: a sprite quarter, or a tile of an abstract puzzle figure."""
    if category == cogsim_catalog.FIGURE_CATEGORY:
        shape, colour = cogsim_catalog.PUZZLE_FIGURES[picture][quarter]
        return ShapeTile(shape, colour)
    return SpriteQuarter(cogsim_catalog.item_sprite(category, picture), quarter)


def _label(value: int):
    return None if value == 255 else int(value)


def cell_items(spec: TaskSpec, state) -> tuple[tuple[Item, ...], tuple[Target, ...], Overlay]:
    cells, phase = state.cells.tolist(), state.phase  # Python ints at once, not one NumPy scalar at a time
    items, targets, piles, pieces = [], [], [], []
    for row in range(5):
        for col in range(5):
            kind, kind_type, aux, label, placed, placed_category, extra, _ = cells[row][col]
            label = _label(label)
            if kind == ITEM and spec.name == "counting":
                piles.append((row, col, cogsim_catalog.item_sprite(aux, kind_type), extra, label))
            elif kind == PIECE:
                pieces.append((row, col, piece(aux, kind_type, extra), None))
            elif kind == ITEM:
                if spec.name in _PLAY_HIDDEN_BEFORE_CONTINUE and phase == 0:
                    continue
                items.append(Item(cogsim_catalog.item_sprite(aux, kind_type), row, col, label=label))
            elif kind == BASKET:
                items.append(
                    Item("basket", row, col, label=label, cell_colour=cogsim_catalog.BASKET_COLOURS[kind_type][1])
                )
            elif kind in (KEY, DOOR):
                sprite = "key" if kind == KEY else "door"
                items.append(Item(sprite, row, col, label=label, cell_colour=cogsim_catalog.KEY_COLOURS[kind_type][1]))
            elif kind == DIAMOND:
                items.append(Item("diamond", row, col, label=label))
            elif kind == CHEST:
                if phase == 1:
                    items.append(Item("chest", row, col, label=label))
                elif aux & 1:
                    items.append(Item("diamond", row, col))
                elif aux & 2:
                    items.append(Item("tree", row, col, cell_colour=cogsim_catalog.HEDGE_COLOUR))
            elif kind == WALL:
                items.append(Item("tree", row, col, cell_colour=cogsim_catalog.HEDGE_COLOUR))
            elif kind == CENTER:
                items.append(Item(cogsim_catalog.item_sprite(aux, kind_type), row, col))
            elif kind == TARGET:
                targets.append(Target(row, col, numeral=label))
                if placed and spec.name in _PIECE_TASKS:
                    pieces.append((row, col, piece(placed_category, placed - 1, extra), label))
                elif placed:
                    items.append(Item(cogsim_catalog.item_sprite(placed_category, placed - 1), row, col))
    overlay = Overlay(piles=tuple(piles), pieces=tuple(pieces))
    return tuple(items), tuple(targets), overlay


def hint(spec: TaskSpec, state) -> tuple[str, tuple[str, ...]]:
    goal, level, phase = state.goal, state.level, state.phase
    if spec.name == "selection":
        if phase == 0:
            category = goal[0]
            return "Remember", tuple(cogsim_catalog.item_sprite(category, goal[1 + i]) for i in range(level))
        return "Choose them", ()
    if spec.name == "memory_decode":
        if phase == 0:
            return "Remember pairs left->right", _code_table(goal, level)
        return "Target", (_asked(goal),)
    if spec.name == "decode":  # the code table, and the target alone on the row below it
        return "Pairs left->right, target below", _code_table(goal, level) + (_asked(goal),)
    if spec.name == "decode_maze":
        pairs = [(key, door) for key, door in enumerate(goal[:4]) if door != 255]
        return " ".join(
            ["key->door"]
            + [f"{cogsim_catalog.KEY_COLOURS[k][0]}->{cogsim_catalog.KEY_COLOURS[d][0]}" for k, d in pairs]
        ), ()
    if spec.name == "memory_maze":
        return ("Remember the diamond" if phase == 0 else "Open the right chest"), ()
    if spec.name in ("filling", "memory_filling"):
        if spec.name == "memory_filling" and phase == 1:
            return "Fill the frame", ()
        return "Target", (cogsim_catalog.item_sprite(goal[0], goal[1]),)
    if spec.name == "puzzle":
        return "Target", ()
    if spec.name == "placement":
        text = f"Direction: {cogsim_catalog.DIRECTIONS[goal[0]]}"
        rotation = cogsim_catalog.ROTATIONS[goal[1]]
        return (text + f" then {rotation}" if rotation else text), ()
    return "", ()


def _code_table(goal, level: int) -> tuple[str, ...]:
    """The pairs of Decode and Memory Decode, row by row: source, partner."""
    sprites = []
    for k in range(level):
        sprites += [
            cogsim_catalog.item_sprite(goal[4 * k], goal[4 * k + 1]),
            cogsim_catalog.item_sprite(goal[4 * k + 2], goal[4 * k + 3]),
        ]
    return tuple(sprites)


def _asked(goal) -> str:
    asked = goal[12]
    return cogsim_catalog.item_sprite(goal[4 * asked], goal[4 * asked + 1])


def backpack(spec: TaskSpec, state) -> tuple[tuple, tuple, tuple]:
    """(sprites per slot for the scene, piles drawn over slots, pieces drawn over slots)."""
    sprites, piles, pieces = [], [], []
    for slot, (kind, category, item, extra) in enumerate(state.bag):
        if kind == PIECE:
            sprites.append(None)
            pieces.append((slot, piece(category, item, extra)))
        elif spec.name == "counting":
            sprites.append(None)
            piles.append((slot, cogsim_catalog.item_sprite(category, item), extra))
        else:
            sprites.append("key" if kind == KEY else cogsim_catalog.item_sprite(category, item))
    return tuple(sprites), tuple(piles), tuple(pieces)


def backpack_text(state) -> str:
    """The backpack in words, for what the frame cannot show (the renderer draws keys without colour)."""
    parts = []
    for slot, (kind, category, item, _) in enumerate(state.bag):
        if kind == KEY:
            name = f"{cogsim_catalog.KEY_COLOURS[item][0]} key"
        elif kind == PIECE:
            name = f"a piece of the {cogsim_catalog.picture_name(category, item)}"
        else:
            name = cogsim_catalog.item_name(category, item)
        parts.append(f"{slot_letter(slot)}) {name}")
    return ", ".join(parts) if parts else "empty"


def frame_spec(spec: TaskSpec, state, cell_size: int = 64) -> tuple[GridScene, Overlay]:
    """The renderer scene and the overlay drawn over it (piles, pieces, figure tiles)."""
    items, targets, board = cell_items(spec, state)
    hint_text, hint_sprites = hint(spec, state)
    bag_sprites, slot_piles, slot_pieces = backpack(spec, state)
    figure = ()
    if spec.name == "puzzle":
        figure = tuple(piece(state.goal[0], state.goal[1], q) for q in range(4))
    scene = GridScene(
        items=items,
        targets=targets,
        agent=tuple(state.agent),
        backpack=bag_sprites,
        hint_text=hint_text,
        hint_sprites=hint_sprites,
        scene=cogsim_catalog.SCENES[state.scene],
        cell_size=cell_size,
    )
    overlay = Overlay(
        piles=board.piles, pieces=board.pieces, slot_piles=slot_piles, slot_pieces=slot_pieces, hint_figure=figure
    )
    return scene, overlay


def grid_scene(spec: TaskSpec, state, cell_size: int = 64) -> GridScene:
    """The renderer scene alone (tasks without piles or pieces need nothing else)."""
    return frame_spec(spec, state, cell_size)[0]
