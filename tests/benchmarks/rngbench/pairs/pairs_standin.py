"""A stand-in for RNG-Bench's card images (CI has no copy of the release), and the release's drawing
steps re-expressed directly in Pillow, as the reference the release look is checked against.

The stand-in pack has the release's file names (from cogsim's manifest) and pixel sizes and modes
(poker cards 222 x 323 RGBA, noise 64 x 64 RGB, the other themes 64 x 64 RGBA), drawn procedurally
with partly transparent pixels so that flattening onto white is exercised. ``make_standin``
writes it with a manifest of its hashes in the package's format; ``use_standin`` points cogsim at that
manifest and installs the pack with ``release_assets.add`` from a .tar.gz, as a user would.
"""

from __future__ import annotations

import hashlib
import io
import json
import random
import string
import tarfile
import textwrap
from importlib import resources
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from cogsim import release_assets

SIZES = {"poker": ((222, 323), "RGBA"), "noise": ((64, 64), "RGB")}
DEFAULT = ((64, 64), "RGBA")
ASSETS = "1_matching_pairs_new/assets"


def standin_image(path: str) -> bytes:
    theme = path.split("/")[-2]
    (width, height), mode = SIZES.get(theme, DEFAULT)
    a, b, c = (int(h, 16) for h in textwrap.wrap(hashlib.sha256(path.encode()).hexdigest()[:6], 2))
    y, x = np.indices((height, width))
    channels = [(x * (a % 7 + 1) + y * (b % 5) + c) % 256, (x * y + a) % 256, (y * (c % 9 + 1) + b) % 256]
    if mode == "RGBA":  # opaque, transparent and partly transparent regions
        channels.append(np.where(y < height // 3, 255, np.where(y < height // 2, 0, (x * 4 + c) % 256)))
    image = Image.fromarray(np.stack(channels, axis=2).astype(np.uint8), mode)
    ImageDraw.Draw(image).ellipse([width // 4, height // 4, 3 * width // 4, 3 * height // 4], outline="red", width=3)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def make_standin(folder: Path) -> tuple[Path, Path, Path]:
    """Writes the stand-in pack (as a release archive too) and a manifest of it into ``folder``:
    returns (release root, archive, manifest file)."""
    real = json.loads(resources.files("cogsim.benchmarks.rngbench").joinpath("release_assets.json").read_text())
    pack = folder / "RNGBench-standin"
    files = {}
    for path in real["files"]:
        data = standin_image(path)
        target = pack / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        files[path] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    manifest_file = folder / "standin_manifest.json"
    manifest_file.write_text(json.dumps(dict(real, files=files)))
    archive = folder / "standin.tar.gz"
    with tarfile.open(archive, "w:gz") as out:
        out.add(pack, arcname=pack.name)
    return pack, archive, manifest_file


def use_standin(made: tuple[Path, Path, Path], cache: Path, monkeypatch) -> Path:
    """Points cogsim at the stand-in's manifest and at ``cache``, and installs the stand-in there from its
    archive (once per cache) as a user installs the release; returns the release root."""
    pack, archive, manifest_file = made
    monkeypatch.setenv(release_assets.MANIFEST_VARIABLE.format("RNGBENCH"), str(manifest_file))
    monkeypatch.setenv("COGSIM_CACHE", str(cache))
    try:
        release_assets.root("rngbench")
    except release_assets.AssetsMissing:
        release_assets.add("rngbench", archive)
    return pack


# -- the release's drawing, step by step in Pillow ------------------------------------------------
def _font(name: str, size: int):
    import matplotlib

    return ImageFont.truetype(str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name), size)


def reference_faces(pack: Path, theme_folder: str, seed: int, pairs: int, cell: int) -> list:
    folder = pack / ASSETS / theme_folder
    paths = sorted(p for p in folder.iterdir() if p.suffix.lower() in {".png", ".jpg", ".jpeg", ".bmp", ".webp"})
    chosen = random.Random(seed).sample(paths, pairs)
    return [Image.open(p).convert("RGBA").resize((cell, cell)) for p in chosen]


def reference_back(cell: int) -> Image.Image:
    img = Image.new("RGBA", (cell, cell), (30, 80, 160))
    draw = ImageDraw.Draw(img)
    grid = max(cell // 8, 4)
    for i in range(0, cell, grid * 2):
        for j in range(0, cell, grid * 2):
            draw.rectangle([i, j, i + grid, j + grid], fill=(40, 100, 180))
            draw.rectangle([i + grid, j + grid, i + grid * 2, j + grid * 2], fill=(40, 100, 180))
    draw.rectangle([1, 1, cell - 2, cell - 2], outline=(200, 200, 255), width=2)
    return img


def reference_empty(cell: int) -> Image.Image:
    img = Image.new("RGBA", (cell, cell), (240, 240, 240, 128))
    draw = ImageDraw.Draw(img)
    dash = max(cell // 10, 3)
    for x in range(0, cell, dash * 2):
        draw.line([(x, 0), (min(x + dash, cell), 0)], fill=(180, 180, 180), width=1)
        draw.line([(x, cell - 1), (min(x + dash, cell), cell - 1)], fill=(180, 180, 180), width=1)
    for y in range(0, cell, dash * 2):
        draw.line([(0, y), (0, min(y + dash, cell))], fill=(180, 180, 180), width=1)
        draw.line([(cell - 1, y), (cell - 1, min(y + dash, cell))], fill=(180, 180, 180), width=1)
    return img


def reference_board(identities: np.ndarray, shown: np.ndarray, faces: list, cell: int) -> Image.Image:
    """One board: felt, labels, and per card its face (shown face up), empty slot (removed) or back,
    each flattened onto white through its alpha and pasted."""
    rows, cols = identities.shape
    gap, margin = 4, 24
    img = Image.new("RGB", (margin + cols * (cell + gap) + gap, margin + rows * (cell + gap) + gap), (50, 120, 50))
    draw = ImageDraw.Draw(img)
    font = _font("DejaVuSans-Bold.ttf", 16)
    for c in range(cols):
        draw.text((margin + gap + c * (cell + gap) + cell // 2, 2), string.ascii_uppercase[c], "white", font, "mt")
    back, empty = reference_back(cell), reference_empty(cell)
    for r in range(rows):
        y = margin + gap + r * (cell + gap)
        draw.text((margin // 2, y + cell // 2), string.ascii_lowercase[r], "white", font, "mm")
        for c in range(cols):
            card = faces[identities[r, c]] if shown[r, c] == 1 else empty if shown[r, c] == 2 else back
            white = Image.new("RGB", card.size, (255, 255, 255))
            white.paste(card, mask=card.split()[3])
            img.paste(white, (margin + gap + c * (cell + gap), y))
    return img


def reference_oracle(left: Image.Image, right: Image.Image) -> Image.Image:
    pad, gap, bar = 10, 30, 26
    font = _font("DejaVuSans-Bold.ttf", 14)
    height = bar + pad + max(left.height, right.height) + pad
    canvas = Image.new("RGB", (pad + left.width + gap + right.width + pad, height), (245, 245, 245))
    draw = ImageDraw.Draw(canvas)
    draw.text((pad, 6), "Live board", fill=(40, 40, 40), font=font)
    draw.text((pad + left.width + gap, 6), "Memory aid (revealed cards)", fill=(40, 60, 120), font=font)
    x = pad + left.width + gap // 2
    draw.line([(x, bar), (x, height - pad)], fill=(205, 205, 205), width=2)
    canvas.paste(left, (pad, bar + pad))
    canvas.paste(right, (pad + left.width + gap, bar + pad))
    return canvas


def jpeg(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="JPEG", quality=85, optimize=True)
    return buffer.getvalue()
