"""PNG output through Pillow (the format models get their images in)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Union

import numpy as np
from PIL import Image


def _image(frame: np.ndarray) -> Image.Image:
    """An RGB frame, or an RGBA one (a release's frames that carry alpha are sent as RGBA PNGs)."""
    frame = np.asarray(frame)
    if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] not in (3, 4):
        raise ValueError(f"frame must be a uint8 (H, W, 3) or (H, W, 4) array, got {frame.dtype} shape {frame.shape}")
    return Image.fromarray(frame, "RGB" if frame.shape[2] == 3 else "RGBA")


def save_png(frame: np.ndarray, path: Union[str, Path]) -> None:
    _image(frame).save(path, format="PNG")


def to_png_bytes(frame: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    _image(frame).save(buffer, format="PNG")
    return buffer.getvalue()
