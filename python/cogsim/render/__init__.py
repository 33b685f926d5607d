"""The renderer: every image a model sees, drawn with ModernGL in a headless EGL context.

Without a GPU it runs on Mesa's llvmpipe (CPU); with one, on the vendor's EGL driver. Every call
renders a batch of frames and returns uint8 RGB arrays of shape (N, H, W, 3). 2D frames take one of
two paths with the same pixels: the GL draws them, or the GL draws each sprite, tile and letter once
and the core composes frames from them on the CPU (``render_path``: automatic, the compositor on
llvmpipe and the GL on a GPU).

The engine draws what the benchmarks' looks ask for: each look (``cogsim.benchmarks.<name>...look``)
turns its scenes into draw items on a :class:`Canvas` and adds its batch method to
:class:`Renderer` with :func:`scene_kind` (``renderer.grid``, ``cube_net``, ``cards``, ``minimap``,
``patch``, ``mazes`` once the look is imported).

How frames are sent is here too (``cogsim.render.frames``): ``encode_frames(frames, frame_format)``,
the one encoder of the bytes a model gets (PNG by the core, JPEG by Pillow with a release's settings),
and the ``FrameEncoder`` that the model loop encodes each distinct frame with, once, off its thread.
"""

from __future__ import annotations

from cogsim.render._assets import sprite_names as _sprite_names
from cogsim.render._canvas import PATTERNS, SHAPES, Canvas
from cogsim.render._context import BACKENDS, ContextError
from cogsim.render._renderer import (
    RENDER_PATH_VARIABLE,
    RENDER_PATHS,
    Renderer,
    as_batch,
    check_render_path,
    frame_batch,
    frames_pending,
    render_path,
    same_across,
    scene_kind,
    shared_renderer,
)
from cogsim.render.frames import (
    PNG,
    FrameEncoder,
    SentFrame,
    check_frame_format,
    decode_frame,
    encode_frames,
    media_type,
    note_changed_rows,
)
from cogsim.render.png import save_png, to_png_bytes, to_png_bytes_batch

SPRITES: tuple[str, ...] = _sprite_names()[0]
SPRITE_CATEGORIES: dict[str, tuple[str, ...]] = _sprite_names()[1]

__all__ = [
    "BACKENDS",
    "Canvas",
    "ContextError",
    "FrameEncoder",
    "PATTERNS",
    "PNG",
    "RENDER_PATHS",
    "RENDER_PATH_VARIABLE",
    "Renderer",
    "SPRITES",
    "SHAPES",
    "SPRITE_CATEGORIES",
    "SentFrame",
    "as_batch",
    "check_frame_format",
    "check_render_path",
    "decode_frame",
    "encode_frames",
    "frame_batch",
    "frames_pending",
    "media_type",
    "note_changed_rows",
    "render_path",
    "same_across",
    "save_png",
    "scene_kind",
    "shared_renderer",
    "to_png_bytes",
    "to_png_bytes_batch",
]
