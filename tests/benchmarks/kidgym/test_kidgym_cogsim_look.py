"""KidGym grid scenes: layout, sprites where the state says, validation."""

from __future__ import annotations

import numpy as np
import pytest

from cogsim import render
from cogsim.benchmarks.kidgym import cogsim_look as kidgym_look
from cogsim.benchmarks.kidgym.cogsim_look import GridScene, Item, Target
from render_helpers import renderer

CANDIDATES = (
    "apple",
    "banana",
    "strawberry",
    "cat",
    "dog",
    "elephant",
    "teddy_bear",
    "kite",
    "pizza",
    "key",
    "door",
    "diamond",
)


def _sprite_region(scene: GridScene, rect) -> tuple[slice, slice]:
    """The part of a cell the sprite covers that no label badge overlaps (its lower-left area)."""
    x0, y0, x1, y1 = (int(v) for v in rect)
    c = scene.cell_size
    return slice(y0 + int(0.4 * c), y1 - int(0.12 * c)), slice(x0 + int(0.12 * c), x1 - int(0.4 * c))


def _identify(frame: np.ndarray, scene: GridScene, item: Item) -> str:
    """The candidate sprite whose unlabelled rendering at the item's cell matches the frame best."""
    references = renderer().grid(
        [GridScene(items=(Item(name, item.row, item.col),), cell_size=scene.cell_size) for name in CANDIDATES]
    )
    ys, xs = _sprite_region(scene, kidgym_look.play_cell_rect(scene, item.row, item.col))
    errors = [np.abs(ref[ys, xs].astype(int) - frame[ys, xs]).mean() for ref in references]
    return CANDIDATES[int(np.argmin(errors))]


