"""The CPU path of 2D frames: each draw item is drawn once by the GL path, alone over transparent
black (a *stamp*), kept in the core, and frames are composed there from stamps without the GIL,
over threads for a batch. The frames are bit for bit the GL path's on llvmpipe
(cpp/render/compose.hpp says why; tests/test_render_paths.py checks every scene kind).

A stamp is keyed by its item relative to its place (whole-pixel moves give the same pixels), so a
scene's sprites, tiles and letters are drawn by the GL once per size and position within a pixel
pair; frames after the first few draw nothing on the GL at all.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from cogsim import _core
from cogsim.render._canvas import INSTANCE_FLOATS
from cogsim.render._quads import QuadPipeline

MAX_STAMP_BYTES = 256 << 20  # stamps older than the last frames are dropped past this
_PACK_SIDE = 2048  # side of a pass that draws missing stamps (larger stamps get a pass of their own size)
_TRANSPARENT = np.zeros((1, 1, 4), dtype=np.uint8)


class FrameCompositor:
    """Composes frames from a canvas's rows like :meth:`QuadPipeline.draw_instances` draws them."""

    def __init__(self, quads: QuadPipeline, max_bytes: int = MAX_STAMP_BYTES):
        self._quads = quads
        self._core = _core.Compositor(max_bytes)
        self._bases: dict[int, tuple[np.ndarray, int]] = {}  # id(RGBA base) -> (base, its id in the core)

    @property
    def stamp_count(self) -> int:
        return self._core.stamp_count

    def draw(
        self,
        rows: np.ndarray,
        size: tuple[int, int],
        bases: Optional[Sequence[Optional[np.ndarray]]],
        outs: Sequence[np.ndarray],
        threads: int = 0,
    ) -> None:
        """Fills ``outs`` (arrays of RGB frames of ``size``, frames numbered across them in order) from
        ``rows`` (frame column ascending), each frame over its RGBA base (None or no bases: black)."""
        count = sum(len(out) for out in outs)
        base_ids = np.full(count, -1, dtype=np.int32)
        if bases is not None:
            base_ids[:] = [self._base_id(base) for base in bases]
        rows = np.ascontiguousarray(rows, dtype=np.float32)
        for _ in range(2):
            missing = self._core.compose(rows, base_ids, list(outs), threads)
            if not missing:
                return
            self._draw_stamps(rows[missing], size)
        raise RuntimeError(
            f"the frames need more stamps than the compositor keeps ({self._core.stamp_bytes:,} bytes held); "
            "draw them in smaller batches or on the GL path (render path 'gl')"
        )

    def draw_parts(self, parts: Sequence[tuple[np.ndarray, Optional[Sequence[np.ndarray]], np.ndarray]], size) -> None:
        """The frames of several canvases of one size in one call (over threads): ``parts`` holds
        (instance rows, bases or None, output frames) per canvas, as :meth:`QuadPipeline.draw_parts`."""
        rows, bases, first = [], [], 0
        for data, part_bases, out in parts:
            shifted = data.copy()
            shifted[:, INSTANCE_FLOATS - 1] += first
            rows.append(shifted)
            bases.extend(part_bases if part_bases is not None else [None] * len(out))
            first += len(out)
        self.draw(np.concatenate(rows), size, bases, [out for _, _, out in parts])

    def _base_id(self, base: Optional[np.ndarray]) -> int:
        if base is None:
            return -1
        known = self._bases.get(id(base))
        if known is None or known[0] is not base:
            known = (base, self._core.add_base(np.ascontiguousarray(base, dtype=np.uint8)))
            self._bases[id(base)] = known
        return known[1]

    def _draw_stamps(self, rows: np.ndarray, size: tuple[int, int]) -> None:
        """Draws the stamps of ``rows`` on the GL path, as many per pass as fit, and hands them to the core."""
        windows = [self._core.placement(row, *size) for row in rows]
        whole, clipped = [], []
        for row, window in zip(rows, windows):
            (clipped if _clipped(row, window) else whole).append((row, window))
        for batch in _shelves(whole):
            self._draw_pass(batch, size)
        for item in clipped:  # an item the frame cuts may reach past its window: a pass of its own
            self._draw_pass([(item, (0, 0))], size)

    def _draw_pass(self, placed: list, size: tuple[int, int]) -> None:
        width = max(x + _even(w[2] - w[0]) for (_, w), (x, _) in placed)
        height = max(y + _even(w[3] - w[1]) for (_, w), (_, y) in placed)
        pass_rows = np.empty((len(placed), INSTANCE_FLOATS), dtype=np.float32)
        for k, ((row, window), (x, y)) in enumerate(placed):
            pass_rows[k] = row
            pass_rows[k, [0, 2]] += x - window[0]  # even shifts: the item's pixels move unchanged
            pass_rows[k, [1, 3]] += y - window[1]
            pass_rows[k, INSTANCE_FLOATS - 1] = 0.0  # all in frame 0 of the pass
        transparent = np.broadcast_to(_TRANSPARENT, (height, width, 4))
        image = self._quads.draw_instances(pass_rows, (width, height), 1, [transparent], components=4)[0]
        for (row, window), (x, y) in placed:
            stamp = image[y : y + window[3] - window[1], x : x + window[2] - window[0]]
            self._core.add_stamp(row, size[0], size[1], np.ascontiguousarray(stamp))


def _even(value: int) -> int:
    return value + (value & 1)


def _clipped(row: np.ndarray, window: tuple[int, int, int, int]) -> bool:
    """Whether the frame cuts the item: its pixels then reach past its window."""
    x0, y0, x1, y1 = (float(v) for v in row[:4])
    return min(x0, x1) < window[0] or min(y0, y1) < window[1] or max(x0, x1) > window[2] or max(y0, y1) > window[3]


def _shelves(items: list) -> list[list]:
    """Packs (row, window) items into passes of at most _PACK_SIDE px a side (a larger item alone),
    each at even pixel positions: lists of ((row, window), (x, y))."""
    passes: list[list] = []
    placed: list = []
    x = y = shelf = 0
    for item in sorted(items, key=lambda item: item[1][3] - item[1][1], reverse=True):
        w, h = _even(item[1][2] - item[1][0]), _even(item[1][3] - item[1][1])
        if w > _PACK_SIDE or h > _PACK_SIDE:
            passes.append([(item, (0, 0))])
            continue
        if x + w > _PACK_SIDE:
            x, y, shelf = 0, y + shelf, 0
        if y + h > _PACK_SIDE:
            passes.append(placed)
            placed, x, y, shelf = [], 0, 0, 0
        placed.append((item, (x, y)))
        x, shelf = x + w, max(shelf, h)
    if placed:
        passes.append(placed)
    return passes
