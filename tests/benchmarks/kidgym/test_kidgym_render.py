"""KidGym frames show what the core state says: pixel checks on labelled cells, tints, the agent,
and what memory tasks hide before and after 'continue'."""

from __future__ import annotations

import numpy as np
import pytest

from cogsim.benchmarks import kidgym
from cogsim.benchmarks.kidgym import cogsim_catalog, cogsim_scene
from cogsim.benchmarks.kidgym import cogsim_look as grid
from cogsim.benchmarks.kidgym.cogsim_look import GridScene, Item
from cogsim.benchmarks.kidgym.tasks import BASKET, CONTINUE, DOOR, ITEM, KEY, PIECE, TARGET, TASKS
from render_helpers import renderer

DISTRACTORS = ("cat", "apple", "pizza", "kite", "diamond", "chest", "tree", "key", "door", "basket")


def _sprite_region(cell_size: int, rect):
    """The lower-left part of a cell's sprite, clear of the label badge (as the renderer's own tests do)."""
    x0, y0, x1, y1 = (int(v) for v in rect)
    c = cell_size
    return slice(y0 + int(0.4 * c), y1 - int(0.12 * c)), slice(x0 + int(0.12 * c), x1 - int(0.4 * c))


def _identify(frame, shown: GridScene, item: Item, candidates) -> str:
    probes = [
        GridScene(items=(Item(name, item.row, item.col, cell_colour=item.cell_colour),), cell_size=shown.cell_size)
        for name in candidates
    ]
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
        shown = cogsim_scene.grid_scene(TASKS[name], state, cell_size=32)
        frame = renderer().grid(shown)[0]
        candidates = tuple(sorted({item.sprite for item in shown.items} | set(DISTRACTORS)))
        cells = state.cells
        for item in shown.items:
            assert _identify(frame, shown, item, candidates) == item.sprite
            kind, kind_type, aux, label = (int(v) for v in cells[item.row, item.col, :4])
            if kind == ITEM:
                assert item.sprite == cogsim_catalog.item_sprite(aux, kind_type) and item.label == label
            elif kind == TARGET:
                assert item.sprite == cogsim_catalog.item_sprite(
                    int(cells[item.row, item.col, 5]), int(cells[item.row, item.col, 4]) - 1
                )


@pytest.mark.parametrize("name", ["classification", "maze", "decode_maze"])
def test_tinted_cells_show_the_colour_the_state_says(name):
    state = kidgym.generate(name, 3, [4])[0]
    shown = cogsim_scene.grid_scene(TASKS[name], state, cell_size=64)
    frame = renderer().grid(shown)[0]
    palette = cogsim_catalog.BASKET_COLOURS if name == "classification" else cogsim_catalog.KEY_COLOURS
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
    with_agent = cogsim_scene.grid_scene(TASKS["classification"], state, cell_size=32)
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
    shown = cogsim_scene.grid_scene(TASKS["classification"], state)
    assert len(shown.backpack) == 1 and shown.backpack[0] == cogsim_catalog.item_sprite(state.category, state.bag[0][2])
    assert sum(1 for i in shown.items if i.sprite != "basket") == 1


@pytest.mark.parametrize("name", ["selection", "memory_decode", "memory_maze", "memory_filling"])
def test_memory_tasks_hide_what_must_be_remembered(name):
    state = kidgym.generate(name, 2, [6])[0]
    before = cogsim_scene.grid_scene(TASKS[name], state)
    state.apply((CONTINUE, 0, 0))
    after = cogsim_scene.grid_scene(TASKS[name], state)
    if name == "memory_filling":
        assert (
            before.hint_sprites == (cogsim_catalog.item_sprite(int(state.goal[0]), int(state.goal[1])),)
            and after.hint_sprites == ()
        )
    elif name == "memory_maze":
        assert "diamond" in {i.sprite for i in before.items} and "diamond" not in {i.sprite for i in after.items}
        chests = [i for i in after.items if i.sprite == "chest"]
        assert len(chests) == 3 and (int(state.goal[0]) // 5, int(state.goal[0]) % 5) in {
            (i.row, i.col) for i in chests
        }
    else:
        assert not any(i.label is not None for i in before.items) and before.hint_sprites
        assert all(i.label is not None for i in after.items) and len(after.items) > 0
        if name == "selection":
            assert after.hint_sprites == ()
        else:
            assert len(after.hint_sprites) == 1 and after.hint_sprites[0] in before.hint_sprites[0::2]
    frames = renderer().grid([before, after])
    assert np.abs(frames[0].astype(int) - frames[1]).mean() > 0.3  # the frames differ visibly


