"""The renderer: every image a model sees, drawn with ModernGL in a headless EGL context.

Without a GPU it runs on Mesa's llvmpipe (CPU); with one, on the vendor's EGL driver. Every call
renders a batch of frames and returns uint8 RGB arrays of shape (N, H, W, 3).
"""

from __future__ import annotations

from cogsim.render._assets import atlases as _atlases
from cogsim.render._context import BACKENDS, ContextError
from cogsim.render._renderer import Renderer, frame_batch, shared_renderer
from cogsim.render.cards import CardBoard
from cogsim.render.grid import CellMark, GridScene, Item, Pile, ShapeTile, SlotMark, SpriteQuarter, Target
from cogsim.render.maze import MapView, Maze, ViewOptions
from cogsim.render.png import save_png, to_png_bytes

SPRITES: tuple[str, ...] = tuple(_atlases().sprite_uv)
SPRITE_CATEGORIES: dict[str, tuple[str, ...]] = _atlases().sprite_categories

__all__ = [
    "BACKENDS",
    "CardBoard",
    "CellMark",
    "ContextError",
    "GridScene",
    "Item",
    "MapView",
    "Maze",
    "Pile",
    "Renderer",
    "SPRITES",
    "SPRITE_CATEGORIES",
    "ShapeTile",
    "SlotMark",
    "SpriteQuarter",
    "Target",
    "ViewOptions",
    "frame_batch",
    "save_png",
    "shared_renderer",
    "to_png_bytes",
]
