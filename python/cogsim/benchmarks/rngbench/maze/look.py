"""The released RNG-Bench maze's pictures (InternLM/RNGBench ``2_3d_maze/game.py``), to the same bytes.

What the release sends a model each turn (``runner.py``, ``_build_step_message``):

- ``obs_mode="scene"`` (cogsim's ``modality="3d"``): ``MazeGame3D.render_frame``, a 640x420 frame:
  the 640x360 first-person raycast view (FOV 66 degrees, blue-grey wall blocks of the (2n+1)-square
  block world, ceiling and floor gradients, walls fading to black at ``vision_range`` cells), a
  60 px HUD strip with two lines of DejaVu Sans Mono 13 (position, facing, goal, steps, explored;
  the available actions) and, with ``--minimap``, a 140x140 minimap of the uncovered maze drawn
  into the top right corner. Sent as JPEG, quality 88, optimized.
- ``obs_mode="mm2d-local"`` (``modality="patch"``): ``_build_local_patch``, a 188x188 top-down
  picture of the 3x3 cells around the player (north up), sent as JPEG, quality 92, optimized.

The view is drawn by the core (cpp/maze/raycast.hpp: the release's float arithmetic, operation by
operation); every other shape is a stamp drawn once with Pillow exactly as the release draws it and
laid over the frame by the core (cpp/maze/release_frames.hpp says why that gives the same bytes).
Text uses the DejaVu Sans Mono that matplotlib ships (the release names the system's copy), so the
pixels do not depend on the machine's fonts.

The release compares the wall block a ray hits with the goal's block, which is never a wall, so its
3D view never shows the goal; ``show_goal=True`` (cogsim's option) gives the walls around the goal
block the release's goal colour.
"""

from __future__ import annotations

import importlib.util
import math
import threading
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from cogsim import _core
from cogsim.benchmarks._moved import names_moved_to
from cogsim.benchmarks.rngbench.maze.game import DELTAS, SIDE_BITS

VIEW_WIDTH, VIEW_HEIGHT, HUD_HEIGHT = 640, 360, 60
FRAME_SHAPE = (VIEW_HEIGHT + HUD_HEIGHT, VIEW_WIDTH, 3)
MINIMAP_SIZE, MINIMAP_MARGIN = 140, 8
MINIMAP_ORIGIN = (VIEW_WIDTH - MINIMAP_SIZE - MINIMAP_MARGIN, MINIMAP_MARGIN)
PATCH_CELL, PATCH_PAD = 60, 4
PATCH_SIZE = 3 * PATCH_CELL + 2 * PATCH_PAD
FONT_FILE, FONT_SIZE = "DejaVuSansMono.ttf", 13

# How the release sends each modality's picture (the env's frame_format()): Pillow's JPEG encoder, these
# settings (``img.convert("RGB").save(buf, "JPEG", quality=..., optimize=True)``).
FRAME_FORMATS = {
    "3d": {"format": "jpeg", "quality": 88, "optimize": True},
    "patch": {"format": "jpeg", "quality": 92, "optimize": True},
}

HEADING_LETTERS = "NESW"
RELEASE_ANGLES = (270.0, 0.0, 90.0, 180.0)  # the release's facing angles (degrees clockwise from east) of N, E, S, W

HUD_BACKGROUND, HUD_TEXT, HUD_ACCENT = (8, 8, 20), (190, 195, 210), (100, 160, 255)
MINIMAP_BACKGROUND, MINIMAP_WALL = (10, 10, 20), (30, 32, 55)
MINIMAP_GOAL, MINIMAP_START, MINIMAP_VISIBLE, MINIMAP_SEEN = (
    (255, 150, 0),
    (0, 210, 90),
    (225, 230, 255),
    (190, 195, 215),
)
MINIMAP_PLAYER, MINIMAP_ARROW = (0, 180, 255), (255, 255, 255)
MINIMAP_CELL_COLOURS = (MINIMAP_GOAL, MINIMAP_START, MINIMAP_VISIBLE, MINIMAP_SEEN)
PATCH_BACKGROUND, PATCH_CURRENT, PATCH_OPEN = (15, 15, 25), (75, 82, 125), (195, 205, 230)
PATCH_BLOCKED, PATCH_OUTSIDE, PATCH_GOAL = (32, 34, 55), (25, 26, 40), (255, 150, 0)
PATCH_WALL, PATCH_ARROW, PATCH_DOT, PATCH_BORDER = (255, 190, 50), (255, 255, 255), (0, 210, 255), (80, 85, 120)


