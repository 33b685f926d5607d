"""The GPU side of 2D scenes: instanced quads into tiled frames."""

from __future__ import annotations

from typing import Optional, Sequence

import moderngl
import numpy as np

from cogsim.render import _context, _tiles
from cogsim.render._assets import AtlasSet, shader_source
from cogsim.render._canvas import KIND_PATTERN, KIND_SHAPE, Canvas

_PATTERN_COLUMN, _KIND_COLUMN, _SHAPE_COLUMN, _TILE_COLUMN = 4, 16, 17, 19
_VARIANTS = 16  # program key = kind * _VARIANTS + variant

_INSTANCE_FORMAT = "4f 4f 4f 4f 4f /i"
_INSTANCE_ATTRIBUTES = ("in_rect", "in_uv", "in_color", "in_color2", "in_params")


class QuadPipeline:
    def __init__(self, ctx: moderngl.Context, atlases: AtlasSet):
        self.ctx = ctx
        self._vertex_source = shader_source("quad.vert")
        self._fragment_source = shader_source("quad.frag")
        self.sprites = _texture(ctx, atlases.sprite_pixels, 4)
        self.glyphs = _texture(ctx, atlases.glyph_pixels, 1)
        corners = np.array([0, 0, 1, 0, 0, 1, 1, 1], dtype="f4")
        self.corners = ctx.buffer(corners.tobytes())
        self.instances = ctx.buffer(reserve=1 << 16, dynamic=True)
        self.commands = ctx.buffer(reserve=1 << 12, dynamic=True)
        self._programs: dict[int, tuple[moderngl.Program, moderngl.VertexArray]] = {}
        self._targets = _tiles.Targets(ctx, depth=False)

    def _program(self, key: int) -> tuple[moderngl.Program, moderngl.VertexArray]:
        """The program for one kind and variant, compiled on first use."""
        if key not in self._programs:
            kind, variant = divmod(key, _VARIANTS)
            defines = f"\n#define KIND {kind}\n#define VARIANT {variant}\n"
            program = self.ctx.program(
                vertex_shader=self._vertex_source, fragment_shader=self._fragment_source.replace("\n", defines, 1)
            )
            for name, unit in (("u_sprites", 0), ("u_glyphs", 1)):
                if name in program:
                    program[name] = unit
            vao = self.ctx.vertex_array(
                program,
                [(self.corners, "2f", "in_corner"), (self.instances, _INSTANCE_FORMAT, *_INSTANCE_ATTRIBUTES)],
                skip_errors=True,  # each specialised program uses only some attributes
            )
            self._programs[key] = program, vao
        return self._programs[key]

    def draw(
        self, canvas: Canvas, count: int, bases: Optional[Sequence[np.ndarray]] = None, components: int = 3
    ) -> np.ndarray:
        """Renders frames 0..count-1 of ``canvas``; returns (count, H, W, components) uint8.

        ``bases``: one RGBA (H, W, 4) frame per frame, drawn before (a frame of ``components=4``);
        the canvas is drawn over it. Without bases frames start black.
        """
        return self.draw_instances(canvas.instances(), (canvas.width, canvas.height), count, bases, components)

    def draw_parts(self, parts: Sequence[tuple[np.ndarray, Optional[Sequence[np.ndarray]], np.ndarray]], size):
        """The frames of several canvases of one size, in as few passes as one canvas of them all:
        ``parts`` holds (instance rows, bases or None, output frames) per canvas. Frames come out as
        each part alone would draw them (see shaders/quad.vert)."""
        if len(parts) == 1:
            data, bases, out = parts[0]
            self.draw_instances(data, size, len(out), bases, out=out)
            return
        rows, all_bases, first = [], [], 0
        with_bases = any(bases is not None for _, bases, _ in parts)
        black = None
        for data, bases, out in parts:
            count = len(out)
            shifted = data.copy()
            shifted[:, _TILE_COLUMN] += first
            rows.append(shifted)
            if with_bases and bases is None and black is None:
                black = np.zeros((size[1], size[0], 4), dtype=np.uint8)
                black[..., 3] = 255  # what a pass without bases clears to
            if with_bases:
                all_bases.extend(bases if bases is not None else [black] * count)
            first += count
        frames = self.draw_instances(np.concatenate(rows), size, first, all_bases if with_bases else None)
        first = 0
        for _, _, out in parts:
            out[...] = frames[first : first + len(out)]
            first += len(out)

    def draw_instances(
        self,
        data: np.ndarray,
        size: tuple[int, int],
        count: int,
        bases: Optional[Sequence[np.ndarray]] = None,
        components: int = 3,
        out: Optional[np.ndarray] = None,
    ) -> np.ndarray:
        """:meth:`draw` from a canvas's instance rows (frame column ascending), as ``Canvas.instances``
        gives them; into ``out`` (count, H, W, components) when given."""
        width, height = size
        tiles = _tiles.layout(count, width, height)
        frames = np.empty((count, height, width, components), dtype=np.uint8) if out is None else out
        # Scenes add their items frame by frame, so each pass is one contiguous slice.
        bounds = np.searchsorted(data[:, _TILE_COLUMN], np.arange(0, count + tiles.per_pass, tiles.per_pass) - 0.5)
        for start in range(0, count, tiles.per_pass):
            n = min(tiles.per_pass, count - start)
            rows = data[bounds[start // tiles.per_pass] : bounds[start // tiles.per_pass + 1]].copy()
            rows[:, _TILE_COLUMN] -= start
            pass_bases = None if bases is None else bases[start : start + n]
            self._draw_pass(rows, tiles, pass_bases, frames[start : start + n])
        return frames

    def _draw_pass(
        self, rows: np.ndarray, tiles: _tiles.TileLayout, bases: Optional[Sequence], out: np.ndarray
    ) -> None:
        _context.make_current(self.ctx)
        target = self._targets.get(tiles.target_size)
        target.use()
        if bases is None:
            target.clear(0.0, 0.0, 0.0, 1.0)
        else:
            _tiles.write_frames(target.color_attachments[0], tiles, bases)
        if len(rows):
            rows, groups = _group_by_kind(rows)
            _write(self.instances, rows)
            _write(self.commands, groups[:, 1:])
            self.sprites.use(0)
            self.glyphs.use(1)
            self.ctx.enable_only(moderngl.BLEND)
            self.ctx.blend_func = moderngl.ONE, moderngl.ONE_MINUS_SRC_ALPHA
            side = _tiles.VIEWPORT_SIZE  # larger than the target: see quad.vert
            self.ctx.viewport = (0, 0, side, side)
            for key, first, stop in _runs(groups[:, 0]):
                program, vao = self._program(key)
                program["u_frame_size"] = (tiles.width, tiles.height)
                program["u_viewport_size"] = (side, side)
                program["u_columns"] = tiles.columns
                vao.render_indirect(self.commands, moderngl.TRIANGLE_STRIP, count=stop - first, first=first)
        _tiles.read_frames(target, tiles, out)


def _group_by_kind(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Reorders instances into few draws of one program each without changing what any frame shows.

    Within a frame, items keep their order; a frame's k-th run of items for one program is drawn
    together with the k-th runs of the other frames (frames never overlap). Returns the reordered
    rows and one indirect command per group: (program key, 4 vertices, instances, first vertex 0,
    base instance, 0) - moderngl reads indirect commands with a 20-byte stride.
    """
    keys = rows[:, _KIND_COLUMN].astype(np.int64) * _VARIANTS
    keys += np.where(keys == KIND_SHAPE * _VARIANTS, rows[:, _SHAPE_COLUMN], 0).astype(np.int64)
    keys += np.where(keys == KIND_PATTERN * _VARIANTS, rows[:, _PATTERN_COLUMN], 0).astype(np.int64)
    frames = rows[:, _TILE_COLUMN].astype(np.int64)
    new_run = np.ones(len(rows), dtype=bool)
    new_run[1:] = (keys[1:] != keys[:-1]) | (frames[1:] != frames[:-1])
    run = np.cumsum(new_run) - 1
    ordinal = run - run[np.searchsorted(frames, frames)]  # rows are sorted by frame
    order = np.lexsort((np.arange(len(rows)), frames, keys, ordinal))
    ordinal, keys = ordinal[order], keys[order]
    starts = np.flatnonzero(np.r_[True, (ordinal[1:] != ordinal[:-1]) | (keys[1:] != keys[:-1])])
    sizes = np.diff(np.r_[starts, len(rows)])
    groups = np.zeros((len(starts), 6), dtype=np.uint32)
    groups[:, 0], groups[:, 1], groups[:, 2], groups[:, 4] = keys[starts], 4, sizes, starts
    return np.ascontiguousarray(rows[order]), groups


def _runs(values: np.ndarray):
    """(value, start, stop) for each run of equal consecutive values."""
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    stops = np.r_[starts[1:], len(values)]
    return [(int(values[a]), int(a), int(b)) for a, b in zip(starts, stops)]


def _write(buffer: moderngl.Buffer, data: np.ndarray) -> None:
    if data.nbytes > buffer.size:
        buffer.orphan(max(data.nbytes, 2 * buffer.size))
    buffer.write(np.ascontiguousarray(data).tobytes())


def _texture(ctx: moderngl.Context, pixels: np.ndarray, components: int) -> moderngl.Texture:
    texture = ctx.texture(
        (pixels.shape[1], pixels.shape[0]), components, np.ascontiguousarray(pixels).tobytes(), alignment=1
    )
    texture.build_mipmaps()
    texture.filter = moderngl.LINEAR_MIPMAP_LINEAR, moderngl.LINEAR
    texture.anisotropy = 1.0
    return texture
