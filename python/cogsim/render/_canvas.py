"""2D draw lists: scenes append boxes, shapes, patterns, sprites and text for a batch of frames;
the quad pipeline draws the whole list with one instanced call."""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from cogsim.render._assets import AtlasSet

Colour = Sequence[float]  # RGB or RGBA, 0..255

KIND_BOX, KIND_SHAPE, KIND_PATTERN, KIND_NOISE, KIND_SPRITE, KIND_GLYPH = range(6)
SHAPES = ("circle", "square", "triangle", "diamond", "star", "hexagon", "cross", "ring", "heart", "bar")
PATTERNS = ("stripes", "checker", "dots", "grid", "waves", "zigzag", "rings", "tiles")
INSTANCE_FLOATS = 20  # rect 4, uv 4, colour 4, colour2 4, (kind, p0, p1, tile) 4
_NONE = (0.0, 0.0, 0.0, 0.0)
# Item corners lie on a grid of 1/256 px (the GL rasteriser's own steps) within +-MAX_COORDINATE px, so
# that float32 holds them and their differences exactly: an item drawn whole pixels away is the same
# item, which the CPU compositor relies on (cpp/render/compose.hpp).
SUBPIXELS = 256.0
MAX_COORDINATE = 32768.0


@lru_cache(maxsize=4096)
def _rgba(colour: tuple) -> tuple[float, float, float, float]:
    if len(colour) == 3:
        return (colour[0] / 255.0, colour[1] / 255.0, colour[2] / 255.0, 1.0)
    return tuple(c / 255.0 for c in colour)  # type: ignore[return-value]


def rgba(colour: Colour) -> tuple[float, float, float, float]:
    """A 0..255 RGB or RGBA colour as 0..1 RGBA (scenes repeat a few colours: cached)."""
    return _rgba(colour if type(colour) is tuple else tuple(colour))


class Canvas:
    """Draw items for frames of one size; ``frame`` selects the frame the next items belong to."""

    def __init__(self, atlases: AtlasSet, width: int, height: int):
        self.atlases = atlases
        self.width, self.height = width, height
        self.frame = 0
        self._rows: list[tuple] = []

    def __len__(self) -> int:
        return len(self._rows)

    def box(self, rect, fill: Colour, border: Colour = (0, 0, 0, 0), width: float = 0.0, radius: float = 0.0):
        self._add(rect, _NONE, rgba(fill), rgba(border), KIND_BOX, radius, width)

    def shape(self, name: str, rect, fill: Colour, rotation: float = 0.0):
        self._add(rect, _NONE, rgba(fill), _NONE, KIND_SHAPE, SHAPES.index(name), rotation)

    def pattern(self, name: str, rect, fore: Colour, back: Colour, repeats: float, angle: float = 0.0):
        self._add(rect, (PATTERNS.index(name), repeats, angle, 0.0), rgba(fore), rgba(back), KIND_PATTERN, 0, 0)

    def noise(self, rect, seed: int, cells: int, fore: Colour, back: Colour):
        self._add(rect, (seed % (1 << 24), cells, 0.0, 0.0), rgba(fore), rgba(back), KIND_NOISE, 0, 0)

    def sprite(self, name: str, rect, tint: Colour = (255, 255, 255)):
        try:
            uv = self.atlases.sprite_uv[name]
        except KeyError:
            raise ValueError(f"sprite must be one of the atlas names (cogsim.render.SPRITES), got {name!r}") from None
        self._add(rect, uv, rgba(tint), _NONE, KIND_SPRITE, 0, 0)

    def sprite_part(self, name: str, rect, part, tint: Colour = (255, 255, 255)):
        """Draws the part ``(u0, v0, u1, v1)`` of a sprite (fractions of its width and height, from its
        top-left corner) stretched over ``rect``; ``(0, 0, 0.5, 0.5)`` is its top-left quarter."""
        try:
            s0, t0, s1, t1 = self.atlases.sprite_uv[name]
        except KeyError:
            raise ValueError(f"sprite must be one of the atlas names (cogsim.render.SPRITES), got {name!r}") from None
        u0, v0, u1, v1 = _part(part)
        du, dv = s1 - s0, t1 - t0
        self._add(rect, (s0 + u0 * du, t0 + v0 * dv, s0 + u1 * du, t0 + v1 * dv), rgba(tint), _NONE, KIND_SPRITE, 0, 0)

    def text(self, text: str, x: float, y: float, size: float, colour: Colour, anchor: str = "mm") -> float:
        """Draws ``text`` with cap height ``size`` px; anchor is horizontal (l/m/r) + vertical
        (t: cap top, m: middle of the caps, b: baseline). Returns the text width in pixels."""
        glyphs = self.atlases.glyphs
        scale = size / self.atlases.cap_height
        width = self.text_width(text, size)
        pen = x - {"l": 0.0, "m": width / 2, "r": width}[anchor[0]]
        baseline = y + {"t": size, "m": size / 2, "b": 0.0}[anchor[1]]
        colour_ = rgba(colour)
        for ch in text:
            glyph = glyphs.get(ch) or glyphs["?"]
            if ch != " ":
                x0, y0 = pen + glyph.left * scale, baseline + glyph.top * scale
                rect = (x0, y0, x0 + glyph.width * scale, y0 + glyph.height * scale)
                self._add(rect, glyph.uv, colour_, _NONE, KIND_GLYPH, 0, 0)
            pen += glyph.advance * scale
        return width

    def text_width(self, text: str, size: float) -> float:
        glyphs = self.atlases.glyphs
        return sum((glyphs.get(ch) or glyphs["?"]).advance for ch in text) * size / self.atlases.cap_height

    def fit_text(self, text: str, x: float, y: float, size: float, max_width: float, colour: Colour, anchor="mm"):
        """Like :meth:`text`, shrinking the size until the text fits in ``max_width``."""
        width = self.text_width(text, size)
        if width > max_width > 0:
            size *= max_width / width
        return self.text(text, x, y, size, colour, anchor)

    def _add(self, rect, uv, colour, colour2, kind, p0, p1):
        self._rows.append((*rect, *uv, *colour, *colour2, kind, p0, p1, self.frame))

    def instances(self) -> np.ndarray:
        if not self._rows:
            return np.zeros((0, INSTANCE_FLOATS), dtype=np.float32)
        rows = np.asarray(self._rows, dtype=np.float32)
        rect = rows[:, :4]
        if not np.all(np.abs(rect) <= MAX_COORDINATE):
            bad = rect[~np.all(np.abs(rect) <= MAX_COORDINATE, axis=1)][0]
            raise ValueError(f"draw item rects must be finite and within +-{MAX_COORDINATE:g} px, got {bad.tolist()}")
        rect[...] = np.floor(rect * SUBPIXELS + 0.5) / SUBPIXELS  # as shaders/quad.vert snaps corners
        return rows


def _part(part) -> tuple[float, float, float, float]:
    try:
        u0, v0, u1, v1 = (float(v) for v in part)
    except (TypeError, ValueError):
        raise ValueError(f"part must be (u0, v0, u1, v1) fractions of the sprite, got {part!r}") from None
    if not (0.0 <= u0 < u1 <= 1.0 and 0.0 <= v0 < v1 <= 1.0):
        raise ValueError(f"part must satisfy 0 <= u0 < u1 <= 1 and 0 <= v0 < v1 <= 1, got {part!r}")
    return u0, v0, u1, v1
