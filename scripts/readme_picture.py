"""The README's picture: the frames `cogsim demo` draws in cogsim's own looks, side by side.

    .venv/bin/cogsim demo --out runs/demo && .venv/bin/python scripts/readme_picture.py runs/demo docs/images/demo.png

Only cogsim's own drawings go into it (never a release's image file): the demo's renderer section
draws a KidGym grid, a Cube Bench net, a Matching Pairs board and a 3D maze view with cogsim's looks.
"""

import sys
from pathlib import Path

from PIL import Image

FRAMES = ("grid.png", "cube_net.png", "cards.png", "maze3d.png")
HEIGHT, GAP = 160, 8


def strip(demo_dir: Path) -> Image.Image:
    frames = [Image.open(demo_dir / name).convert("RGB") for name in FRAMES]
    scaled = [frame.resize((round(frame.width * HEIGHT / frame.height), HEIGHT), Image.LANCZOS) for frame in frames]
    picture = Image.new("RGB", (sum(f.width for f in scaled) + GAP * (len(scaled) - 1), HEIGHT), "white")
    x = 0
    for frame in scaled:
        picture.paste(frame, (x, 0))
        x += frame.width + GAP
    return picture


if __name__ == "__main__":
    demo_dir, out = Path(sys.argv[1]), Path(sys.argv[2])
    strip(demo_dir).save(out, optimize=True)
    print(f"{out}: {out.stat().st_size:,} bytes")
