"""PNG output through Pillow (the format models get their images in)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Union

import numpy as np
from PIL import Image

from cogsim._files import write_bytes_atomic


def _image(frame: np.ndarray) -> Image.Image:
    frame = np.asarray(frame)
    if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
        raise ValueError(f"frame must be a uint8 (H, W, 3) array, got {frame.dtype} shape {frame.shape}")
    return Image.fromarray(frame, "RGB")


def save_png(frame: np.ndarray, path: Union[str, Path]) -> None:
    """Write the frame as a PNG file at ``path`` at once, replacing a link there rather than writing through it."""
    write_bytes_atomic(path, to_png_bytes(frame))


def to_png_bytes(frame: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    _image(frame).save(buffer, format="PNG")
    return buffer.getvalue()
