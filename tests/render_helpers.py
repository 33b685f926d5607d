"""Shared by the renderer tests: one renderer per test session, golden-image comparison."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image

from cogsim import render

GOLDEN_DIR = Path(__file__).parent / "golden"
UPDATE_GOLDENS = os.environ.get("COGSIM_UPDATE_GOLDENS") == "1"


@lru_cache(maxsize=1)
def renderer() -> render.Renderer:
    return render.Renderer(backend="egl")


def assert_matches_golden(
    frame: np.ndarray, name: str, channel_tolerance: int = 24, max_bad_fraction: float = 0.005
) -> None:
    """Pixels may differ by ``channel_tolerance`` (rasteriser rounding, Mesa versions) on at most
    ``max_bad_fraction`` of the frame; set COGSIM_UPDATE_GOLDENS=1 to rewrite the golden."""
    path = GOLDEN_DIR / f"{name}.png"
    if UPDATE_GOLDENS:
        render.save_png(frame, path)
    golden = np.asarray(Image.open(path).convert("RGB"))
    assert golden.shape == frame.shape, f"{name}: shape {frame.shape} != golden {golden.shape}"
    difference = np.abs(golden.astype(np.int16) - frame.astype(np.int16)).max(axis=-1)
    bad = float((difference > channel_tolerance).mean())
    assert bad <= max_bad_fraction, f"{name}: {bad:.2%} of pixels differ by more than {channel_tolerance}"
    assert float(difference.mean()) < 2.0, f"{name}: mean difference {difference.mean():.2f}"
