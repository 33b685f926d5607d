"""PNG output, the format models get most frames in (``cogsim.render.frames`` sends each env's frames
as its release does: PNG, or JPEG where a release sends JPEG).

Frames are encoded by the core (``_core.encode_png``): Up-filtered rows cut into bands of 16 rows or
more, each band's byte and pixel repeats in Huffman codes built for it, a band seen before copied
from a bounded cache (or, for an episode's next frame, from the frame before:
``_core.encode_png_after``); the same bytes on every machine, 25-100x faster than Pillow on the envs'
frames with files 0.96-1.7x the size of Pillow's (benchmarks/results_scale.md, the PNG section); any
decoder gives the frame back exactly."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Union

import numpy as np
from PIL import Image

from cogsim import _core
from cogsim._files import write_bytes_atomic
from cogsim.render.frames import PNG, encode_frames


def _checked(frame: np.ndarray) -> np.ndarray:
    """An RGB frame, or an RGBA one (a release's frames that carry alpha are sent as RGBA PNGs)."""
    frame = np.asarray(frame)
    if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] not in (3, 4):
        raise ValueError(f"frame must be a uint8 (H, W, 3) or (H, W, 4) array, got {frame.dtype} shape {frame.shape}")
    return np.ascontiguousarray(frame)


def to_png_bytes(frame: np.ndarray) -> bytes:
    """The PNG file of one frame (``encode_frames([frame])[0]``)."""
    return encode_frames([_checked(frame)], PNG, threads=1)[0]


def to_png_bytes_batch(frames: np.ndarray, threads: int = 0) -> list[bytes]:
    """The PNG files of frames (N, H, W, 3 or 4), encoded over threads (0: all cores), the GIL released."""
    frames = np.asarray(frames)
    if frames.dtype != np.uint8 or frames.ndim != 4 or frames.shape[3] not in (3, 4):
        raise ValueError(f"frames must be a uint8 (N, H, W, 3 or 4) array, got {frames.dtype} shape {frames.shape}")
    return [bytes(png) for png in _core.encode_png(np.ascontiguousarray(frames), threads)]


def save_png(frame: np.ndarray, path: Union[str, Path]) -> None:
    """A frame as a PNG file at ``path``, encoded by Pillow (smaller files; speed does not matter here)
    and written at once, replacing a link there rather than writing through it."""
    buffer = io.BytesIO()
    frame = _checked(frame)
    Image.fromarray(frame, "RGB" if frame.shape[2] == 3 else "RGBA").save(buffer, format="PNG")
    write_bytes_atomic(path, buffer.getvalue())
