"""Grid-scene marks (piles, sprite quarters, shape tiles; in cells, backpack slots and the hint
figure) and ``Canvas.sprite_part``: pixels checked against the sprite atlas itself, locality,
batching and validation."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from PIL import Image

from cogsim.benchmarks.kidgym import cogsim_look as grid
from cogsim.benchmarks.kidgym.cogsim_look import CellMark, GridScene, Item, Pile, ShapeTile, SlotMark, SpriteQuarter
from cogsim.render._canvas import Canvas
from render_helpers import renderer

QUARTER_BACKING = (252, 250, 244)  # the light card a quarter is drawn on


def _sprite_rgba(name: str) -> np.ndarray:
    """The sprite's premultiplied RGBA pixels, cut straight from the atlas."""
    atlases = renderer().atlases
    height, width = atlases.sprite_pixels.shape[:2]
    u0, v0, u1, v1 = atlases.sprite_uv[name]
    return atlases.sprite_pixels[round(v0 * height) : round(v1 * height), round(u0 * width) : round(u1 * width)]


def _on_backing(premultiplied: np.ndarray, size: int) -> np.ndarray:
    """Resized to size x size and composited over the quarter backing: what a cell should show."""
    resized = np.asarray(Image.fromarray(premultiplied).resize((size, size), Image.BILINEAR), dtype=np.float32)
    alpha = resized[..., 3:] / 255.0
    return resized[..., :3] + (1.0 - alpha) * np.asarray(QUARTER_BACKING, dtype=np.float32)


def _quarter(pixels: np.ndarray, quarter: int) -> np.ndarray:
    h, w = pixels.shape[0] // 2, pixels.shape[1] // 2
    row, col = divmod(quarter, 2)
    return pixels[row * h : (row + 1) * h, col * w : (col + 1) * w]


def _cell(frame: np.ndarray, scene: GridScene, row: int, col: int, cells: int = 1) -> np.ndarray:
    x0, y0, _, _ = grid.play_cell_rect(scene, row, col)
    span = cells * scene.cell_size
    return frame[y0 : y0 + span, x0 : x0 + span].astype(np.float32)


def _error(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).mean())


@pytest.mark.parametrize("sprite", ["elephant", "giraffe", "teddy_bear"])
def test_each_quarter_shows_its_part_of_the_sprite(sprite):
    scene = GridScene(cell_size=64, marks=tuple(CellMark(SpriteQuarter(sprite, q), 1, q) for q in range(4)))
    frame = renderer().grid(scene)[0]
    pixels = _sprite_rgba(sprite)
    expected = [_on_backing(np.ascontiguousarray(_quarter(pixels, q)), 64) for q in range(4)]
    for q in range(4):
        errors = [_error(_cell(frame, scene, 1, q), reference) for reference in expected]
        assert int(np.argmin(errors)) == q
        assert errors[q] < 12.0


