"""The committed sprite and glyph atlases (package data), loaded once per process."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np
from PIL import Image


@dataclass(frozen=True)
class Glyph:
    uv: tuple[float, float, float, float]  # atlas rect, normalised
    width: float  # rect size in atlas pixels (at AtlasSet.glyph_size)
    height: float
    left: float  # rect offset from the pen position on the baseline
    top: float
    advance: float


@dataclass(frozen=True)
class AtlasSet:
    sprite_pixels: np.ndarray  # (H, W, 4) uint8, premultiplied alpha
    sprite_uv: dict[str, tuple[float, float, float, float]]
    sprite_categories: dict[str, tuple[str, ...]]  # animals, fruits, foods, toys, game_objects
    glyph_pixels: np.ndarray  # (H, W) uint8 coverage
    glyphs: dict[str, Glyph]
    glyph_size: int
    cap_height: float  # height of "H" above the baseline at glyph_size


def _read(name: str) -> bytes:
    return resources.files("cogsim.render").joinpath("assets", name).read_bytes()


def shader_source(name: str) -> str:
    return resources.files("cogsim.render").joinpath("shaders", name).read_text()


@lru_cache(maxsize=1)
def atlases() -> AtlasSet:
    return AtlasSet(*_load_sprites(), *_load_glyphs())


@lru_cache(maxsize=1)
def sprite_names() -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """The atlas's sprite names in its order, and its categories, without decoding its pixels (which
    only cogsim's own look draws with)."""
    meta = json.loads(_read("sprites.json"))
    return tuple(meta["sprites"]), {category: tuple(names) for category, names in meta["categories"].items()}


def _load_sprites():
    with resources.as_file(resources.files("cogsim.render").joinpath("assets", "sprites.png")) as path:
        rgba = np.asarray(Image.open(path).convert("RGBA"), dtype=np.float32)
    rgba[..., :3] *= rgba[..., 3:] / 255.0
    pixels = np.round(rgba).astype(np.uint8)
    height, width = pixels.shape[:2]
    meta = json.loads(_read("sprites.json"))
    uv = {
        name: (x / width, y / height, (x + w) / width, (y + h) / height)
        for name, (x, y, w, h) in meta["sprites"].items()
    }
    return pixels, uv, sprite_names()[1]


def _load_glyphs():
    with resources.as_file(resources.files("cogsim.render").joinpath("assets", "glyphs.png")) as path:
        pixels = np.asarray(Image.open(path).convert("L"), dtype=np.uint8)
    height, width = pixels.shape
    meta = json.loads(_read("glyphs.json"))
    glyphs = {
        ch: Glyph((x / width, y / height, (x + w) / width, (y + h) / height), w, h, left, top, advance)
        for ch, (x, y, w, h, left, top, advance) in meta["glyphs"].items()
    }
    # "H" sits on the baseline; its rect starts PAD pixels above the ink.
    cap_height = -glyphs["H"].top - meta["pad"]
    return pixels, glyphs, int(meta["size"]), cap_height