def font_path() -> Path:
    """The pinned HUD font: matplotlib's bundled DejaVu Sans Mono (matplotlib is a cogsim dependency)."""
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or spec.origin is None:
        raise RuntimeError("matplotlib is not installed: cogsim needs its DejaVu fonts for the release's pictures")
    path = Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf" / FONT_FILE
    if not path.is_file():
        raise RuntimeError(f"matplotlib's {FONT_FILE} is missing from {path.parent}")
    return path


@cache
def hud_font() -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(font_path()), FONT_SIZE)


# -- the release's world ---------------------------------------------------------------------------
def block_grid(walls: np.ndarray) -> np.ndarray:
    """The release's (2n+1)-square block grid of a maze (1 = wall block): cell (r, c) is block
    (2r+1, 2c+1), the block between two cells is a wall where their side is, corners are walls."""
    n = walls.shape[0]
    grid = np.ones((2 * n + 1, 2 * n + 1), np.uint8)
    grid[1::2, 1::2] = 0
    grid[1::2, 2:-1:2] = (walls[:, :-1] & SIDE_BITS[1]) != 0
    grid[2:-1:2, 1::2] = (walls[:-1, :] & SIDE_BITS[2]) != 0
    return grid


@dataclass(frozen=True)
class BlockWorld:
    """A maze in the release's world; make one per maze and draw any number of its states."""

    walls: np.ndarray
    grid: np.ndarray

    @classmethod
    def of(cls, walls: np.ndarray) -> "BlockWorld":
        walls = np.ascontiguousarray(walls, dtype=np.uint8)
        return cls(walls, block_grid(walls))

    @property
    def size(self) -> int:
        return int(self.walls.shape[0])

    @cached_property
    def open_sides(self) -> tuple[np.ndarray, ...]:
        """For each side (north, east, south, west), the cells whose side is open."""
        return tuple((self.walls & bit) == 0 for bit in SIDE_BITS)

    def revealed_cells(self, visited: np.ndarray) -> np.ndarray:
        """The cells the release's minimap shows: those stood on and each open neighbour of one."""
        north, east, south, west = self.open_sides
        seen = visited.copy()
        seen[:-1] |= visited[1:] & north[1:]
        seen[1:] |= visited[:-1] & south[:-1]
        seen[:, :-1] |= visited[:, 1:] & west[:, 1:]
        seen[:, 1:] |= visited[:, :-1] & east[:, :-1]
        return seen


@dataclass(frozen=True)
class MazeState:
    """What the release's picture shows of a turn: the pose, the cells stood on, the actions taken."""

    world: BlockWorld
    row: int
    col: int
    heading: int  # 0..3 = north, east, south, west
    visited: np.ndarray  # (n, n) bool
    steps: int
    vision_range: int

    def available_actions(self) -> list[str]:
        forward_open = not self.world.walls[self.row, self.col] & SIDE_BITS[self.heading]
        return (["move_forward"] if forward_open else []) + ["turn_left", "turn_right"]

    def hud_lines(self) -> list[list[tuple[str, tuple[int, int, int]]]]:
        """The release's two HUD lines as (text, colour) parts."""
        n = self.world.size
        first = [
            (f"Pos:({self.row},{self.col})", HUD_ACCENT),
            ("  ", HUD_TEXT),
            (f"Facing:{HEADING_LETTERS[self.heading]}", HUD_ACCENT),
            ("  ", HUD_TEXT),
            (f"Goal:({n - 1},{n - 1})", HUD_ACCENT),
            ("  ", HUD_TEXT),
            (f"Steps:{self.steps}", HUD_TEXT),
            ("  ", HUD_TEXT),
            (f"Explored:{int(self.visited.sum())}/{n * n}", HUD_TEXT),
        ]
        return [first, [(f"Actions:[{', '.join(self.available_actions())}]", HUD_TEXT)]]


