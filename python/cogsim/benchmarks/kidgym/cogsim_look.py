"""KidGym grid scenes: 9 x 9 cells with a hint panel on the left, a backpack strip at the bottom,
a scene background and a centred 5 x 5 play area.

Layout in cells (column x, row y): hint panel x 0-1, y 0-7; backpack strip y 8 (title in x 0-1,
lettered slots A-G in x 2-8); play area x 2-6, y 2-6. Play-area coordinates are (row, col) in 0..4.

Besides whole-cell sprites (:class:`Item`) a scene can carry *marks*, drawn last in the same batched
pass: a :class:`Pile` of 1-3 copies of a sprite (a counted heap), a :class:`SpriteQuarter` (one
quarter of a picture) and a :class:`ShapeTile` (a coloured shape on a light tile). Place them in
play-area cells with :class:`CellMark`, in backpack slots with :class:`SlotMark`, and show a whole
2 x 2 figure of quarters or tiles in the hint panel with ``GridScene.hint_figure``. Quarters and
tiles fill their whole cell, so neighbouring cells join into one picture.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Union

import numpy as np

from cogsim.benchmarks.kidgym.tasks import roman
from cogsim.render import SHAPES, Canvas, Renderer, as_batch, checks, same_across, scene_kind

GRID_CELLS = 9
PLAY_CELLS = 5
PLAY_ORIGIN = 2  # first play-area cell, in frame cells
CELL_SIZES = (32, 64, 96)
BACKPACK_SLOTS = 7
HINT_SPRITES = 12  # 2 columns x 6 rows under the hint text
HINT_TEXT_MAX = 48

# Scene name -> (outer background, outer pattern, pattern colour, play floor light, play floor dark, decor sprites)
SCENES = {
    "meadow": (
        (126, 184, 90),
        "dots",
        (112, 168, 78),
        (222, 236, 196),
        (206, 226, 176),
        ("tree", "flower", "mushroom"),
    ),
    "farm": ((176, 138, 92), "stripes", (160, 124, 80), (238, 224, 190), (226, 208, 170), ("house", "tree", "chicken")),
    "supermarket": (
        (150, 176, 204),
        "tiles",
        (136, 162, 192),
        (240, 240, 236),
        (224, 226, 222),
        ("shopping_cart", "box", "milk"),
    ),
    "canteen": (
        (214, 170, 120),
        "checker",
        (200, 154, 104),
        (246, 236, 216),
        (234, 220, 196),
        ("hamburger", "pizza", "cake"),
    ),
    "playroom": (
        (184, 156, 214),
        "waves",
        (170, 140, 202),
        (244, 236, 248),
        (230, 220, 238),
        ("teddy_bear", "balloon", "kite"),
    ),
    "beach": ((92, 174, 214), "waves", (80, 160, 202), (246, 230, 186), (236, 216, 164), ("crab", "fish", "coconut")),
}
_DECOR_CELLS = ((0, 7), (1, 8), (7, 7))  # (row, col) in frame cells, outside the play area

INK = (40, 44, 52)
PANEL = (250, 248, 240)
PANEL_EDGE = (120, 110, 96)
LABEL_BADGE = (255, 255, 255)


@dataclass(frozen=True)
class Item:
    """A sprite in a play-area cell, with an optional number label and cell colour (key/door colours)."""

    sprite: str
    row: int
    col: int
    label: Optional[int] = None
    cell_colour: Optional[tuple[int, int, int]] = None


@dataclass(frozen=True)
class Target:
    """A target position: the cell is outlined and shows a roman numeral."""

    row: int
    col: int
    numeral: int


@dataclass(frozen=True)
class Pile:
    """``count`` (1-3) copies of a sprite heaped in one place."""

    sprite: str
    count: int


@dataclass(frozen=True)
class SpriteQuarter:
    """One quarter of a sprite: 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right."""

    sprite: str
    quarter: int


@dataclass(frozen=True)
class ShapeTile:
    """A coloured shape (one of ``SHAPES``) on a light, outlined tile."""

    shape: str
    colour: tuple[int, int, int]


Mark = Union[Pile, SpriteQuarter, ShapeTile]
Piece = Union[SpriteQuarter, ShapeTile]  # what a 2 x 2 figure is made of
PILE_MAX = 3


@dataclass(frozen=True)
class CellMark:
    """A mark in a play-area cell, with an optional number label (top right, as on items) and roman
    numeral (bottom left, as on targets) drawn over it."""

    mark: Mark
    row: int
    col: int
    label: Optional[int] = None
    numeral: Optional[int] = None


@dataclass(frozen=True)
class SlotMark:
    """A mark in backpack slot ``slot`` (0 is A), clear of the slot letter."""

    mark: Mark
    slot: int


@dataclass(frozen=True)
class GridScene:
    items: tuple[Item, ...] = ()
    targets: tuple[Target, ...] = ()
    agent: Optional[tuple[int, int]] = None  # (row, col) in the play area; drawn over items
    backpack: tuple[Optional[str], ...] = ()  # sprite per slot A, B, C... (None: empty slot)
    backpack_colours: tuple[Optional[tuple[int, int, int]], ...] = ()  # a slot's colour under its sprite (keys)
    bag_slots: int = BACKPACK_SLOTS  # the slots the backpack strip has (the release's game: 4)
    hint_text: str = ""
    hint_sprites: tuple[str, ...] = ()
    scene: str = "meadow"
    cell_size: int = 64
    agent_sprite: str = "agent"
    marks: tuple[Union[CellMark, SlotMark], ...] = ()  # drawn over everything else, in this order
    hint_figure: tuple[Piece, ...] = ()  # none or 4 pieces (quarter order), a figure under the hint text

    @property
    def size(self) -> int:
        return GRID_CELLS * self.cell_size

    def validate(self) -> "GridScene":
        checks.choice("cell_size", self.cell_size, CELL_SIZES)
        checks.choice("scene", self.scene, tuple(SCENES))
        checks.text("hint_text", self.hint_text, HINT_TEXT_MAX)
        checks.integer("bag_slots", self.bag_slots, 1, BACKPACK_SLOTS)
        if len(self.backpack) > self.bag_slots:
            raise ValueError(f"backpack must have at most bag_slots ({self.bag_slots}) slots, got {len(self.backpack)}")
        if len(self.backpack_colours) > len(self.backpack):
            raise ValueError("backpack_colours must have at most one colour per backpack slot")
        for i, colour in enumerate(self.backpack_colours):
            if colour is not None:
                checks.colour(f"backpack_colours[{i}]", colour)
        if len(self.hint_sprites) > HINT_SPRITES:
            raise ValueError(f"hint_sprites must have at most {HINT_SPRITES} sprites, got {len(self.hint_sprites)}")
        for i, item in enumerate(self.items):
            checks.integer(f"items[{i}].row", item.row, 0, PLAY_CELLS - 1)
            checks.integer(f"items[{i}].col", item.col, 0, PLAY_CELLS - 1)
            if item.label is not None:
                checks.integer(f"items[{i}].label", item.label, 0, 99)
            if item.cell_colour is not None:
                checks.colour(f"items[{i}].cell_colour", item.cell_colour)
        for i, target in enumerate(self.targets):
            checks.integer(f"targets[{i}].row", target.row, 0, PLAY_CELLS - 1)
            checks.integer(f"targets[{i}].col", target.col, 0, PLAY_CELLS - 1)
            checks.integer(f"targets[{i}].numeral", target.numeral, 1, 39)
        if self.agent is not None:
            checks.integer("agent row", self.agent[0], 0, PLAY_CELLS - 1)
            checks.integer("agent col", self.agent[1], 0, PLAY_CELLS - 1)
        for i, placed in enumerate(self.marks):
            _check_placed_mark(f"marks[{i}]", placed)
        if len(self.hint_figure) not in (0, 4):
            raise ValueError(f"hint_figure must hold 0 or 4 pieces, got {len(self.hint_figure)}")
        for i, piece in enumerate(self.hint_figure):
            if not isinstance(piece, (SpriteQuarter, ShapeTile)):
                raise ValueError(f"hint_figure[{i}] must be a SpriteQuarter or ShapeTile, got {type(piece).__name__}")
            _check_mark(f"hint_figure[{i}]", piece)
        return self


def _check_placed_mark(name: str, placed) -> None:
    if isinstance(placed, CellMark):
        checks.integer(f"{name}.row", placed.row, 0, PLAY_CELLS - 1)
        checks.integer(f"{name}.col", placed.col, 0, PLAY_CELLS - 1)
        if placed.label is not None:
            checks.integer(f"{name}.label", placed.label, 0, 99)
        if placed.numeral is not None:
            checks.integer(f"{name}.numeral", placed.numeral, 1, 39)
    elif isinstance(placed, SlotMark):
        checks.integer(f"{name}.slot", placed.slot, 0, BACKPACK_SLOTS - 1)
    else:
        raise ValueError(f"{name} must be a CellMark or SlotMark, got {type(placed).__name__}")
    _check_mark(f"{name}.mark", placed.mark)


def _check_mark(name: str, mark) -> None:
    if isinstance(mark, Pile):
        checks.integer(f"{name}.count", mark.count, 1, PILE_MAX)
    elif isinstance(mark, SpriteQuarter):
        checks.integer(f"{name}.quarter", mark.quarter, 0, 3)
    elif isinstance(mark, ShapeTile):
        checks.choice(f"{name}.shape", mark.shape, SHAPES)
        checks.colour(f"{name}.colour", mark.colour)
    else:
        raise ValueError(f"{name} must be a Pile, SpriteQuarter or ShapeTile, got {type(mark).__name__}")


def play_cell_rect(scene: GridScene, row: int, col: int) -> tuple[int, int, int, int]:
    """Pixel rect (x0, y0, x1, y1) of a play-area cell."""
    c = scene.cell_size
    x0, y0 = (PLAY_ORIGIN + col) * c, (PLAY_ORIGIN + row) * c
    return x0, y0, x0 + c, y0 + c


def backpack_slot_rect(scene: GridScene, slot: int) -> tuple[int, int, int, int]:
    c = scene.cell_size
    return (2 + slot) * c, 8 * c, (3 + slot) * c, 9 * c


@scene_kind("grid")
def frames(renderer: Renderer, scenes: Union[GridScene, Sequence[GridScene]]) -> np.ndarray:
    """``renderer.grid(scenes)``: frames (N, H, W, 3) of one or many scenes of one cell size."""
    scenes = [scene.validate() for scene in as_batch(scenes, GridScene)]
    size = same_across("cell_size", scenes, lambda s: s.size)
    bases = [base_layer(renderer, scene) for scene in scenes]
    return renderer.draw_2d(scenes, (size, size), draw_state, bases)


def base_layer(renderer: Renderer, scene: GridScene) -> np.ndarray:
    """The scene's fixed layer (RGBA), drawn once per renderer and :func:`base_key`: on llvmpipe that
    layer (full-frame pattern, floor, panels) is most of a frame's rasterising."""
    return renderer.base_layer(base_key(scene), (scene.size, scene.size), lambda canvas: draw_base(canvas, scene))


