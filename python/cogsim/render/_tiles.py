"""Frames of a batch are tiles of one framebuffer: one draw pass and one read back per pass."""

from __future__ import annotations

from dataclasses import dataclass

import moderngl
import numpy as np

from cogsim import _core

# Framebuffer side per pass. Bigger passes save calls but not time: past ~2048 px the
# framebuffer outgrows the CPU caches and llvmpipe slows down (measured: 512 px views, 64 per
# pass on 4096 px took ~25% more CPU than 16 per pass on 2048 px).
MAX_TARGET = 2048
MAX_FRAME = 4096
# The 2D passes map frame pixels through this power-of-two viewport, at least as large as any
# target, so that a frame is drawn the same in every tile (see shaders/quad.vert).
VIEWPORT_SIZE = 4096
assert VIEWPORT_SIZE >= max(MAX_TARGET, MAX_FRAME) and VIEWPORT_SIZE & (VIEWPORT_SIZE - 1) == 0


@dataclass(frozen=True)
class TileLayout:
    width: int  # one frame
    height: int
    columns: int
    rows: int

    @property
    def per_pass(self) -> int:
        return self.columns * self.rows

    @property
    def target_size(self) -> tuple[int, int]:
        return self.columns * self.width, self.rows * self.height


def layout(count: int, width: int, height: int) -> TileLayout:
    if width > MAX_FRAME or height > MAX_FRAME:
        raise ValueError(f"frame size must be at most {MAX_FRAME} px per side, got {width}x{height}")
    columns = max(1, min(count, MAX_TARGET // width))
    rows = max(1, min(-(-count // columns), MAX_TARGET // height))
    return TileLayout(width, height, columns, rows)


def read_frames(framebuffer, tiles: TileLayout, out: np.ndarray) -> None:
    """Fills ``out`` (N, H, W, 3 or 4) uint8 with the framebuffer's first N tiles, in tile order."""
    width, height = tiles.target_size
    image = np.empty((height, width, 4), dtype=np.uint8)
    # RGBA from the driver is a plain copy; its own RGB repacking costs 0.7 ms at 576 x 576 on
    # llvmpipe (NumPy's strided copy 2.7 ms), _core.rgb_tiles 0.2 ms.
    framebuffer.read_into(image, components=4, alignment=1)
    if out.shape[3] == 3:
        _core.rgb_tiles(image, out)
        return
    grid = image.reshape(tiles.rows, tiles.height, tiles.columns, tiles.width, 4).transpose(0, 2, 1, 3, 4)
    out[...] = grid.reshape(-1, tiles.height, tiles.width, 4)[: len(out)]


def write_frames(texture, tiles: TileLayout, frames: list) -> None:
    """Fills the target's tiles with RGBA ``frames`` (the inverse of :func:`read_frames`)."""
    if tiles.per_pass == 1:
        texture.write(np.ascontiguousarray(frames[0]))
        return
    image = np.zeros((tiles.rows, tiles.height, tiles.columns, tiles.width, 4), dtype=np.uint8)
    for index, frame in enumerate(frames):
        row, column = divmod(index, tiles.columns)
        image[row, :, column] = frame
    texture.write(image)


class Targets:
    """Framebuffers by size, reused across calls; the oldest is released beyond a few sizes."""

    def __init__(self, ctx: moderngl.Context, depth: bool, keep: int = 4):
        self.ctx, self.depth, self.keep = ctx, depth, keep
        self._by_size: dict[tuple[int, int], moderngl.Framebuffer] = {}

    def get(self, size: tuple[int, int]) -> moderngl.Framebuffer:
        if size not in self._by_size:
            if len(self._by_size) >= self.keep:
                self._release(self._by_size.pop(next(iter(self._by_size))))
            depth = self.ctx.depth_renderbuffer(size) if self.depth else None
            # a texture rather than a renderbuffer, so a pass can start from written pixels
            self._by_size[size] = self.ctx.framebuffer([self.ctx.texture(size, 4)], depth)
        return self._by_size[size]

    @staticmethod
    def _release(framebuffer: moderngl.Framebuffer) -> None:
        for attachment in (*framebuffer.color_attachments, framebuffer.depth_attachment):
            if attachment is not None:
                attachment.release()
        framebuffer.release()