# -- stamps ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Stamp:
    """A stamp in the core and where its top-left corner goes, relative to what it was drawn in."""

    id: int
    x: int
    y: int


@dataclass(frozen=True)
class TextStamp:
    """A piece of HUD text: its stamp relative to the text's origin, its ink box (None: no ink) and
    the x where the release starts the next piece (the right of ``textbbox``), relative to the origin."""

    stamp: Optional[Stamp]
    ink: Optional[tuple[int, int, int, int]]
    advance: int


def _shape_mask(size: tuple[int, int], draw: Callable[[ImageDraw.ImageDraw], None]) -> np.ndarray:
    """The pixels a PIL drawing call writes on a canvas of `size` (width, height)."""
    canvas = Image.new("L", size, 0)
    draw(ImageDraw.Draw(canvas))
    return np.asarray(canvas) != 0


class _Stamps:
    """The core's stamp store and the stamps made so far, shared by every frame of the process."""

    def __init__(self):
        self.core = _core.MazeReleaseFrames()
        self.lock = threading.Lock()
        self.shapes: dict = {}
        self.texts: dict = {}

    def _add(self, rgb: np.ndarray, mask: np.ndarray) -> Optional[Stamp]:
        ys, xs = np.nonzero(mask)
        if not len(ys):
            return None
        y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
        stamp_id = self.core.add_stamp(
            np.ascontiguousarray(rgb[y0:y1, x0:x1]), np.ascontiguousarray(mask[y0:y1, x0:x1], dtype=np.uint8)
        )
        return Stamp(stamp_id, int(x0), int(y0))

    def shape(self, key, size: tuple[int, int], colour, draw: Callable[[ImageDraw.ImageDraw], None]) -> Stamp:
        """The stamp of an opaque PIL shape in `colour`, drawn on a canvas of `size` by `draw` (cached by key)."""
        stamp = self.shapes.get(key)
        if stamp is None:
            with self.lock:
                stamp = self.shapes.get(key)
                if stamp is None:
                    mask = _shape_mask(size, draw)
                    rgb = np.zeros(mask.shape + (3,), np.uint8)
                    rgb[mask] = colour
                    stamp = self._add(rgb, mask)
                    if stamp is None:
                        raise ValueError(f"the shape {key!r} draws no pixel")
                    self.shapes[key] = stamp
        return stamp

    def text(self, text: str, colour) -> TextStamp:
        """A HUD text piece, drawn by PIL over the HUD's background as the release draws it."""
        stamp = self.texts.get((text, colour))
        if stamp is None:
            with self.lock:
                stamp = self.texts.get((text, colour))
                if stamp is None:
                    stamp = self._text_stamp(text, colour)
                    self.texts[(text, colour)] = stamp
        return stamp

    def _text_stamp(self, text: str, colour) -> TextStamp:
        font = hud_font()
        bbox = _MEASURE.textbbox((0, 0), text, font=font)
        if not all(float(v).is_integer() for v in bbox):  # the next piece would start between pixels
            raise ValueError(f"the HUD text {text!r} has a box {bbox} off the pixel grid")
        left, top, right, bottom = (int(v) for v in bbox)
        margin = 2 * FONT_SIZE
        canvas = Image.new("RGB", (right + 2 * margin, bottom + 2 * margin), HUD_BACKGROUND)
        ImageDraw.Draw(canvas).text((margin, margin), text, fill=colour, font=font)
        pixels = np.asarray(canvas)
        # Copying the pixels the text changed is drawing it (the others keep the background). Where the
        # text may write, its box: the changed pixels and textbbox, which holds the glyphs' mask.
        changed = (pixels != np.array(HUD_BACKGROUND, np.uint8)).any(axis=2)
        stamp = self._add(pixels, changed)
        if stamp is None:
            return TextStamp(None, None, right)
        ys, xs = np.nonzero(changed)
        box = (
            min(left, int(xs.min()) - margin),
            min(top, int(ys.min()) - margin),
            max(right, int(xs.max()) + 1 - margin),
            max(bottom, int(ys.max()) + 1 - margin),
        )
        return TextStamp(Stamp(stamp.id, stamp.x - margin, stamp.y - margin), box, right)