def draw(canvas: Canvas, scene: GridScene) -> None:
    """The whole frame in one pass: the scene's fixed layer, then what this state shows."""
    draw_base(canvas, scene)
    draw_state(canvas, scene)


def base_key(scene: GridScene) -> tuple[str, int]:
    """What :func:`draw_base` depends on: frames with equal keys share their fixed layer."""
    return scene.scene, scene.cell_size, scene.bag_slots


def draw_base(canvas: Canvas, scene: GridScene) -> None:
    """The layer every state of a scene shows (background, floor, panel and bag frames); it reads
    only ``base_key(scene)``. The renderer draws it once per key and starts each frame from it."""
    _background(canvas, scene)
    _play_floor(canvas, scene)
    _hint_frame(canvas, scene)
    _bag(canvas, scene)


def draw_state(canvas: Canvas, scene: GridScene) -> None:
    """Everything :func:`draw_base` leaves out, in drawing order over it."""
    _play_area(canvas, scene)
    _hint_panel(canvas, scene)
    _backpack(canvas, scene)
    _marks(canvas, scene)


def _inset(rect, amount):
    x0, y0, x1, y1 = rect
    return x0 + amount, y0 + amount, x1 - amount, y1 - amount


def _background(canvas: Canvas, scene: GridScene) -> None:
    outer, pattern, pattern_colour, *_, decor = SCENES[scene.scene]
    size, c = scene.size, scene.cell_size
    canvas.pattern(pattern, (0, 0, size, size), pattern_colour, outer, repeats=2 * GRID_CELLS, angle=0.6)
    for sprite, (row, col) in zip(decor, _DECOR_CELLS):
        canvas.sprite(sprite, _inset((col * c, row * c, (col + 1) * c, (row + 1) * c), 0.12 * c), (255, 255, 255, 150))


