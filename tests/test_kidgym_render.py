"""KidGym frames show what the core state says: pixel checks on labelled cells, tints, the agent,
and what memory tasks hide before and after 'continue'."""

from __future__ import annotations

import numpy as np
import pytest
from render_helpers import renderer

from cogsim import kidgym
from cogsim.kidgym import catalog, scene
from cogsim.kidgym.tasks import BASKET, CONTINUE, DOOR, ITEM, KEY, TARGET, TASKS
from cogsim.render import grid
from cogsim.render.grid import GridScene, Item

DISTRACTORS = ("cat", "apple", "pizza", "kite", "diamond", "chest", "tree", "key", "door", "basket")


def _sprite_region(cell_size: int, rect):
    """The lower-left part of a cell's sprite, clear of the label badge (as the renderer's own tests do)."""
    x0, y0, x1, y1 = (int(v) for v in rect)
    c = cell_size
    return slice(y0 + int(0.4 * c), y1 - int(0.12 * c)), slice(x0 + int(0.12 * c), x1 - int(0.4 * c))


def _identify(frame, shown: GridScene, item: Item, candidates) -> str:
    probes = [GridScene(items=(Item(name, item.row, item.col, cell_colour=item.cell_colour),), cell_size=shown.cell_size) for name in candidates]
    references = renderer().grid(probes)
    ys, xs = _sprite_region(shown.cell_size, grid.play_cell_rect(shown, item.row, item.col))
    errors = [np.abs(ref[ys, xs].astype(int) - frame[ys, xs]).mean() for ref in references]
    return candidates[int(np.argmin(errors))]


def _started(state):
    if state.phase == 0 and state.enumerate() == [(CONTINUE, 0, 0)]:
        state.apply((CONTINUE, 0, 0))
    return state


@pytest.mark.parametrize("name", TASKS)
def test_every_cell_shows_the_sprite_the_state_says(name):
    for state in kidgym.generate(name, 3, [1, 2]):
        state = _started(state)
        shown = scene.grid_scene(TASKS[name], state, cell_size=32)
        frame = renderer().grid(shown)[0]
        candidates = tuple(sorted({item.sprite for item in shown.items} | set(DISTRACTORS)))
        cells = state.cells
        for item in shown.items:
            assert _identify(frame, shown, item, candidates) == item.sprite
            kind, kind_type, aux, label = (int(v) for v in cells[item.row, item.col, :4])
            if kind == ITEM:
                assert item.sprite == catalog.item_sprite(aux, kind_type) and item.label == label
            elif kind == TARGET:
                assert item.sprite == catalog.item_sprite(int(cells[item.row, item.col, 5]), int(cells[item.row, item.col, 4]) - 1)


@pytest.mark.parametrize("name", ["classification", "maze", "decode_maze"])
def test_tinted_cells_show_the_colour_the_state_says(name):
    state = kidgym.generate(name, 3, [4])[0]
    shown = scene.grid_scene(TASKS[name], state, cell_size=64)
    frame = renderer().grid(shown)[0]
    palette = catalog.BASKET_COLOURS if name == "classification" else catalog.KEY_COLOURS
    checked = 0
    for row in range(5):
        for col in range(5):
            kind, kind_type = int(state.cells[row, col, 0]), int(state.cells[row, col, 1])
            if kind not in (BASKET, KEY, DOOR):
                continue
            x0, y0, _, y1 = grid.play_cell_rect(shown, row, col)
            strip = frame[(y0 + y1) // 2 - 4 : (y0 + y1) // 2 + 4, x0 + 4 : x0 + 6].reshape(-1, 3).astype(int)
            distances = [np.abs(strip.mean(axis=0) - rgb).sum() for _, rgb in palette]
            assert int(np.argmin(distances)) == kind_type and min(distances) < 30
            checked += 1
    assert checked >= 2  # two baskets, or keys and doors


def test_agent_is_drawn_where_the_state_puts_it():
    state = kidgym.generate("classification", 2, [5])[0]
    with_agent = scene.grid_scene(TASKS["classification"], state, cell_size=32)
    without = GridScene(**{**with_agent.__dict__, "agent": None})
    a, b = renderer().grid([with_agent, without])
    changed = np.abs(a.astype(int) - b).max(axis=-1) > 8
    x0, y0, x1, y1 = grid.play_cell_rect(with_agent, *state.agent)
    assert changed[y0:y1, x0:x1].mean() > 0.2
    changed[y0:y1, x0:x1] = False
    assert changed.mean() < 0.001  # nowhere else


def test_placed_and_picked_items_move_between_scene_and_backpack():
    state = kidgym.generate("classification", 1, [8])[0]
    state.apply(state.oracle_action())  # pick
    shown = scene.grid_scene(TASKS["classification"], state)
    assert len(shown.backpack) == 1 and shown.backpack[0] == catalog.item_sprite(state.category, state.bag[0][2])
    assert sum(1 for i in shown.items if i.sprite != "basket") == 1


@pytest.mark.parametrize("name", ["selection", "memory_decode", "memory_maze"])
def test_memory_tasks_hide_what_must_be_remembered(name):
    state = kidgym.generate(name, 2, [6])[0]
    before = scene.grid_scene(TASKS[name], state)
    state.apply((CONTINUE, 0, 0))
    after = scene.grid_scene(TASKS[name], state)
    if name == "memory_maze":
        assert "diamond" in {i.sprite for i in before.items} and "diamond" not in {i.sprite for i in after.items}
        chests = [i for i in after.items if i.sprite == "chest"]
        assert len(chests) == 3 and (int(state.goal[0]) // 5, int(state.goal[0]) % 5) in {(i.row, i.col) for i in chests}
    else:
        assert not any(i.label is not None for i in before.items) and before.hint_sprites
        assert all(i.label is not None for i in after.items) and len(after.items) > 0
        if name == "selection":
            assert after.hint_sprites == ()
        else:
            assert len(after.hint_sprites) == 1 and after.hint_sprites[0] in before.hint_sprites[0::2]
    frames = renderer().grid([before, after])
    assert np.abs(frames[0].astype(int) - frames[1]).mean() > 1


def test_decode_maze_hint_lists_every_key_to_door_rule():
    state = kidgym.generate("decode_maze", 3, [2])[0]
    text, _ = scene.hint(TASKS["decode_maze"], state)
    assert text.startswith("key->door") and text.count("->") == 4 and len(text) <= grid.HINT_TEXT_MAX
