"""Egocentric 3D maze views, top-down minimaps and local patches.

Maze input: ``walls`` is an (n, n) uint8 array, one cell per entry (row 0 at the north, column 0
at the west), with wall bits NORTH=1, EAST=2, SOUTH=4, WEST=8; a wall between two cells must be set
in both. Headings are 0..3 = north, east, south, west. Optional ``wall_tags`` (n, n, 4) uint8 gives
each cell side (N, E, S, W) a colour tag, 0 for none and 1..8 for TAG_COLOURS.

World space: x = column, z = row, y = up; walls are 1 unit high. The geometry of every maze in a
:class:`MazeSet` lives in one vertex buffer, built once; ``views`` draws N views with one
multi-draw-indirect call (one command per view, each command's base instance selecting that view's
camera and tile) and reads all frames back at once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from importlib import resources
from typing import Optional, Sequence, Union

import moderngl
import numpy as np

from cogsim.render import Canvas, Renderer, as_batch, checks, gl, scene_kind

NORTH, EAST, SOUTH, WEST = 1, 2, 4, 8
SIDE_BITS = (NORTH, EAST, SOUTH, WEST)
HEADINGS = ("north", "east", "south", "west")
MAX_CELLS = 64
TAG_COLOURS = (
    (214, 40, 40),
    (40, 170, 70),
    (40, 90, 220),
    (240, 200, 30),
    (150, 60, 200),
    (30, 190, 200),
    (245, 130, 20),
    (240, 100, 170),
)
WALL_COLOUR = (206, 196, 176)
FLOOR_COLOUR = (150, 128, 104)
CEILING_COLOUR = (96, 106, 128)
GOAL_TILE_COLOUR = (60, 220, 120)
GOAL_GEM_COLOUR = (255, 196, 30)
FOG_COLOUR = (18, 18, 26)
FOG_DENSITY = 0.22
WALL, FLOOR, CEILING, GOAL = 0, 1, 2, 3
_VERTEX_FORMAT = "3f 3f 3f 2f 1f"
_VERTEX_ATTRIBUTES = ("in_position", "in_normal", "in_colour", "in_uv", "in_material")


def _check_walls(walls) -> np.ndarray:
    walls = np.asarray(walls)
    if walls.ndim != 2 or walls.shape[0] != walls.shape[1] or not 1 <= walls.shape[0] <= MAX_CELLS:
        raise ValueError(f"walls must be an (n, n) array with n in [1, {MAX_CELLS}], got shape {walls.shape}")
    if walls.dtype.kind not in "iu" or walls.min() < 0 or walls.max() > 15:
        raise ValueError("walls must hold integer wall bits in [0, 15] (N=1, E=2, S=4, W=8)")
    walls = walls.astype(np.uint8)
    if ((walls[:, :-1] & EAST) != 0).tolist() != ((walls[:, 1:] & WEST) != 0).tolist() or (
        ((walls[:-1, :] & SOUTH) != 0).tolist() != ((walls[1:, :] & NORTH) != 0).tolist()
    ):
        raise ValueError("walls must be consistent: a wall between two cells is set on both sides (E/W and S/N bits)")
    return walls


def _check_cell(name: str, cell, n: int) -> tuple[int, int]:
    if cell is None or len(cell) != 2:
        raise ValueError(f"{name} must be a (row, col) pair, got {cell!r}")
    return checks.integer(f"{name} row", cell[0], 0, n - 1), checks.integer(f"{name} col", cell[1], 0, n - 1)


@dataclass(frozen=True)
class Maze:
    walls: np.ndarray
    goal: Optional[tuple[int, int]] = None
    wall_tags: Optional[np.ndarray] = None

    def validate(self) -> "Maze":
        walls = _check_walls(self.walls)
        if self.goal is not None:
            _check_cell("goal", self.goal, walls.shape[0])
        if self.wall_tags is not None:
            tags = np.asarray(self.wall_tags)
            if tags.shape != walls.shape + (4,) or tags.min() < 0 or tags.max() > len(TAG_COLOURS):
                raise ValueError(f"wall_tags must be an (n, n, 4) array with values in [0, {len(TAG_COLOURS)}]")
        return self

    @property
    def size(self) -> int:
        return int(np.shape(self.walls)[0])


def maze_geometry(maze: Maze) -> np.ndarray:
    """Vertices (float32, 12 per vertex) of walls, floor, ceiling and goal marker, as triangles."""
    walls = np.asarray(maze.walls, dtype=np.uint8)
    n = walls.shape[0]
    parts = [_wall_quads(walls, maze.wall_tags)]
    parts.append(_horizontal_quad(0, 0, n, n, 0.0, (0, 1, 0), FLOOR_COLOUR, FLOOR))
    parts.append(_horizontal_quad(0, 0, n, n, 1.0, (0, -1, 0), CEILING_COLOUR, CEILING))
    if maze.goal is not None:
        row, col = maze.goal
        parts.append(
            _horizontal_quad(col + 0.1, row + 0.1, col + 0.9, row + 0.9, 0.004, (0, 1, 0), GOAL_TILE_COLOUR, GOAL)
        )
        parts.append(_gem(col + 0.5, row + 0.5))
    return np.concatenate(parts).astype(np.float32)


# Per side: segment start and end (x, z) relative to the cell's north-west corner, and the
# normal pointing into the cell.
_SIDES = (
    ((0, 0), (1, 0), (0, 0, 1)),  # north
    ((1, 0), (1, 1), (-1, 0, 0)),  # east
    ((1, 1), (0, 1), (0, 0, -1)),  # south
    ((0, 1), (0, 0), (1, 0, 0)),  # west
)


def _wall_quads(walls: np.ndarray, tags: Optional[np.ndarray]) -> np.ndarray:
    quads = []
    for side, (start, end, normal) in enumerate(_SIDES):
        rows, cols = np.nonzero(walls & SIDE_BITS[side])
        if len(rows) == 0:
            continue
        colours = np.tile(np.array(WALL_COLOUR, dtype=np.float32) / 255, (len(rows), 1))
        if tags is not None:
            tag = np.asarray(tags)[rows, cols, side]
            palette = np.array(((0, 0, 0),) + TAG_COLOURS, dtype=np.float32) / 255
            colours = np.where((tag > 0)[:, None], palette[tag], colours)
        x0, z0 = cols + start[0], rows + start[1]
        x1, z1 = cols + end[0], rows + end[1]
        corners = [(x0, 0.0, z0, 0, 0), (x1, 0.0, z1, 1, 0), (x1, 1.0, z1, 1, 1), (x0, 1.0, z0, 0, 1)]
        quads.append(_quads_to_triangles(corners, normal, colours, WALL, len(rows)))
    return np.concatenate(quads) if quads else np.zeros((0, 12), dtype=np.float32)


def _quads_to_triangles(corners, normal, colours, material, count) -> np.ndarray:
    """corners: 4 tuples (x, y, z, u, v) of arrays or scalars -> (count * 6, 12) vertices."""
    vertices = np.empty((count, 6, 12), dtype=np.float32)
    for slot, corner in enumerate((0, 1, 2, 0, 2, 3)):
        x, y, z, u, v = corners[corner]
        vertices[:, slot, 0], vertices[:, slot, 1], vertices[:, slot, 2] = x, y, z
        vertices[:, slot, 3:6] = normal
        vertices[:, slot, 6:9] = colours
        vertices[:, slot, 9], vertices[:, slot, 10] = u, v
        vertices[:, slot, 11] = material
    return vertices.reshape(-1, 12)


def _horizontal_quad(x0, z0, x1, z1, y, normal, colour, material) -> np.ndarray:
    corners = [(x0, y, z0, 0, 0), (x1, y, z0, 1, 0), (x1, y, z1, 1, 1), (x0, y, z1, 0, 1)]
    return _quads_to_triangles(corners, normal, np.array(colour, dtype=np.float32) / 255, material, 1)


def _gem(x: float, z: float) -> np.ndarray:
    """An octahedron floating over the goal cell, flat-shaded, drawn from both sides."""
    top, bottom, radius = (x, 0.78, z), (x, 0.22, z), 0.2
    ring = [(x + radius * math.cos(a), 0.5, z + radius * math.sin(a)) for a in np.arange(4) * math.pi / 2]
    triangles = []
    for i in range(4):
        a, b = ring[i], ring[(i + 1) % 4]
        triangles += [(top, a, b), (bottom, b, a)]
    vertices = np.zeros((len(triangles), 3, 12), dtype=np.float32)
    corners = np.array(triangles, dtype=np.float32)
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    vertices[:, :, 0:3] = corners
    vertices[:, :, 3:6] = (normals / np.linalg.norm(normals, axis=1, keepdims=True))[:, None, :]
    vertices[:, :, 6:9] = np.array(GOAL_GEM_COLOUR) / 255
    vertices[:, :, 11] = GOAL
    return vertices.reshape(-1, 12)


@dataclass(frozen=True)
class ViewOptions:
    width: int = 128
    height: int = 128
    fov: float = 90.0  # horizontal field of view, degrees
    eye_height: float = 0.5  # wall height is 1
    eye_back: float = 0.3  # camera distance behind the cell centre, so the cell's side walls show

    def validate(self) -> "ViewOptions":
        checks.integer("width", self.width, 8, 4096)
        checks.integer("height", self.height, 8, 4096)
        checks.number("fov", self.fov, 20.0, 150.0)
        checks.number("eye_height", self.eye_height, 0.05, 0.95)
        checks.number("eye_back", self.eye_back, 0.0, 0.45)
        return self


def _shader_source(name: str) -> str:
    return resources.files(__package__).joinpath("shaders", name).read_text()


class MazePipeline:
    def __init__(self, ctx: moderngl.Context):
        self.ctx = ctx
        self.program = ctx.program(
            vertex_shader=_shader_source("maze.vert"), fragment_shader=_shader_source("maze.frag")
        )
        self.program["u_fog_colour"] = tuple(c / 255 for c in FOG_COLOUR)
        self.program["u_fog_density"] = FOG_DENSITY
        self.targets = gl.Targets(ctx, depth=True)


class MazeSet:
    """The geometry of some mazes on the GPU, built once; renders batches of egocentric views."""

    def __init__(self, pipeline: MazePipeline, mazes: Sequence[Maze]):
        if not mazes:
            raise ValueError("mazes must hold at least one maze")
        self.pipeline = pipeline
        self.mazes = list(mazes)
        geometry = [maze_geometry(m) for m in self.mazes]
        counts = np.array([len(g) for g in geometry], dtype=np.int64)
        self.first = np.concatenate(([0], np.cumsum(counts)[:-1]))
        self.count = counts
        ctx = pipeline.ctx
        gl.make_current(ctx)
        self.vertices = ctx.buffer(np.concatenate(geometry).tobytes())
        self.cameras = ctx.buffer(reserve=64 * 20, dynamic=True)
        self.commands = ctx.buffer(reserve=64 * 20, dynamic=True)
        self.vao = ctx.vertex_array(
            pipeline.program,
            [(self.vertices, _VERTEX_FORMAT, *_VERTEX_ATTRIBUTES), (self.cameras, "4f 1f /i", "in_eye", "in_tile")],
        )

    def release(self) -> None:
        gl.make_current(self.pipeline.ctx)
        for resource in (self.vao, self.vertices, self.cameras, self.commands):
            resource.release()

    def views(
        self,
        maze: Union[int, Sequence[int]],
        row: Union[int, Sequence[int]],
        col: Union[int, Sequence[int]],
        heading: Union[int, Sequence[int]],
        options: ViewOptions = ViewOptions(),
    ) -> np.ndarray:
        """First-person frames (N, H, W, 3) uint8; scalar arguments broadcast against arrays."""
        options = options.validate()
        maze_index, rows, cols, headings = self._check_views(maze, row, col, heading)
        eyes = _eyes(rows, cols, headings, options)
        tiles = gl.layout(len(rows), options.width, options.height)
        frames = np.empty((len(rows), options.height, options.width, 3), dtype=np.uint8)
        for start in range(0, len(rows), tiles.per_pass):
            stop = min(start + tiles.per_pass, len(rows))
            self._draw_pass(maze_index[start:stop], eyes[start:stop], tiles, options, frames[start:stop])
        return frames

    def _check_views(self, maze, row, col, heading):
        try:
            arrays = np.broadcast_arrays(*(np.atleast_1d(np.asarray(a)) for a in (maze, row, col, heading)))
        except ValueError:
            raise ValueError("maze, row, col and heading must be scalars or arrays of one length N") from None
        names = ("maze", "row", "col", "heading")
        for name, array in zip(names, arrays):
            if array.ndim != 1 or array.dtype.kind not in "iu":
                raise ValueError(
                    f"{name} must be an integer or a 1-D integer array, got {array.dtype} shape {array.shape}"
                )
        maze_index, rows, cols, headings = (a.astype(np.int64) for a in arrays)
        _range("maze", maze_index, 0, len(self.mazes) - 1)
        _range("heading", headings, 0, 3)
        sizes = np.array([m.size for m in self.mazes])[maze_index]
        for name, values in (("row", rows), ("col", cols)):
            bad = np.nonzero((values < 0) | (values >= sizes))[0]
            if len(bad):
                i = bad[0]
                raise ValueError(
                    f"{name} must be in [0, {sizes[i] - 1}] for maze {maze_index[i]}, got {values[i]} (view {i})"
                )
        return maze_index, rows, cols, headings

    def _draw_pass(self, maze_index, eyes, tiles: gl.TileLayout, options: ViewOptions, out: np.ndarray) -> None:
        ctx, program = self.pipeline.ctx, self.pipeline.program
        count = len(maze_index)
        cameras = np.concatenate([eyes, np.arange(count, dtype=np.float32)[:, None]], axis=1).astype(np.float32)
        # DrawArraysIndirectCommand (count, instances, first, base instance); moderngl always
        # passes a 20-byte stride, so each command carries one unused word.
        commands = np.zeros((count, 5), dtype=np.uint32)
        commands[:, 0], commands[:, 1] = self.count[maze_index], 1
        commands[:, 2], commands[:, 3] = self.first[maze_index], np.arange(count)
        gl.make_current(ctx)
        _write(self.cameras, cameras)
        _write(self.commands, commands)
        program["u_focal"] = 1.0 / math.tan(math.radians(options.fov) / 2)
        program["u_aspect"] = options.width / options.height
        program["u_near"], program["u_far"] = 0.02, 200.0
        program["u_frame_size"] = (options.width, options.height)
        program["u_target_size"] = tiles.target_size
        program["u_columns"] = tiles.columns
        target = self.pipeline.targets.get(tiles.target_size)
        target.use()
        target.clear(*(c / 255 for c in FOG_COLOUR), 1.0, depth=1.0)
        ctx.enable_only(moderngl.DEPTH_TEST)
        for plane in range(4):
            ctx.enable_direct(_GL_CLIP_DISTANCE0 + plane)
        self.vao.render_indirect(self.commands, moderngl.TRIANGLES, count=count)
        for plane in range(4):
            ctx.disable_direct(_GL_CLIP_DISTANCE0 + plane)
        gl.read_frames(target, tiles, out)


_GL_CLIP_DISTANCE0 = 0x3000


def _range(name: str, values: np.ndarray, low: int, high: int) -> None:
    bad = np.nonzero((values < low) | (values > high))[0]
    if len(bad):
        raise ValueError(f"{name} must be in [{low}, {high}], got {values[bad[0]]} (view {bad[0]})")


def _write(buffer: moderngl.Buffer, data: np.ndarray) -> None:
    if data.nbytes > buffer.size:
        buffer.orphan(max(data.nbytes, 2 * buffer.size))
    buffer.write(data.tobytes())


def _eyes(rows, cols, headings, options: ViewOptions) -> np.ndarray:
    yaw = headings * (math.pi / 2)
    forward_x, forward_z = np.sin(yaw), -np.cos(yaw)
    x = cols + 0.5 - forward_x * options.eye_back
    z = rows + 0.5 - forward_z * options.eye_back
    return np.stack([x, np.full_like(x, options.eye_height, dtype=np.float64), z, yaw], axis=1).astype(np.float32)


# ---- top-down views (2D, drawn by the quad pipeline) ----

MAP_BACKGROUND = (26, 28, 36)
MAP_UNVISITED = (58, 62, 76)
MAP_VISITED = (110, 140, 186)
MAP_CURRENT = (250, 206, 84)
MAP_WALL = (240, 240, 240)
MAP_OUTSIDE = (12, 12, 16)
MAP_AGENT = (220, 40, 40)
MAP_GOAL = (60, 220, 120)


@dataclass(frozen=True)
class MapView:
    """What a top-down view shows: the agent in a maze, optionally what it has visited and seen."""

    walls: np.ndarray
    row: int
    col: int
    heading: int
    visited: Optional[np.ndarray] = None  # (n, n) bool; None: only the current cell
    seen: Optional[np.ndarray] = None  # (n, n, 4) bool per cell side; None: every wall is shown
    goal: Optional[tuple[int, int]] = None  # drawn when given (pass it only once it is known)

    def validate(self) -> "MapView":
        walls = _check_walls(self.walls)
        n = walls.shape[0]
        _check_cell("agent", (self.row, self.col), n)
        checks.integer("heading", self.heading, 0, 3)
        if self.goal is not None:
            _check_cell("goal", self.goal, n)
        if self.visited is not None and np.shape(self.visited) != (n, n):
            raise ValueError(f"visited must be an ({n}, {n}) bool array, got shape {np.shape(self.visited)}")
        if self.seen is not None and np.shape(self.seen) != (n, n, 4):
            raise ValueError(f"seen must be an ({n}, {n}, 4) bool array, got shape {np.shape(self.seen)}")
        return self


def check_radius(radius: int) -> int:
    return checks.integer("radius", radius, 1, 8)


def draw_minimap(canvas: Canvas, view: MapView, size: int) -> None:
    walls = np.asarray(view.walls)
    n = walls.shape[0]
    margin = 0.04 * size
    cell = (size - 2 * margin) / n
    canvas.box((0, 0, size, size), MAP_BACKGROUND)
    visited = np.zeros((n, n), bool) if view.visited is None else np.asarray(view.visited, bool)
    for r in range(n):
        for c in range(n):
            colour = MAP_VISITED if visited[r, c] else MAP_UNVISITED
            x0, y0 = margin + c * cell, margin + r * cell
            canvas.box((x0 + 0.04 * cell, y0 + 0.04 * cell, x0 + 0.96 * cell, y0 + 0.96 * cell), colour)
    _cell_marker(canvas, margin + view.col * cell, margin + view.row * cell, cell, MAP_CURRENT)
    shown = walls if view.seen is None else _seen_bits(walls, np.asarray(view.seen, bool))
    _walls(canvas, shown, margin, margin, cell, range(n), range(n))
    if view.goal is not None:
        _goal(canvas, margin + view.goal[1] * cell, margin + view.goal[0] * cell, cell)
    _agent(canvas, margin + view.col * cell, margin + view.row * cell, cell, view.heading)


def draw_patch(canvas: Canvas, view: MapView, radius: int, size: int) -> None:
    """The (2r+1)^2 cells around the agent, north up; cells beyond the maze are dark."""
    walls = np.asarray(view.walls)
    n = walls.shape[0]
    side = 2 * radius + 1
    cell = size / side
    canvas.box((0, 0, size, size), MAP_OUTSIDE)
    rows = range(view.row - radius, view.row + radius + 1)
    cols = range(view.col - radius, view.col + radius + 1)
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            if 0 <= r < n and 0 <= c < n:
                x0, y0 = j * cell, i * cell
                tone = MAP_UNVISITED if (r + c) % 2 else tuple(v + 10 for v in MAP_UNVISITED)
                canvas.box((x0, y0, x0 + cell, y0 + cell), tone)
    ox, oy = -(view.col - radius) * cell, -(view.row - radius) * cell
    _walls(canvas, walls, ox, oy, cell, [r for r in rows if 0 <= r < n], [c for c in cols if 0 <= c < n])
    if view.goal is not None and view.goal[0] in rows and view.goal[1] in cols:
        _goal(canvas, ox + view.goal[1] * cell, oy + view.goal[0] * cell, cell)
    _agent(canvas, radius * cell, radius * cell, cell, view.heading)


def _seen_bits(walls: np.ndarray, seen: np.ndarray) -> np.ndarray:
    bits = np.zeros_like(walls)
    for side, bit in enumerate(SIDE_BITS):
        bits |= np.where(seen[:, :, side], walls & bit, 0).astype(np.uint8)
    return bits


def _walls(canvas: Canvas, walls: np.ndarray, ox: float, oy: float, cell: float, rows, cols) -> None:
    t = max(1.5, 0.08 * cell)
    for r in rows:
        for c in cols:
            x0, y0, x1, y1 = ox + c * cell, oy + r * cell, ox + (c + 1) * cell, oy + (r + 1) * cell
            bits = walls[r, c]
            if bits & NORTH:
                canvas.box((x0 - t / 2, y0 - t / 2, x1 + t / 2, y0 + t / 2), MAP_WALL)
            if bits & SOUTH:
                canvas.box((x0 - t / 2, y1 - t / 2, x1 + t / 2, y1 + t / 2), MAP_WALL)
            if bits & WEST:
                canvas.box((x0 - t / 2, y0 - t / 2, x0 + t / 2, y1 + t / 2), MAP_WALL)
            if bits & EAST:
                canvas.box((x1 - t / 2, y0 - t / 2, x1 + t / 2, y1 + t / 2), MAP_WALL)


def _cell_marker(canvas: Canvas, x0: float, y0: float, cell: float, colour) -> None:
    canvas.box((x0 + 0.04 * cell, y0 + 0.04 * cell, x0 + 0.96 * cell, y0 + 0.96 * cell), colour)


def _goal(canvas: Canvas, x0: float, y0: float, cell: float) -> None:
    canvas.shape("diamond", (x0 + 0.2 * cell, y0 + 0.2 * cell, x0 + 0.8 * cell, y0 + 0.8 * cell), MAP_GOAL)


def _agent(canvas: Canvas, x0: float, y0: float, cell: float, heading: int) -> None:
    # The shader rotates sample points, so a clockwise turn of the arrow is a negative angle.
    rect = (x0 + 0.15 * cell, y0 + 0.15 * cell, x0 + 0.85 * cell, y0 + 0.85 * cell)
    canvas.shape("triangle", rect, MAP_AGENT, rotation=-heading * math.pi / 2)


# -- the scene kinds this look adds to the renderer ------------------------------------------------


@scene_kind("mazes")
def mazes(renderer: Renderer, mazes: Union[Maze, Sequence[Maze]]) -> MazeSet:
    """``renderer.mazes(mazes)``: uploads the geometry of ``mazes`` once; render views from it with
    ``.views(...)``."""
    return MazeSet(renderer.pipeline("maze", MazePipeline), [m.validate() for m in as_batch(mazes, Maze)])


@scene_kind("minimap")
def minimaps(renderer: Renderer, views: Union[MapView, Sequence[MapView]], size: int = 256) -> np.ndarray:
    """``renderer.minimap(views, size)``: top-down maps of the whole maze, (N, size, size, 3)."""
    views = [view.validate() for view in as_batch(views, MapView)]
    _check_size(size)
    return renderer.draw_2d(views, (size, size), lambda canvas, v: draw_minimap(canvas, v, size))


@scene_kind("patch")
def patches(
    renderer: Renderer, views: Union[MapView, Sequence[MapView]], radius: int = 2, size: int = 256
) -> np.ndarray:
    """``renderer.patch(views, radius, size)``: the cells within ``radius`` of the agent, (N, size, size, 3)."""
    views = [view.validate() for view in as_batch(views, MapView)]
    _check_size(size)
    check_radius(radius)
    return renderer.draw_2d(views, (size, size), lambda canvas, v: draw_patch(canvas, v, radius, size))


def _check_size(size: int) -> None:
    checks.integer("size", size, 16, 4096)


# -- example scenes, for `cogsim render`, tests and benchmarks -------------------------------------


def _rng(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


def example_maze(seed: int, n: int = 8, tagged: bool = True) -> Maze:
    """A perfect maze (depth-first spanning tree), goal at the bottom-right; some walls tagged."""
    rng = _rng(seed)
    walls = np.full((n, n), 15, dtype=np.uint8)
    steps = (
        (-1, 0, NORTH, SOUTH),
        (0, 1, EAST, WEST),
        (1, 0, SOUTH, NORTH),
        (0, -1, WEST, EAST),
    )
    visited = np.zeros((n, n), bool)
    stack = [(0, 0)]
    visited[0, 0] = True
    while stack:
        r, c = stack[-1]
        options = [
            (r + dr, c + dc, a, b)
            for dr, dc, a, b in steps
            if 0 <= r + dr < n and 0 <= c + dc < n and not visited[r + dr, c + dc]
        ]
        if not options:
            stack.pop()
            continue
        nr, nc, here, there = options[int(rng.integers(len(options)))]
        walls[r, c] &= 15 ^ here
        walls[nr, nc] &= 15 ^ there
        visited[nr, nc] = True
        stack.append((nr, nc))
    tags = None
    if tagged:
        tags = np.where(rng.random((n, n, 4)) < 0.12, rng.integers(1, len(TAG_COLOURS) + 1, (n, n, 4)), 0).astype(
            np.uint8
        )
    return Maze(walls, goal=(n - 1, n - 1), wall_tags=tags)


def example_map_view(seed: int, n: int = 8) -> MapView:
    """An agent part-way along a random walk: visited cells and the walls of those cells seen."""
    m = example_maze(seed, n, tagged=False)
    rng = _rng(seed + 1)
    walls = np.asarray(m.walls)
    moves = ((-1, 0, NORTH), (0, 1, EAST), (1, 0, SOUTH), (0, -1, WEST))
    visited = np.zeros((n, n), bool)
    r = c = heading = 0
    visited[0, 0] = True
    for _ in range(3 * n):
        open_moves = [(h, dr, dc) for h, (dr, dc, bit) in enumerate(moves) if not walls[r, c] & bit]
        heading, dr, dc = open_moves[int(rng.integers(len(open_moves)))]
        r, c = r + dr, c + dc
        visited[r, c] = True
    seen = np.repeat(visited[:, :, None], 4, axis=2)
    return MapView(walls, r, c, heading, visited=visited, seen=seen, goal=m.goal)


def example_view(seed: int, n: int = 8) -> tuple[Maze, int, int, int]:
    """A maze and a view in it (row, col, heading) that looks down an open direction."""
    m = example_maze(seed, n)
    rng = _rng(seed + 2)
    walls = np.asarray(m.walls)
    r, c = (int(v) for v in rng.integers(0, n, 2))
    open_headings = [h for h, bit in enumerate(SIDE_BITS) if not walls[r, c] & bit]
    return m, r, c, int(open_headings[int(rng.integers(len(open_headings)))])
