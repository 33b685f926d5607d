#!/usr/bin/env python3
"""Rasterises the renderer's glyph atlas from DejaVu Sans Bold (fonts-dejavu-core, free licence).

Output: python/cogsim/render/assets/glyphs.png (8-bit coverage) and glyphs.json with, per
character, its atlas rect and metrics in pixels at SIZE: [x, y, w, h, left, top, advance]
(left/top: offset of the rect from the pen position on the baseline). Glyphs are rasterised large
and drawn minified through mipmaps, which keeps 10-30 px text crisp.

    python scripts/build_glyph_atlas.py [--font /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf]
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

SIZE = 64
PAD = 6  # empty border around each glyph so minified samples don't pick up neighbours
ATLAS_WIDTH = 1024
ASSETS = Path(__file__).resolve().parents[1] / "python" / "cogsim" / "render" / "assets"
LICENCE_SOURCE = Path("/usr/share/doc/fonts-dejavu-core/copyright")

# Printable ASCII, card suits, arrows, a few symbols the scenes and card themes use.
CHARACTERS = (
    "".join(chr(c) for c in range(32, 127))
    + "\u2660\u2665\u2666\u2663\u2190\u2191\u2192\u2193\u25b2\u25b6\u25bc\u25c0\u25cf\u25a0\u2605\u00b7\u00d7\u00f7"
    + "\u00a7\u00b6\u00a9\u00ae\u00b1\u00bf\u00a1\u00a3\u00a5\u20ac\u03a9\u03a3\u03a6\u03a8\u03bb\u03c0\u2248\u221e\u2260\u221a"
)


def build(font_path: Path) -> None:
    font = ImageFont.truetype(str(font_path), SIZE)
    ascent, _ = font.getmetrics()
    placed, x, y, row_height = {}, 0, 0, 0
    pictures = {}
    for ch in CHARACTERS:
        left, top, right, bottom = font.getbbox(ch, anchor="ls")
        w, h = max(1, right - left) + 2 * PAD, max(1, bottom - top) + 2 * PAD
        if x + w > ATLAS_WIDTH:
            x, y, row_height = 0, y + row_height, 0
        picture = Image.new("L", (w, h), 0)
        ImageDraw.Draw(picture).text((PAD - left, PAD - top), ch, font=font, fill=255, anchor="ls")
        pictures[ch] = (x, y, picture)
        advance = font.getlength(ch)
        placed[ch] = [x, y, w, h, left - PAD, top - PAD, advance]
        x, row_height = x + w, max(row_height, h)
    atlas = Image.new("L", (ATLAS_WIDTH, y + row_height), 0)
    for px, py, picture in pictures.values():
        atlas.paste(picture, (px, py))
    ASSETS.mkdir(parents=True, exist_ok=True)
    atlas.save(ASSETS / "glyphs.png", optimize=True)
    meta = {
        "source": "DejaVu Sans Bold, see LICENSE-DejaVu.txt",
        "size": SIZE,
        "pad": PAD,
        "ascent": ascent,
        "glyphs": placed,
    }
    (ASSETS / "glyphs.json").write_text(json.dumps(meta, ensure_ascii=False) + "\n")
    if LICENCE_SOURCE.exists():
        shutil.copyfile(LICENCE_SOURCE, ASSETS / "LICENSE-DejaVu.txt")
    print(f"{len(placed)} glyphs -> {ASSETS / 'glyphs.png'} {atlas.size}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--font", type=Path, default=Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"))
    build(parser.parse_args().font)