def test_four_quarters_in_a_block_reassemble_the_sprite():
    sprite = "elephant"
    marks = tuple(CellMark(SpriteQuarter(sprite, q), 1 + q // 2, 2 + q % 2) for q in range(4))
    scene = GridScene(cell_size=32, marks=marks)
    block = _cell(renderer().grid(scene)[0], scene, 1, 2, cells=2)
    whole = _on_backing(_sprite_rgba(sprite), 64)
    assert _error(block, whole) < 12.0
    swapped = replace(scene, marks=tuple(replace(m, col=5 - m.col) for m in marks))
    assert _error(_cell(renderer().grid(swapped)[0], swapped, 1, 2, cells=2), whole) > 2 * _error(block, whole)


def test_piles_differ_by_count_and_stay_in_their_cell():
    empty = GridScene(cell_size=64)
    piles = [replace(empty, marks=(CellMark(Pile("apple", n), 2, 3),)) for n in (1, 2, 3)]
    frames = renderer().grid([empty] + piles).astype(np.int16)
    x0, y0, x1, y1 = grid.play_cell_rect(empty, 2, 3)
    changed = [np.abs(frame - frames[0]).max(axis=-1) > 24 for frame in frames[1:]]
    for mask in changed:
        assert not mask[:y0].any() and not mask[y1:].any() and not mask[:, :x0].any() and not mask[:, x1:].any()
    assert all(mask.sum() > 0.2 * 64 * 64 for mask in changed)
    # two copies side by side, three as a heap (two below, one on top): the top-left and top-right
    # corners of the pile's rect stay clear of a heap of three
    top = changed[2][y0 : y0 + int(0.25 * 64)]
    assert not top[:, x0 : x0 + int(0.2 * 64)].any() and not top[:, x1 - int(0.2 * 64) : x1].any()
    assert np.abs(frames[1] - frames[2]).max() > 24 and np.abs(frames[2] - frames[3]).max() > 24


def test_cell_marks_carry_labels_and_numerals_over_the_mark():
    bare = GridScene(
        cell_size=64, marks=(CellMark(Pile("apple", 3), 0, 0), CellMark(ShapeTile("square", (40, 40, 200)), 0, 1))
    )
    badged = replace(bare, marks=(replace(bare.marks[0], label=7), replace(bare.marks[1], numeral=2)))
    plain, marked = renderer().grid([bare, badged]).astype(np.int16)
    c = 64
    label_corner = (slice(int(0.1 * c), int(0.3 * c)), slice(int(0.7 * c), int(0.9 * c)))  # top right of (0, 0)
    x0, y0, _, _ = grid.play_cell_rect(bare, 0, 0)
    ys, xs = label_corner
    assert np.abs(marked - plain)[y0 + ys.start : y0 + ys.stop, x0 + xs.start : x0 + xs.stop].max() > 100
    x0, y0, _, _ = grid.play_cell_rect(bare, 0, 1)  # numeral badge bottom left
    assert (
        np.abs(marked - plain)[y0 + int(0.72 * c) : y0 + int(0.9 * c), x0 + int(0.1 * c) : x0 + int(0.4 * c)].max()
        > 100
    )


def test_shape_tile_shows_its_colour():
    colours = ((220, 40, 40), (40, 160, 60), (50, 80, 220))
    scene = GridScene(
        cell_size=64, marks=tuple(CellMark(ShapeTile("square", colour), 3, i) for i, colour in enumerate(colours))
    )
    frame = renderer().grid(scene)[0]
    for i, colour in enumerate(colours):
        centre = _cell(frame, scene, 3, i)[24:40, 24:40].reshape(-1, 3).mean(axis=0)
        assert np.abs(centre - np.asarray(colour)).max() < 10


def test_slot_marks_stay_in_their_slot_and_keep_its_letter_visible():
    empty = GridScene(cell_size=64)
    marked = replace(empty, marks=(SlotMark(Pile("pizza", 2), 1), SlotMark(SpriteQuarter("cat", 3), 4)))
    before, after = renderer().grid([empty, marked]).astype(np.int16)
    changed = np.abs(after - before).max(axis=-1) > 24
    allowed = np.zeros_like(changed)
    for slot in (1, 4):
        x0, y0, x1, y1 = grid.backpack_slot_rect(empty, slot)
        allowed[y0:y1, x0:x1] = True
        letter = changed[y0 : y0 + int(0.25 * 64), x0 : x0 + int(0.25 * 64)]
        assert not letter.any()  # the slot letter sits in the top-left corner, left clear
        assert changed[y0:y1, x0:x1].sum() > 0.05 * 64 * 64
    assert not (changed & ~allowed).any()


def test_hint_figure_draws_four_pieces_in_the_hint_panel():
    colours = ((220, 40, 40), (40, 160, 60), (50, 80, 220), (230, 190, 30))
    figure = tuple(ShapeTile("square", colour) for colour in colours)
    empty = GridScene(cell_size=64, hint_text="Target")
    before, after = renderer().grid([empty, replace(empty, hint_figure=figure)]).astype(np.int16)
    changed = np.abs(after - before).max(axis=-1) > 24
    assert changed.any() and not changed[:, 2 * 64 :].any()  # only the hint panel (x cells 0-1)
    ys, xs = np.nonzero(changed)
    top, left = ys.min(), xs.min()
    size = (xs.max() - left + 1) / 2
    for quarter, colour in enumerate(colours):
        row, col = divmod(quarter, 2)
        cy, cx = int(top + (row + 0.5) * size), int(left + (col + 0.5) * size)
        assert np.abs(after[cy, cx] - np.asarray(colour)).max() < 10


def test_a_batch_with_marks_matches_frames_drawn_alone():
    scenes = [
        GridScene(cell_size=32, items=(Item("dog", 0, 0, label=1),), marks=(CellMark(Pile("egg", 2), 4, 4, label=3),)),
        GridScene(
            cell_size=32,
            marks=(CellMark(SpriteQuarter("lion", 0), 2, 2, numeral=1), SlotMark(ShapeTile("star", (200, 0, 0)), 0)),
        ),
        GridScene(cell_size=32, hint_figure=tuple(ShapeTile("circle", (0, 0, 200)) for _ in range(4))),
    ]
    batch = renderer().grid(scenes)
    for scene, frame in zip(scenes, batch):
        assert np.array_equal(renderer().grid(scene)[0], frame)


@pytest.mark.parametrize(
    "scene, field",
    [
        (GridScene(marks=(CellMark(Pile("apple", 4), 0, 0),)), "marks[0].mark.count"),
        (GridScene(marks=(CellMark(Pile("apple", 0), 0, 0),)), "marks[0].mark.count"),
        (GridScene(marks=(CellMark(SpriteQuarter("cat", 4), 0, 0),)), "marks[0].mark.quarter"),
        (GridScene(marks=(CellMark(ShapeTile("blob", (1, 2, 3)), 0, 0),)), "marks[0].mark.shape"),
        (GridScene(marks=(CellMark(ShapeTile("star", (1, 2, 300)), 0, 0),)), "marks[0].mark.colour"),
        (GridScene(marks=(CellMark(Pile("apple", 1), 5, 0),)), "marks[0].row"),
        (GridScene(marks=(CellMark(Pile("apple", 1), 0, 0, label=100),)), "marks[0].label"),
        (GridScene(marks=(CellMark(Pile("apple", 1), 0, 0, numeral=0),)), "marks[0].numeral"),
        (GridScene(marks=(SlotMark(Pile("apple", 1), 7),)), "marks[0].slot"),
        (GridScene(marks=(Pile("apple", 1),)), "marks[0]"),
        (GridScene(marks=(CellMark("apple", 0, 0),)), "marks[0].mark"),
        (GridScene(hint_figure=(ShapeTile("star", (0, 0, 0)),)), "hint_figure"),
        (GridScene(hint_figure=(Pile("apple", 1),) * 4), "hint_figure[0]"),
    ],
)
def test_bad_marks_raise_value_error_naming_the_field(scene, field):
    with pytest.raises(ValueError, match=field.replace("[", r"\[").replace("]", r"\]")):
        renderer().grid(scene)


def test_unknown_mark_sprite_raises_value_error():
    with pytest.raises(ValueError, match="sprite must be one of"):
        renderer().grid(GridScene(marks=(CellMark(SpriteQuarter("no_such_sprite", 0), 0, 0),)))


def test_sprite_part_selects_a_sub_rectangle_of_the_sprite():
    canvas = Canvas(renderer().atlases, 64, 64)
    canvas.sprite("cat", (0, 0, 10, 10))
    canvas.sprite_part("cat", (0, 0, 10, 10), (0.0, 0.0, 1.0, 1.0))
    canvas.sprite_part("cat", (0, 0, 10, 10), (0.5, 0.0, 1.0, 0.5))
    whole, same, top_right = canvas.instances()
    assert np.array_equal(whole, same)
    u0, v0, u1, v1 = renderer().atlases.sprite_uv["cat"]
    assert np.allclose(top_right[4:8], ((u0 + u1) / 2, v0, u1, (v0 + v1) / 2))
    for bad in [(0.5, 0.0, 0.5, 1.0), (0.0, 0.0, 1.1, 1.0), (-0.1, 0, 1, 1), "abc"]:
        with pytest.raises(ValueError, match="part must"):
            canvas.sprite_part("cat", (0, 0, 10, 10), bad)
    with pytest.raises(ValueError, match="sprite must be one of"):
        canvas.sprite_part("no_such_sprite", (0, 0, 10, 10), (0, 0, 1, 1))