def _play_floor(canvas: Canvas, scene: GridScene) -> None:
    *_, light, dark, _ = SCENES[scene.scene]
    c = scene.cell_size
    x0, y0, _, _ = play_cell_rect(scene, 0, 0)
    area = (x0, y0, x0 + PLAY_CELLS * c, y0 + PLAY_CELLS * c)
    canvas.box(_inset(area, -0.08 * c), (96, 84, 70), radius=0.12 * c)
    for row in range(PLAY_CELLS):
        for col in range(PLAY_CELLS):
            canvas.box(play_cell_rect(scene, row, col), light if (row + col) % 2 == 0 else dark)


# The state's items stay inside their cells, slots and panel, clear of the frames drawn before them
# in draw_base, so drawing those frames first changes no pixel (tests/benchmarks/kidgym/test_kidgym_cogsim_look.py checks).
def _play_area(canvas: Canvas, scene: GridScene) -> None:
    c = scene.cell_size
    for target in scene.targets:
        rect = play_cell_rect(scene, target.row, target.col)
        canvas.box(
            _inset(rect, 0.06 * c), (255, 236, 160), border=(214, 150, 40), width=max(2, 0.05 * c), radius=0.1 * c
        )
    for item in scene.items:
        if item.cell_colour is not None:
            canvas.box(_inset(play_cell_rect(scene, item.row, item.col), 0.04 * c), item.cell_colour, radius=0.12 * c)
    for item in scene.items:
        canvas.sprite(item.sprite, _inset(play_cell_rect(scene, item.row, item.col), 0.1 * c))
    for target in scene.targets:  # numerals over items so a placed item never hides its position
        x0, y0, x1, y1 = play_cell_rect(scene, target.row, target.col)
        _badge(
            canvas,
            (x0 + 0.04 * c, y1 - 0.34 * c, x0 + 0.5 * c, y1 - 0.04 * c),
            roman(target.numeral),
            (176, 96, 0),
            scene,
        )
    if scene.agent is not None:
        canvas.sprite(scene.agent_sprite, _inset(play_cell_rect(scene, *scene.agent), 0.06 * c))
    for item in scene.items:
        if item.label is not None:
            x0, y0, x1, y1 = play_cell_rect(scene, item.row, item.col)
            d = 0.36 * c
            _badge(
                canvas,
                (x1 - d - 0.02 * c, y0 + 0.02 * c, x1 - 0.02 * c, y0 + 0.02 * c + d),
                str(item.label),
                INK,
                scene,
            )


