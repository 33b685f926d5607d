"""Drawings the grid scene has no field for: piles of 1-3 items (Counting), quarter pieces of a
picture (Filling, Memory Filling) and tiles of abstract figures (Puzzle), on the board, in backpack
slots and as the hint's target figure.

They are drawn in the same batched pass as the grid scene, on the renderer's canvas after
``grid.draw``. This leans on three renderer internals (``Renderer._draw_2d``, ``grid._badge`` and a
sprite sub-rectangle through ``Canvas._add``); a public overlay hook in ``cogsim.render`` would let
this module drop them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Union

import numpy as np

from cogsim.render import grid
from cogsim.render._canvas import _NONE, KIND_SPRITE, Canvas, rgba
from cogsim.render.grid import GridScene


@dataclass(frozen=True)
class SpriteQuarter:
    sprite: str
    quarter: int  # 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right


@dataclass(frozen=True)
class Tile:
    shape: str
    colour: tuple[int, int, int]


Piece = Union[SpriteQuarter, Tile]


@dataclass(frozen=True)
class Overlay:
    piles: tuple[tuple[int, int, str, int, Optional[int]], ...] = ()  # (row, col, sprite, count, label)
    pieces: tuple[tuple[int, int, Piece, Optional[int]], ...] = ()  # (row, col, piece, numeral shown over it)
    slot_piles: tuple[tuple[int, str, int], ...] = ()  # (slot, sprite, count)
    slot_pieces: tuple[tuple[int, Piece], ...] = ()  # (slot, piece)
    hint_figure: tuple[Piece, ...] = ()  # a whole figure as 2 x 2 pieces in the hint bar


# Sprite positions of a pile inside a cell, as fractions of the cell (x0, y0, x1, y1).
PILE_LAYOUTS = {
    1: ((0.1, 0.1, 0.9, 0.9),),
    2: ((0.04, 0.3, 0.56, 0.82), (0.44, 0.18, 0.96, 0.7)),
    3: ((0.04, 0.42, 0.52, 0.9), (0.48, 0.42, 0.96, 0.9), (0.26, 0.06, 0.74, 0.54)),
}


def _sub(rect, fractions):
    x0, y0, x1, y1 = rect
    w, h = x1 - x0, y1 - y0
    a, b, c, d = fractions
    return x0 + a * w, y0 + b * h, x0 + c * w, y0 + d * h


def _slot_rect(scene: GridScene, slot: int):
    c = scene.cell_size
    x0, y0, x1, y1 = grid.backpack_slot_rect(scene, slot)
    return x0 + 0.26 * c, y0 + 0.26 * c, x1 - 0.12 * c, y1 - 0.12 * c


def draw_pile(canvas: Canvas, rect, sprite: str, count: int) -> None:
    for fractions in PILE_LAYOUTS[count]:
        canvas.sprite(sprite, _sub(rect, fractions))


def draw_piece(canvas: Canvas, rect, piece: Piece) -> None:
    if isinstance(piece, Tile):
        canvas.box(rect, (250, 246, 236), border=(90, 80, 70), width=max(1.0, 0.02 * (rect[2] - rect[0])))
        canvas.shape(piece.shape, _sub(rect, (0.14, 0.14, 0.86, 0.86)), piece.colour)
        return
    u0, v0, u1, v1 = canvas.atlases.sprite_uv[piece.sprite]
    du, dv = (u1 - u0) / 2, (v1 - v0) / 2
    col, row = piece.quarter % 2, piece.quarter // 2
    uv = (u0 + col * du, v0 + row * dv, u0 + (col + 1) * du, v0 + (row + 1) * dv)
    canvas.box(rect, (252, 250, 244))
    canvas._add(rect, uv, rgba((255, 255, 255)), _NONE, KIND_SPRITE, 0, 0)


def _numeral(canvas: Canvas, scene: GridScene, row: int, col: int, numeral: int) -> None:
    c = scene.cell_size
    x0, y0, x1, y1 = grid.play_cell_rect(scene, row, col)
    grid._badge(canvas, (x0 + 0.04 * c, y1 - 0.34 * c, x0 + 0.5 * c, y1 - 0.04 * c), grid.roman(numeral), (176, 96, 0), scene)


def _label(canvas: Canvas, scene: GridScene, row: int, col: int, label: int) -> None:
    c = scene.cell_size
    x0, y0, x1, y1 = grid.play_cell_rect(scene, row, col)
    d = 0.36 * c
    grid._badge(canvas, (x1 - d - 0.02 * c, y0 + 0.02 * c, x1 - 0.02 * c, y0 + 0.02 * c + d), str(label), grid.INK, scene)


def draw_overlay(canvas: Canvas, scene: GridScene, overlay: Overlay) -> None:
    c = scene.cell_size
    for row, col, piece, numeral in overlay.pieces:
        draw_piece(canvas, grid.play_cell_rect(scene, row, col), piece)
        if numeral is not None:
            _numeral(canvas, scene, row, col, numeral)
    for row, col, sprite, count, label in overlay.piles:
        x0, y0, x1, y1 = grid.play_cell_rect(scene, row, col)
        draw_pile(canvas, (x0 + 0.04 * c, y0 + 0.04 * c, x1 - 0.04 * c, y1 - 0.04 * c), sprite, count)
        if label is not None:
            _label(canvas, scene, row, col, label)
    for slot, sprite, count in overlay.slot_piles:
        draw_pile(canvas, _slot_rect(scene, slot), sprite, count)
    for slot, piece in overlay.slot_pieces:
        draw_piece(canvas, _slot_rect(scene, slot), piece)
    if overlay.hint_figure:
        size = 0.78 * c
        left, top = c - size, 2.1 * c
        for quarter, piece in enumerate(overlay.hint_figure):
            x0, y0 = left + (quarter % 2) * size, top + (quarter // 2) * size
            draw_piece(canvas, (x0, y0, x0 + size, y0 + size), piece)


def render(renderer, frames: Sequence[tuple[GridScene, Overlay]]) -> np.ndarray:
    """Frames of (scene, overlay) pairs in one batch: uint8 (N, H, W, 3)."""
    scenes = [scene.validate() for scene, _ in frames]
    sizes = {scene.size for scene in scenes}
    if len(sizes) != 1:
        raise ValueError(f"all scenes of a batch must share one cell_size, got {sorted(sizes)}")
    size = sizes.pop()

    def draw(canvas: Canvas, entry) -> None:
        scene, overlay = entry
        grid.draw(canvas, scene)
        draw_overlay(canvas, scene, overlay)

    return renderer._draw_2d(list(zip(scenes, (o for _, o in frames))), (size, size), draw)
