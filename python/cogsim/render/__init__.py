"""The renderer: every image a model sees, drawn with ModernGL in a headless EGL context.

Without a GPU it runs on Mesa's llvmpipe (CPU); with one, on the vendor's EGL driver. Every call
renders a batch of frames and returns uint8 RGB arrays of shape (N, H, W, 3). 2D frames (grid scenes,
cube nets, cards, minimaps) take one of two paths with the same pixels: the GL draws them, or the GL
draws each sprite, tile and letter once and the core composes frames from them on the CPU
(``render_path``: automatic, the compositor on llvmpipe and the GL on a GPU).
"""

from __future__ import annotations

from cogsim.render._assets import atlases as _atlases
from cogsim.render._context import BACKENDS, ContextError
from cogsim.render._renderer import (
    RENDER_PATH_VARIABLE,
    RENDER_PATHS,
    Renderer,
    check_render_path,
    frame_batch,
    render_path,
    shared_renderer,
)
from cogsim.render.cards import CardBoard
from cogsim.render.grid import CellMark, GridScene, Item, Pile, ShapeTile, SlotMark, SpriteQuarter, Target
from cogsim.render.maze import MapView, Maze, ViewOptions
from cogsim.render.png import save_png, to_png_bytes, to_png_bytes_batch

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
    "RENDER_PATHS",
    "RENDER_PATH_VARIABLE",
    "Renderer",
    "SPRITES",
    "SPRITE_CATEGORIES",
    "ShapeTile",
    "SlotMark",
    "SpriteQuarter",
    "Target",
    "ViewOptions",
    "check_render_path",
    "frame_batch",
    "render_path",
    "save_png",
    "shared_renderer",
    "to_png_bytes",
    "to_png_bytes_batch",
]