def _badge(canvas: Canvas, rect, text: str, colour, scene: GridScene) -> None:
    x0, y0, x1, y1 = rect
    canvas.box(rect, LABEL_BADGE, border=colour, width=max(1.5, 0.03 * scene.cell_size), radius=0.5 * (y1 - y0))
    size = 0.5 * (y1 - y0)
    canvas.fit_text(text, (x0 + x1) / 2, (y0 + y1) / 2, size, 0.72 * (x1 - x0), colour)


def _hint_frame(canvas: Canvas, scene: GridScene) -> None:
    c = scene.cell_size
    panel = _inset((0, 0, 2 * c, 8 * c), 0.08 * c)
    canvas.box(panel, PANEL, border=PANEL_EDGE, width=max(2, 0.04 * c), radius=0.15 * c)
    canvas.text("Hint", c, 0.3 * c, 0.22 * c, PANEL_EDGE)


def _hint_panel(canvas: Canvas, scene: GridScene) -> None:
    c = scene.cell_size
    for i, line in enumerate(_wrap(scene.hint_text, 14)[:4]):
        canvas.fit_text(line, c, (0.75 + 0.32 * i) * c, 0.17 * c, 1.7 * c, INK)
    for i, sprite in enumerate(scene.hint_sprites):
        row, col = divmod(i, 2)
        x0, y0 = (0.16 + 0.86 * col) * c, (2.1 + 0.95 * row) * c
        cell = (x0, y0, x0 + 0.82 * c, y0 + 0.82 * c)
        canvas.box(cell, (238, 234, 222), radius=0.1 * c)
        canvas.sprite(sprite, _inset(cell, 0.06 * c))


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _bag(canvas: Canvas, scene: GridScene) -> None:
    c = scene.cell_size
    canvas.box((0, 8 * c, 9 * c, 9 * c), (92, 74, 58))
    canvas.text("Bag", c, 8.5 * c, 0.24 * c, (250, 240, 220))
    for slot in range(scene.bag_slots):
        rect = _inset(backpack_slot_rect(scene, slot), 0.06 * c)
        canvas.box(rect, (236, 226, 206), border=(60, 46, 34), width=max(1.5, 0.03 * c), radius=0.1 * c)