def test_decode_maze_hint_lists_every_key_to_door_rule():
    state = kidgym.generate("decode_maze", 3, [2])[0]
    text, _ = cogsim_scene.hint(TASKS["decode_maze"], state)
    assert text.startswith("key->door") and text.count("->") == 4 and len(text) <= grid.HINT_TEXT_MAX


def _overlay_frames(background: GridScene, overlays):
    from cogsim.benchmarks.kidgym import cogsim_marks as _overlay

    return _overlay.render(renderer(), [(background, overlay) for overlay in overlays])


def _closest(frame, references, ys, xs) -> int:
    errors = [np.abs(ref[ys, xs].astype(int) - frame[ys, xs]).mean() for ref in references]
    return int(np.argmin(errors))


def test_counting_piles_show_the_pile_size_the_state_says():
    from cogsim.benchmarks.kidgym.cogsim_marks import Overlay

    state = kidgym.generate("counting", 3, [3])[0]
    shown, overlay = cogsim_scene.frame_spec(TASKS["counting"], state, cell_size=64)
    frame = _overlay_frames(shown, [overlay])[0]
    empty = GridScene(scene=shown.scene, cell_size=64)
    sprite = cogsim_catalog.item_sprite(int(state.goal[1]), int(state.goal[2]))
    checked = 0
    for row in range(5):
        for col in range(5):
            if state.cells[row, col, 0] != ITEM:
                continue
            references = _overlay_frames(empty, [Overlay(piles=((row, col, sprite, n, None),)) for n in (1, 2, 3)])
            ys, xs = _sprite_region(64, grid.play_cell_rect(shown, row, col))
            assert _closest(frame, references, ys, xs) + 1 == state.cells[row, col, 6]
            checked += 1
    assert checked == 9


@pytest.mark.parametrize("name", ["filling", "puzzle", "memory_filling"])
def test_pieces_show_the_quarter_the_state_says(name):
    from cogsim.benchmarks.kidgym.cogsim_marks import Overlay

    state = _started(kidgym.generate(name, 2, [5])[0])
    state.apply(state.enumerate()[0])  # place one piece (right or wrong) on a target
    shown, overlay = cogsim_scene.frame_spec(TASKS[name], state, cell_size=64)
    frame = _overlay_frames(shown, [overlay])[0]
    empty = GridScene(scene=shown.scene, cell_size=64)
    category, picture = int(state.goal[0]), int(state.goal[1])
    other = (picture + 1) % (len(cogsim_catalog.PUZZLE_FIGURES) if category == cogsim_catalog.FIGURE_CATEGORY else 10)
    candidates = [(category, p, q) for p in (picture, other) for q in range(4)]
    checked = 0
    for row in range(5):
        for col in range(5):
            kind, kind_type, aux, _, placed, placed_category, extra, _ = (int(v) for v in state.cells[row, col])
            if kind == PIECE:
                truth = (aux, kind_type, extra)
            elif kind == TARGET and placed:
                truth = (placed_category, placed - 1, extra)
            else:
                continue
            references = _overlay_frames(
                empty, [Overlay(pieces=((row, col, cogsim_scene.piece(*c), None),)) for c in candidates]
            )
            x0, y0, x1, y1 = grid.play_cell_rect(shown, row, col)
            ys, xs = slice(y0 + 4, y0 + 34), slice(x0 + 4, x1 - 4)  # clear of the numeral badge
            assert candidates[_closest(frame, references, ys, xs)] == truth
            checked += 1
    assert checked == 3  # two pieces in place and the one just placed
    for slot, (_, category, picture_id, quarter) in enumerate(state.bag):
        x0, y0, x1, y1 = grid.backpack_slot_rect(shown, slot)
        pool = candidates + [(category, picture_id, quarter)]
        references = _overlay_frames(empty, [Overlay(slot_pieces=((slot, cogsim_scene.piece(*c)),)) for c in pool])
        assert pool[_closest(frame, references, slice(y0 + 20, y1 - 8), slice(x0 + 20, x1 - 8))] == (
            category,
            picture_id,
            quarter,
        )
