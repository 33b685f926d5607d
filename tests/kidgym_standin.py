"""A stand-in for KidGym's release images: the same files (names, pixel sizes and modes) as the
release's, with made-up pixels, so the release look's geometry and arithmetic run where the release's
files are not installed (CI). The pixels exercise every paste path: fully transparent, fully opaque
and partly transparent pixels in every RGBA file.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
from PIL import Image

from cogsim.benchmarks.kidgym import release_catalog, release_files

MARKER = "standin.json"


def _pixels(path: str, width: int, height: int, mode: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(path.encode()).digest()[:8], "little")
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width]
    base = rng.integers(0, 256, 3)
    rgb = (base + np.stack([x * 3, y * 5, (x + y) * 2], -1)) % 256
    if mode != "RGBA":
        return rgb.astype(np.uint8)
    # a disc of opaque pixels, a soft rim, transparent corners, and some noise in the alpha
    r = np.hypot(x - width / 2, y - height / 2) / (min(width, height) / 2)
    alpha = np.clip((1.1 - r) * 600, 0, 255)
    alpha = np.where(rng.random((height, width)) < 0.05, rng.integers(1, 255, (height, width)), alpha)
    return np.dstack([rgb, alpha]).astype(np.uint8)


def make_standin(folder: Path) -> Path:
    """Writes the stand-in pack under ``folder`` (release paths, assets/imgs/...) unless it is there."""
    folder = Path(folder)
    geometry = release_catalog.data()["images"]
    stamp = hashlib.sha256(json.dumps(geometry, sort_keys=True).encode()).hexdigest()
    marker = folder / MARKER
    if marker.exists() and json.loads(marker.read_text()).get("geometry") == stamp:
        return folder
    for path in release_files.manifest()["files"]:
        width, height, mode = geometry[path]
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(_pixels(path, width, height, mode), "RGBA" if mode == "RGBA" else "RGB").save(target)
    marker.write_text(json.dumps({"geometry": stamp}))
    return folder