_MEASURE = ImageDraw.Draw(Image.new("RGB", (1, 1)))  # textbbox does not depend on the image


_STAMPS = _Stamps()


# -- the HUD ----------------------------------------------------------------------------------------
def _hud_ops(state: MazeState) -> tuple[np.ndarray, bool]:
    """The HUD's stamps, and False where two pieces of text might touch the same pixel (then the HUD
    must be drawn by PIL, see draw_hud)."""
    ops = [_hud_background()]
    apart, above = True, None  # the bottom of the line above
    for index, parts in enumerate(state.hud_lines()):
        x, y = 10, VIEW_HEIGHT + 6 + index * 20
        right, top, bottom = None, None, None  # of the ink so far on this line
        for text, colour in parts:
            piece = _STAMPS.text(text, colour)
            if piece.stamp is not None:
                assert piece.ink is not None
                ops.append((piece.stamp.id, x + piece.stamp.x, y + piece.stamp.y))
                left = x + piece.ink[0]
                apart = apart and (right is None or right <= left)
                right = x + piece.ink[2]
                top = y + piece.ink[1] if top is None else min(top, y + piece.ink[1])
                bottom = y + piece.ink[3] if bottom is None else max(bottom, y + piece.ink[3])
            x += piece.advance
        if top is not None:
            apart = apart and (above is None or above <= top)
            above = bottom
    return np.array(ops, np.int32), apart


def _hud_background():
    stamp = _STAMPS.shape(
        "hud",
        (VIEW_WIDTH, HUD_HEIGHT),
        HUD_BACKGROUND,
        lambda d: d.rectangle([0, 0, VIEW_WIDTH - 1, HUD_HEIGHT - 1], fill=1),
    )
    return (stamp.id, stamp.x, VIEW_HEIGHT + stamp.y)


def draw_hud(image: Image.Image, state: MazeState) -> None:
    """The release's HUD drawn by PIL into a frame (``_draw_hud``): the background, then each piece
    of text where the previous one's ``textbbox`` ends."""
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, VIEW_HEIGHT, VIEW_WIDTH - 1, VIEW_HEIGHT + HUD_HEIGHT - 1], fill=HUD_BACKGROUND)
    font = hud_font()
    for index, parts in enumerate(state.hud_lines()):
        x, y = 10, VIEW_HEIGHT + 6 + index * 20
        for text, colour in parts:
            draw.text((x, y), text, fill=colour, font=font)
            x = draw.textbbox((x, y), text, font=font)[2]