@pytest.mark.parametrize("seed", [0, 1])
def test_labelled_cells_show_the_sprite_the_state_says(seed):
    rng = np.random.Generator(np.random.PCG64(seed))
    cells = rng.permutation(25)[:6]
    names = rng.choice(CANDIDATES, size=6, replace=False)
    items = tuple(
        Item(str(name), int(i) // 5, int(i) % 5, label=k + 1) for k, (name, i) in enumerate(zip(names, cells))
    )
    scene = GridScene(items=items, cell_size=32)
    frame = renderer().grid(scene)[0]
    assert [_identify(frame, scene, item) for item in items] == [item.sprite for item in items]


def test_label_badge_is_drawn_over_the_cell():
    plain = GridScene(items=(Item("cat", 2, 2),))
    labelled = GridScene(items=(Item("cat", 2, 2, label=7),))
    a, b = renderer().grid([plain, labelled])
    x0, y0, x1, y1 = kidgym_look.play_cell_rect(plain, 2, 2)
    corner = (slice(y0, y0 + 24), slice(x1 - 24, x1))
    assert np.abs(a[corner].astype(int) - b[corner]).mean() > 20  # the badge
    ys, xs = _sprite_region(plain, (x0, y0, x1, y1))
    assert np.abs(a[ys, xs].astype(int) - b[ys, xs]).max() <= 2  # nothing else changes (tile rounding aside)


def test_backpack_slot_shows_its_sprite():
    scene_a = GridScene(backpack=(None, "pizza"))
    scene_b = GridScene(backpack=(None, "banana"))
    empty = GridScene(backpack=())
    a, b, e = renderer().grid([scene_a, scene_b, empty])
    x0, y0, x1, y1 = kidgym_look.backpack_slot_rect(scene_a, 1)
    slot = (slice(y0 + 20, y1 - 8), slice(x0 + 8, x1 - 8))
    assert np.abs(a[slot].astype(int) - e[slot]).mean() > 20
    assert np.abs(a[slot].astype(int) - b[slot]).mean() > 20
    first = kidgym_look.backpack_slot_rect(scene_a, 0)
    region = (slice(first[1], first[3]), slice(first[0], first[2]))
    assert np.abs(a[region].astype(int) - e[region]).max() <= 2  # the empty slot A stays empty


@pytest.mark.parametrize("cell_size", kidgym_look.CELL_SIZES)
def test_frame_size_follows_cell_size(cell_size):
    assert renderer().grid(GridScene(cell_size=cell_size)).shape == (1, 9 * cell_size, 9 * cell_size, 3)


def test_batch_matches_single_frames():

    scenes = [kidgym_look.example_grid(seed, cell_size=32) for seed in range(5)]
    batch = renderer().grid(scenes)
    for scene, frame in zip(scenes, batch):
        assert np.array_equal(frame, renderer().grid(scene)[0])  # bit for bit, whatever its tile


def test_roman_numerals():
    assert [kidgym_look.roman(n) for n in (1, 2, 3, 4, 9, 14, 39)] == ["I", "II", "III", "IV", "IX", "XIV", "XXXIX"]


def test_sprite_categories_cover_every_sprite_once():
    names = [name for names in render.SPRITE_CATEGORIES.values() for name in names]
    assert sorted(names) == sorted(render.SPRITES)
    assert {"animals", "fruits", "foods", "toys", "game_objects"} == set(render.SPRITE_CATEGORIES)
    assert all(len(render.SPRITE_CATEGORIES[c]) >= 15 for c in ("animals", "fruits", "foods", "toys"))


def test_every_sprite_is_named_and_drawable():
    assert len(render.SPRITES) >= 100 and {
        "strawberry",
        "elephant",
        "agent",
        "key",
        "door",
        "chest",
        "diamond",
        "basket",
    } <= set(render.SPRITES)
    scenes = [GridScene(items=(Item(name, 0, 0),), cell_size=32) for name in render.SPRITES[:25]]
    frames = renderer().grid(scenes)
    assert len({frame[64:96, 64:96].tobytes() for frame in frames}) == len(scenes)


@pytest.mark.parametrize(
    "scene, field",
    [
        (GridScene(cell_size=48), "cell_size"),
        (GridScene(scene="moon"), "scene"),
        (GridScene(items=(Item("cat", 5, 0),)), r"items\[0\].row"),
        (GridScene(items=(Item("cat", 0, -1),)), r"items\[0\].col"),
        (GridScene(items=(Item("unicorn_cat", 0, 0),)), "sprite"),
        (GridScene(targets=(Target(0, 0, 0),)), r"targets\[0\].numeral"),
        (GridScene(backpack=("cat",) * 8), "backpack"),
        (GridScene(hint_text="x" * 100), "hint_text"),
        (GridScene(agent=(0, 9)), "agent col"),
    ],
)
def test_bad_scenes_raise_value_error_naming_the_field(scene, field):
    with pytest.raises(ValueError, match=field):
        renderer().grid(scene)


def test_mixed_cell_sizes_in_one_batch_are_rejected():
    with pytest.raises(ValueError, match="cell_size"):
        renderer().grid([GridScene(cell_size=32), GridScene(cell_size=64)])


def _rich_scenes(cell_size: int) -> list[GridScene]:
    """Example scenes of every background, with marks in cells, slots and the hint panel."""
    from dataclasses import replace

    from cogsim.benchmarks.kidgym.cogsim_look import CellMark, Pile, ShapeTile, SlotMark, SpriteQuarter

    scenes = []
    for seed, name in enumerate(sorted(kidgym_look.SCENES)):
        scene = kidgym_look.example_grid(seed, cell_size=cell_size)
        marks = (
            CellMark(Pile("apple", 1 + seed % 3), 0, 0, label=seed, numeral=1 + seed),
            CellMark(SpriteQuarter("cat", seed % 4), 4, 4),
            SlotMark(ShapeTile("star", (200, 40, 40)), 6),
        )
        figure = tuple(SpriteQuarter("dog", q) for q in range(4)) if seed % 2 else ()
        scenes.append(replace(scene, scene=name, marks=marks, hint_figure=figure, hint_sprites=()))
    return scenes


@pytest.mark.parametrize("cell_size", kidgym_look.CELL_SIZES)
def test_frames_started_from_the_cached_fixed_layer_equal_a_single_pass(cell_size):
    """The renderer draws each scene's fixed layer once and starts frames from its pixels; every pixel
    must be what drawing the whole scene in one pass gives (draw_base then draw_state)."""
    scenes = _rich_scenes(cell_size)
    size = scenes[0].size
    for scene in scenes:
        layered = renderer().grid(scene)[0]
        one_pass = renderer().draw_2d([scene], (size, size), kidgym_look.draw)[0]
        np.testing.assert_array_equal(layered, one_pass)


def test_fixed_layer_is_drawn_once_per_scene_cell_size_and_bag():
    fresh = render.Renderer(backend="egl")
    scenes = _rich_scenes(32) + _rich_scenes(32)
    fresh.grid(scenes)
    fresh.grid(scenes[:3])
    assert set(fresh._base_layers) == {(name, 32, kidgym_look.BACKPACK_SLOTS) for name in kidgym_look.SCENES}


@pytest.mark.parametrize("cell_size", [32, 96])  # 96 px cells: 4 frames per pass, so 3 passes
def test_batches_of_mixed_backgrounds_start_each_frame_from_its_own_layer(cell_size):
    scenes = _rich_scenes(cell_size)
    batch = renderer().grid(scenes * 2)
    for scene, frame in zip(scenes * 2, batch):
        assert np.array_equal(frame, renderer().grid(scene)[0])