def _backpack(canvas: Canvas, scene: GridScene) -> None:
    c = scene.cell_size
    for slot in range(scene.bag_slots):
        rect = _inset(backpack_slot_rect(scene, slot), 0.06 * c)
        sprite = scene.backpack[slot] if slot < len(scene.backpack) else None
        colour = scene.backpack_colours[slot] if slot < len(scene.backpack_colours) else None
        x0, y0, x1, y1 = rect
        if colour is not None:
            canvas.box(_inset(rect, 0.04 * c), colour, radius=0.1 * c)
        if sprite is not None:  # shifted right and down, clear of the slot letter
            canvas.sprite(sprite, (x0 + 0.2 * c, y0 + 0.2 * c, x1 - 0.06 * c, y1 - 0.06 * c))
        canvas.text(chr(ord("A") + slot), x0 + 0.06 * c, y0 + 0.06 * c, 0.16 * c, INK, anchor="lt")


# Sprite places of a pile, as fractions of its rect (x0, y0, x1, y1): overlapping, all visible.
PILE_LAYOUTS = {
    1: ((0.1, 0.1, 0.9, 0.9),),
    2: ((0.04, 0.3, 0.56, 0.82), (0.44, 0.18, 0.96, 0.7)),
    3: ((0.04, 0.42, 0.52, 0.9), (0.48, 0.42, 0.96, 0.9), (0.26, 0.06, 0.74, 0.54)),
}
_QUARTER_PARTS = ((0.0, 0.0, 0.5, 0.5), (0.5, 0.0, 1.0, 0.5), (0.0, 0.5, 0.5, 1.0), (0.5, 0.5, 1.0, 1.0))


def _sub(rect, fractions):
    x0, y0, x1, y1 = rect
    w, h = x1 - x0, y1 - y0
    a, b, c, d = fractions
    return x0 + a * w, y0 + b * h, x0 + c * w, y0 + d * h


def draw_mark(canvas: Canvas, rect, mark: Mark) -> None:
    """Draws one mark filling ``rect`` (pixels); usable on any canvas, e.g. in other 2D scenes."""
    if isinstance(mark, Pile):
        for fractions in PILE_LAYOUTS[mark.count]:
            canvas.sprite(mark.sprite, _sub(rect, fractions))
    elif isinstance(mark, ShapeTile):
        canvas.box(rect, (250, 246, 236), border=(90, 80, 70), width=max(1.0, 0.02 * (rect[2] - rect[0])))
        canvas.shape(mark.shape, _sub(rect, (0.14, 0.14, 0.86, 0.86)), mark.colour)
    else:
        canvas.box(rect, (252, 250, 244))
        canvas.sprite_part(mark.sprite, rect, _QUARTER_PARTS[mark.quarter])