# -- the minimap -------------------------------------------------------------------------------------
class _MinimapKit:
    """The stamps of one maze size's minimap (``_build_minimap``): background, cells, walls, player
    and border, as (stamp, x, y) rows placed in the frame's top right corner."""

    def __init__(self, n: int):
        self.n = n
        self.cell_px = MINIMAP_SIZE / n
        self.wall_width = max(2, round(self.cell_px * 0.15))
        size, last = (MINIMAP_SIZE, MINIMAP_SIZE), MINIMAP_SIZE - 1
        background = _STAMPS.shape(("mm-bg",), size, MINIMAP_BACKGROUND, lambda d: d.rectangle([0, 0, *size], 1))
        border = _STAMPS.shape(
            ("mm-border", self.wall_width),
            size,
            MINIMAP_WALL,
            lambda d: d.rectangle([0, 0, last, last], outline=1, width=self.wall_width),
        )
        self.first, self.last = self._placed([background]), self._placed([border])
        # cells[k, r * n + c]: the rectangle of cell (r, c) in colour k
        self.cells = np.zeros((len(MINIMAP_CELL_COLOURS), n * n, 3), np.int32)
        for r in range(n):
            for c in range(n):
                x1, y1, x2, y2 = self._cell_box(r, c)
                width, height = x2 - x1 + 1, y2 - y1 + 1
                for k, colour in enumerate(MINIMAP_CELL_COLOURS):
                    box = [0, 0, width - 1, height - 1]
                    stamp = _STAMPS.shape(("rect", width, height, colour), (width, height), colour,
                                          lambda d, box=box: d.rectangle(box, fill=1))  # fmt: skip
                    self.cells[k, r * n + c] = self._placed([Stamp(stamp.id, stamp.x + x1, stamp.y + y1)])[0]
        # the wall lines east of (r, c) and south of (r, c)
        self.east_walls = np.zeros((n, max(n - 1, 0), 3), np.int32)
        self.south_walls = np.zeros((max(n - 1, 0), n, 3), np.int32)
        p = self.cell_px
        for r in range(n):
            for c in range(n - 1):
                x = round((c + 1) * p)
                self.east_walls[r, c] = self._line(
                    ("mm-wall", n, r, c, 1), [(x, round(r * p)), (x, round((r + 1) * p))]
                )
        for r in range(n - 1):
            for c in range(n):
                y = round((r + 1) * p)
                self.south_walls[r, c] = self._line(
                    ("mm-wall", n, r, c, 2), [(round(c * p), y), (round((c + 1) * p), y)]
                )
        self.players: dict = {}

    @staticmethod
    def _placed(stamps: list[Stamp]) -> np.ndarray:
        x0, y0 = MINIMAP_ORIGIN
        return np.array([(s.id, s.x + x0, s.y + y0) for s in stamps], np.int32).reshape(-1, 3)

    def _cell_box(self, r: int, c: int) -> tuple[int, int, int, int]:
        p = self.cell_px
        return round(c * p), round(r * p), round((c + 1) * p) - 1, round((r + 1) * p) - 1

    def _line(self, key, points) -> np.ndarray:
        stamp = _STAMPS.shape(
            key, (MINIMAP_SIZE, MINIMAP_SIZE), MINIMAP_WALL, lambda d: d.line(points, fill=1, width=self.wall_width)
        )
        return self._placed([stamp])[0]

    def player(self, row: int, col: int, heading: int) -> np.ndarray:
        """The player's dot and heading arrow."""
        placed = self.players.get((row, col, heading))
        if placed is not None:
            return placed
        p = self.cell_px
        x, y = (col + 0.5) * p, (row + 0.5) * p
        radius = max(2, int(p * 0.28))
        dot = _STAMPS.shape(
            ("mm-dot", self.n, row, col),
            (MINIMAP_SIZE, MINIMAP_SIZE),
            MINIMAP_PLAYER,
            lambda d: d.ellipse([x - radius, y - radius, x + radius, y + radius], fill=1),
        )
        angle = math.radians(RELEASE_ANGLES[heading])
        length = max(3, int(p * 0.42))
        tip = (x + math.cos(angle) * length, y + math.sin(angle) * length)
        arrow = _STAMPS.shape(
            ("mm-arrow", self.n, row, col, heading),
            (MINIMAP_SIZE, MINIMAP_SIZE),
            MINIMAP_ARROW,
            lambda d: d.line([(x, y), tip], fill=1, width=2),
        )
        placed = self.players[(row, col, heading)] = self._placed([dot, arrow])
        return placed

    def ops(self, state: MazeState) -> np.ndarray:
        """The minimap's stamps for a state, in the release's drawing order."""
        n, world = self.n, state.world
        seen = world.revealed_cells(state.visited)
        cells = np.flatnonzero(seen)
        rows, cols = np.divmod(cells, n)
        near = np.abs(rows - state.row) + np.abs(cols - state.col) <= state.vision_range
        colour = np.where(near, 2, 3)  # indices into MINIMAP_CELL_COLOURS: goal, start, visible, seen
        colour[cells == 0] = 1
        colour[cells == n * n - 1] = 0
        _, east_open, south_open, _ = world.open_sides
        east = (seen[:, :-1] | seen[:, 1:]) & ~east_open[:, :-1]
        south = (seen[:-1, :] | seen[1:, :]) & ~south_open[:-1, :]
        return np.concatenate(
            [
                self.first,
                self.cells[colour, cells],
                self.east_walls[east],
                self.south_walls[south],
                self.player(state.row, state.col, state.heading),
                self.last,
            ]
        )


