"""Frames of a batch are tiles of one framebuffer: one draw pass and one read back per pass."""

from __future__ import annotations

from dataclasses import dataclass

import moderngl
import numpy as np

# Framebuffer side per pass. Bigger passes save calls but not time: past ~2048 px the
# framebuffer outgrows the CPU caches and llvmpipe slows down (measured: 512 px views, 64 per
# pass on 4096 px took ~25% more CPU than 16 per pass on 2048 px).
MAX_TARGET = 2048
MAX_FRAME = 4096


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


def read_frames(framebuffer, tiles: TileLayout, count: int) -> np.ndarray:
    """The framebuffer's tiles as (count, H, W, 3) uint8 frames, in tile order."""
    # RGB straight from the driver: its repacking (0.7 ms for 576x576 on llvmpipe) is far cheaper
    # than reading RGBA and dropping alpha in NumPy, a strided copy (2.7 ms at that size).
    pixels = framebuffer.read(components=3, alignment=1)
    image = np.frombuffer(pixels, dtype=np.uint8).reshape(tiles.rows, tiles.height, tiles.columns, tiles.width, 3)
    frames = image.transpose(0, 2, 1, 3, 4).reshape(-1, tiles.height, tiles.width, 3)
    return frames[:count]


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
            self._by_size[size] = self.ctx.framebuffer([self.ctx.renderbuffer(size, 4)], depth)
        return self._by_size[size]

    @staticmethod
    def _release(framebuffer: moderngl.Framebuffer) -> None:
        for attachment in (*framebuffer.color_attachments, framebuffer.depth_attachment):
            if attachment is not None:
                attachment.release()
        framebuffer.release()
