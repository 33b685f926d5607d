"""KidGym drawings beyond whole-cell sprites: piles of 1-3 items (Counting), quarter pieces of a
picture (Filling, Memory Filling) and tiles of abstract figures (Puzzle), on the board, in backpack
slots and as the hint's target figure.

``Overlay`` collects them per frame as the scene builder finds them; :func:`with_marks` turns it
into the renderer's public marks (``cogsim.render.CellMark``, ``SlotMark``, ``GridScene.hint_figure``),
which the renderer draws in the same batched pass as the rest of the grid scene.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional, Sequence

import numpy as np

from cogsim.benchmarks.kidgym.cogsim_look import CellMark, GridScene, Piece, Pile, SlotMark


@dataclass(frozen=True)
class Overlay:
    piles: tuple[tuple[int, int, str, int, Optional[int]], ...] = ()  # (row, col, sprite, count, label)
    pieces: tuple[tuple[int, int, Piece, Optional[int]], ...] = ()  # (row, col, piece, numeral shown over it)
    slot_piles: tuple[tuple[int, str, int], ...] = ()  # (slot, sprite, count)
    slot_pieces: tuple[tuple[int, Piece], ...] = ()  # (slot, piece)
    hint_figure: tuple[Piece, ...] = ()  # a whole figure as 2 x 2 pieces in the hint bar


def with_marks(scene: GridScene, overlay: Overlay) -> GridScene:
    """``scene`` carrying the overlay as renderer marks (pieces under piles, as the board shows them)."""
    marks = [CellMark(piece, row, col, numeral=numeral) for row, col, piece, numeral in overlay.pieces]
    marks += [CellMark(Pile(sprite, count), row, col, label=label) for row, col, sprite, count, label in overlay.piles]
    marks += [SlotMark(Pile(sprite, count), slot) for slot, sprite, count in overlay.slot_piles]
    marks += [SlotMark(piece, slot) for slot, piece in overlay.slot_pieces]
    return replace(scene, marks=scene.marks + tuple(marks), hint_figure=overlay.hint_figure or scene.hint_figure)


def render(renderer, frames: Sequence[tuple[GridScene, Overlay]]) -> np.ndarray:
    """Frames of (scene, overlay) pairs in one batch: uint8 (N, H, W, 3)."""
    return renderer.grid([with_marks(scene, overlay) for scene, overlay in frames])