@cache
def _minimap_kit(n: int) -> _MinimapKit:
    return _MinimapKit(n)


# -- the 2D patch -----------------------------------------------------------------------------------
def _patch_box(pr: int, pc: int) -> list[int]:
    x1, y1 = PATCH_PAD + pc * PATCH_CELL, PATCH_PAD + pr * PATCH_CELL
    return [x1, y1, x1 + PATCH_CELL - 1, y1 + PATCH_CELL - 1]


def _patch_ops(state: MazeState) -> list[tuple[int, int, int]]:
    """The release's ``_build_local_patch``: the 3x3 cells around the player, walls, player, border."""
    size = (PATCH_SIZE, PATCH_SIZE)
    n, walls, row, col = state.world.size, state.world.walls, state.row, state.col
    ops = []

    def add(key, colour, draw):
        stamp = _STAMPS.shape(key, size, colour, draw)
        ops.append((stamp.id, stamp.x, stamp.y))

    add(("patch-bg",), PATCH_BACKGROUND, lambda d: d.rectangle([0, 0, *size], fill=1))
    blocked = {}
    for side, (dr, dc) in enumerate(DELTAS):
        r, c = row + dr, col + dc
        inside = 0 <= r < n and 0 <= c < n
        blocked[(1 + dr, 1 + dc)] = not inside or bool(walls[row, col] & SIDE_BITS[side])
    for pr in range(3):
        for pc in range(3):
            if (pr, pc) == (1, 1):
                colour = PATCH_CURRENT
            elif (pr, pc) in blocked:
                r, c = row + pr - 1, col + pc - 1
                if not (0 <= r < n and 0 <= c < n):
                    colour = PATCH_OUTSIDE
                elif blocked[(pr, pc)]:
                    colour = PATCH_BLOCKED
                elif (r, c) == (n - 1, n - 1):
                    colour = PATCH_GOAL
                else:
                    colour = PATCH_OPEN
            else:
                colour = PATCH_OUTSIDE
            box = _patch_box(pr, pc)
            add(("patch-cell", pr, pc, colour), colour, lambda d, box=box: d.rectangle(box, fill=1))
    x1, y1, x2, y2 = _patch_box(1, 1)
    edges = {(0, 1): [(x1, y1), (x2, y1)], (2, 1): [(x1, y2), (x2, y2)], (1, 0): [(x1, y1), (x1, y2)], (1, 2): [(x2, y1), (x2, y2)]}  # fmt: skip
    wall_width = max(2, round(PATCH_CELL * 0.10))
    for cell, points in edges.items():
        if blocked[cell]:
            add(("patch-wall", cell), PATCH_WALL, lambda d, points=points: d.line(points, fill=1, width=wall_width))
    centre = PATCH_PAD + PATCH_CELL + PATCH_CELL // 2
    radius = max(3, int(PATCH_CELL * 0.22))
    add(("patch-dot",), PATCH_DOT, lambda d: d.ellipse([centre - radius, centre - radius, centre + radius, centre + radius], fill=1))  # fmt: skip
    angle = math.radians(RELEASE_ANGLES[state.heading])
    length = int(PATCH_CELL * 0.40)
    tip = (centre + int(math.cos(angle) * length), centre + int(math.sin(angle) * length))
    add(("patch-arrow", state.heading), PATCH_ARROW, lambda d: d.line([(centre, centre), tip], fill=1, width=3))
    last = PATCH_SIZE - 1
    add(("patch-border",), PATCH_BORDER, lambda d: d.rectangle([0, 0, last, last], outline=1, width=2))
    return ops


