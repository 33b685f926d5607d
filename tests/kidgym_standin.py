"""A stand-in for KidGym's release images: the same files (names, pixel sizes and modes) as the
release's, with made-up pixels, so the release look's geometry and arithmetic run where the release's
files are not installed (CI). The pixels exercise every paste path: fully transparent, fully opaque
and partly transparent pixels in every RGBA file.
"""

from __future__ import annotations

import hashlib
import json
import os
from importlib import resources
from pathlib import Path

import numpy as np
from PIL import Image

from cogsim.benchmarks.kidgym import catalog

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
    """Writes the stand-in pack under ``folder`` (release paths, assets/imgs/...) and its manifest,
    ``folder/manifest.json`` (the shipped manifest's format; commit ``standin-...``), unless they are
    there; returns ``folder``."""
    folder = Path(folder)
    geometry = catalog.data()["images"]
    stamp = hashlib.sha256(json.dumps(geometry, sort_keys=True).encode()).hexdigest()
    marker = folder / MARKER
    if marker.exists() and json.loads(marker.read_text()).get("geometry") == stamp:
        return folder
    shipped = json.loads(resources.files("cogsim.benchmarks.kidgym").joinpath("release_assets.json").read_text())
    files = {}
    for path in shipped["files"]:
        width, height, mode = geometry[path]
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(_pixels(path, width, height, mode), "RGBA" if mode == "RGBA" else "RGB").save(target)
        data = target.read_bytes()
        files[path] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    manifest = dict(shipped, commit=f"standin-{stamp[:12]}", files=files)
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1))
    marker.write_text(json.dumps({"geometry": stamp}))
    return folder


def install_kidgym_images(release: Path) -> Path:
    """Installs KidGym's release images into the current ``$COGSIM_CACHE`` (once per cache) as a user
    does: the release's own from ``release`` where it is a folder, else the stand-in pack (made beside
    the manifest that ``COGSIM_ASSETS_MANIFEST_KIDGYM`` names)."""
    from cogsim import release_assets

    # The stand-in's manifest must exist before anything reads it: a fresh cache has none yet.
    source = release if release.is_dir() else make_standin(Path(os.environ["COGSIM_ASSETS_MANIFEST_KIDGYM"]).parent)
    try:
        return release_assets.root("kidgym")
    except release_assets.AssetsMissing:
        return release_assets.add("kidgym", source)