def _cell_mark_rect(scene: GridScene, placed: CellMark):
    rect = play_cell_rect(scene, placed.row, placed.col)
    # picture parts fill the cell so neighbours join up; a pile keeps a margin like other sprites
    return _inset(rect, 0.04 * scene.cell_size) if isinstance(placed.mark, Pile) else rect


def _slot_mark_rect(scene: GridScene, slot: int):
    c = scene.cell_size
    x0, y0, x1, y1 = backpack_slot_rect(scene, slot)
    return x0 + 0.26 * c, y0 + 0.26 * c, x1 - 0.12 * c, y1 - 0.12 * c


def _marks(canvas: Canvas, scene: GridScene) -> None:
    c = scene.cell_size
    for placed in scene.marks:
        if isinstance(placed, SlotMark):
            draw_mark(canvas, _slot_mark_rect(scene, placed.slot), placed.mark)
            continue
        draw_mark(canvas, _cell_mark_rect(scene, placed), placed.mark)
        x0, y0, x1, y1 = play_cell_rect(scene, placed.row, placed.col)
        if placed.numeral is not None:
            _badge(
                canvas,
                (x0 + 0.04 * c, y1 - 0.34 * c, x0 + 0.5 * c, y1 - 0.04 * c),
                roman(placed.numeral),
                (176, 96, 0),
                scene,
            )
        if placed.label is not None:
            d = 0.36 * c
            _badge(
                canvas,
                (x1 - d - 0.02 * c, y0 + 0.02 * c, x1 - 0.02 * c, y0 + 0.02 * c + d),
                str(placed.label),
                INK,
                scene,
            )
    if scene.hint_figure:
        size = 0.78 * c
        left, top = c - size, 2.1 * c
        for quarter, piece in enumerate(scene.hint_figure):
            x0, y0 = left + (quarter % 2) * size, top + (quarter // 2) * size
            draw_mark(canvas, (x0, y0, x0 + size, y0 + size), piece)


# -- an example scene, for `cogsim render grid`, tests and benchmarks -----------------------------

_ITEM_SPRITES = (
    "apple",
    "banana",
    "strawberry",
    "cat",
    "dog",
    "rabbit",
    "teddy_bear",
    "kite",
    "pizza",
    "cake",
    "elephant",
    "frog",
)
_KEY_COLOURS = ((220, 60, 60), (60, 120, 230), (70, 180, 90), (240, 200, 40))


def _rng(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


def example_grid(seed: int, cell_size: int = 64) -> GridScene:
    rng = _rng(seed)
    cells = [(int(i) // PLAY_CELLS, int(i) % PLAY_CELLS) for i in rng.permutation(PLAY_CELLS**2)]
    sprites = [str(s) for s in rng.choice(_ITEM_SPRITES, size=4, replace=False)]
    items = [Item(sprite, *cells[i], label=i + 1) for i, sprite in enumerate(sprites)]
    colour = _KEY_COLOURS[int(rng.integers(len(_KEY_COLOURS)))]
    items += [Item("key", *cells[4], cell_colour=colour), Item("door", *cells[5], cell_colour=colour)]
    items += [Item("diamond", *cells[6])]
    targets = (Target(*cells[7], numeral=1), Target(*cells[8], numeral=2))
    return GridScene(
        items=tuple(items),
        targets=targets,
        agent=cells[9],
        backpack=("basket", str(rng.choice(_ITEM_SPRITES)), None),
        hint_text="Put the fruit in the basket",
        hint_sprites=tuple(sprites[:2]),
        scene=str(rng.choice(sorted(SCENES))),
        cell_size=cell_size,
    )
