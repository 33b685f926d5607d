"""The look of guessgame: the whole range as a grey bar, the part the answers still allow in green.
It adds the scene kind ``guess_range`` to cogsim's renderer; cogsim imports this module the first
time a renderer is asked for that kind (the family record names it)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from cogsim.render import Canvas, Renderer, scene_kind

WIDTH, HEIGHT, MARGIN = 320, 64, 16
BACKGROUND, WHOLE, OPEN, INK = (250, 250, 250), (200, 200, 200), (60, 160, 90), (30, 30, 30)


@scene_kind("guess_range")
def frames(renderer: Renderer, ranges: Sequence[tuple[int, int, int, int]]) -> np.ndarray:
    """``renderer.guess_range([(low, high, open_low, open_high), ...])``: frames (N, 64, 320, 3)."""
    return renderer.draw_2d(list(ranges), (WIDTH, HEIGHT), _draw)


def _draw(canvas: Canvas, scene: tuple[int, int, int, int]) -> None:
    low, high, open_low, open_high = scene
    cell = (WIDTH - 2 * MARGIN) / (high - low + 1)
    canvas.box((0, 0, WIDTH, HEIGHT), BACKGROUND)
    canvas.box((MARGIN, 12, WIDTH - MARGIN, 32), WHOLE)
    canvas.box((MARGIN + (open_low - low) * cell, 12, MARGIN + (open_high - low + 1) * cell, 32), OPEN)
    canvas.text(f"{open_low} .. {open_high}", WIDTH / 2, 48, 10, INK)