# -- frames -------------------------------------------------------------------------------------------
def _check(states: Sequence[MazeState]) -> None:
    for i, s in enumerate(states):
        n = s.world.size
        if not (0 <= s.row < n and 0 <= s.col < n and 0 <= s.heading < 4):
            raise ValueError(f"state {i}: the pose ({s.row}, {s.col}, {s.heading}) is not in the {n}x{n} maze")
        if s.visited.shape != (n, n):
            raise ValueError(f"state {i}: visited must be an ({n}, {n}) bool array")
        if s.vision_range < 1:
            raise ValueError(f"state {i}: vision_range must be at least 1, got {s.vision_range}")


def frames(
    states: Sequence[MazeState],
    minimap: bool = False,
    show_goal: bool = False,
    threads: int = 0,
    out: Optional[np.ndarray] = None,
) -> np.ndarray:
    """The release's ``render_frame(show_minimap=minimap, show_hud=True)`` for each state: (N, 420, 640, 3),
    drawn into ``out`` if given (a batch's frames are 0.8 MB each: reusing an array saves its page faults)."""
    _check(states)
    scenes: dict[int, int] = {}
    grids, views, ends, ops = [], [], [], []
    pil_huds, count = [], 0
    for i, s in enumerate(states):
        scene = scenes.setdefault(id(s.world), len(grids))
        if scene == len(grids):
            grids.append(s.world.grid)
        n = s.world.size
        views.append((scene, 2 * s.row + 1, 2 * s.col + 1, s.heading, s.vision_range, show_goal, 2 * n - 1, 2 * n - 1))
        if minimap:
            ops.append(_minimap_kit(n).ops(s))
            count += len(ops[-1])
        hud, apart = _hud_ops(s)
        if not apart:
            pil_huds.append(i)
        ops.append(hud)
        count += len(hud)
        ends.append(count)
    out = _output(out, (len(states),) + FRAME_SHAPE)
    if not len(states):
        return out
    _STAMPS.core.draw(
        grids,
        np.asarray(views, np.int32),
        np.asarray(ends, np.int64),
        np.concatenate(ops),
        out,
        threads,
    )
    for i in pil_huds:
        image = Image.fromarray(out[i])
        draw_hud(image, states[i])
        out[i] = np.asarray(image)
    return out


def patches(states: Sequence[MazeState], threads: int = 0, out: Optional[np.ndarray] = None) -> np.ndarray:
    """The release's ``_build_local_patch()`` for each state: (N, 188, 188, 3), into ``out`` if given."""
    _check(states)
    ops, ends = [], []
    for s in states:
        ops.extend(_patch_ops(s))
        ends.append(len(ops))
    out = _output(out, (len(states), PATCH_SIZE, PATCH_SIZE, 3))
    if len(states):
        views = np.tile(np.array([-1, 0, 0, 0, 0, 0, 0, 0], np.int32), (len(states), 1))
        _STAMPS.core.draw([], views, np.asarray(ends, np.int64), np.asarray(ops, np.int32).reshape(-1, 3), out, threads)
    return out


def _output(out: Optional[np.ndarray], shape: tuple) -> np.ndarray:
    if out is None:
        return np.empty(shape, np.uint8)
    if not (isinstance(out, np.ndarray) and out.shape == shape and out.dtype == np.uint8 and out.flags.c_contiguous):
        raise ValueError(f"out must be a C-contiguous uint8 array of shape {shape}")
    return out


# The names of cogsim's own look, which this module held before the release's picture took its name.
__getattr__ = names_moved_to(__name__, "cogsim.benchmarks.rngbench.maze.cogsim_look")
