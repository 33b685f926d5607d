"""The README's picture: first frames in cogsim's own looks, side by side.

    .venv/bin/python scripts/readme_picture.py docs/images/demo.png

Only cogsim's own drawings go into it (never a release's image file, whose looks are the defaults):
a KidGym grid, a Cube Bench net, a Matching Pairs board and a 3D maze view, each `look="cogsim"`.
"""

import sys
from pathlib import Path

from PIL import Image

import cogsim

FRAMES = (
    ("kidgym/maze", {"level": 2, "look": "cogsim"}),
    ("cube/optimal-move", {"depth": 3, "look": "cogsim"}),
    ("pairs/single", {"look": "cogsim", "modality": "image", "theme": "poker"}),
    ("maze3d/nav", {"look": "cogsim", "modality": "3d"}),
)
HEIGHT, GAP = 160, 8


def first_frame(env_id: str, options: dict) -> Image.Image:
    env = cogsim.make(env_id, **options)
    observation, _ = env.reset(seed=0)
    env.close()
    return Image.fromarray(observation["images"][0]).convert("RGB")


def strip() -> Image.Image:
    frames = [first_frame(env_id, options) for env_id, options in FRAMES]
    scaled = [frame.resize((round(frame.width * HEIGHT / frame.height), HEIGHT), Image.LANCZOS) for frame in frames]
    picture = Image.new("RGB", (sum(f.width for f in scaled) + GAP * (len(scaled) - 1), HEIGHT), "white")
    x = 0
    for frame in scaled:
        picture.paste(frame, (x, 0))
        x += frame.width + GAP
    return picture


if __name__ == "__main__":
    out = Path(sys.argv[1])
    strip().save(out, optimize=True)
    print(f"{out}: {out.stat().st_size:,} bytes")
