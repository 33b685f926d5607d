"""Golden frames of RNG-Bench's Matching Pairs, drawn by the release's own code.

    COGSIM_RELEASES=DIR python scripts/release_goldens/pairs.py [--out FILE]

DIR/RNGBench is a checkout or unpacked archive of the release commit (f7fdd6e). The script runs the
release's Board, CardAssets, ImageCardRenderer, ImageRenderer and the oracle condition's side-by-side
composition on fixed deals and board states, and writes tests/benchmarks/rngbench/pairs/data/pairs_release_frames.json:
per case the state, the frame size, the SHA-256 of the raw RGB frame, of the JPEG bytes the release
sends (ImageStore.save_pil: quality 85, optimize=True) and of those bytes decoded.

The release loads DejaVu fonts from /usr/share/fonts; this script hands it matplotlib's bundled
files of the same names instead (the ones cogsim draws with), so the goldens do not depend on the
machine's fonts. Run it with the Pillow (and numpy) versions cogsim is tested with; they are recorded.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import io
import json
import os
import sys
from pathlib import Path

import numpy as np
import PIL
from PIL import Image, ImageFont

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "tests" / "benchmarks" / "rngbench" / "pairs" / "data" / "pairs_release_frames.json"
COMMIT = "f7fdd6eb1a61d3403da00bbd1a90f7eb5b50b8b9"
SYSTEM_FONTS = "/usr/share/fonts/truetype/dejavu/"

# name, rows, cols, theme (None: the release's text board), seed, cell, and the state:
# "up": cards shown face up (current_flips), "matched": identities removed, "oracle": the memory-aid
# frame with "memory" (cards revealed so far, still on the board) face up on the right.
CASES = [
    dict(name="10x10-noise-down", rows=10, cols=10, theme="noise", seed=0),
    dict(name="8x10-poker-down", rows=8, cols=10, theme="poker", seed=1),
    dict(name="10x10-poker-empties", rows=10, cols=10, theme="poker", seed=5, matched=list(range(0, 50, 3))),
    dict(name="8x10-noise-empties-all", rows=8, cols=10, theme="noise", seed=6, matched=list(range(40))),
    dict(name="10x10-poker-first-flip", rows=10, cols=10, theme="poker", seed=0, up=[[2, 3]]),
    dict(
        name="10x10-noise-mismatch",
        rows=10,
        cols=10,
        theme="noise",
        seed=2,
        up=[[0, 0], [9, 9]],
        matched=[3, 4, 5, 11, 12, 30],
    ),
    dict(name="8x10-poker-match-shown", rows=8, cols=10, theme="poker", seed=3, up="pair:7", matched=[1, 2, 7, 20]),
    dict(name="8x10-noise-all-up", rows=8, cols=10, theme="noise", seed=4, up="all"),
    dict(name="10x10-poker-all-up", rows=10, cols=10, theme="poker", seed=9, up="all", matched=[0, 1]),
    dict(name="8x10-textures-up", rows=8, cols=10, theme="textures", seed=7, up=[[1, 1], [5, 8]], matched=[2]),
    dict(name="8x10-abstract-up", rows=8, cols=10, theme="abstract", seed=8, up="all"),
    dict(name="8x10-similar-colors-up", rows=8, cols=10, theme="similar_colors", seed=10, up="all"),
    dict(name="4x4-poker-cell48", rows=4, cols=4, theme="poker", seed=11, cell=48, up="all", matched=[2]),
    dict(name="4x4-noise-cell40", rows=4, cols=4, theme="noise", seed=12, cell=40, up=[[0, 1], [3, 2]], matched=[1]),
    dict(
        name="8x10-poker-oracle",
        rows=8,
        cols=10,
        theme="poker",
        seed=4,
        oracle=True,
        up=[[0, 2]],
        matched=[5, 6],
        memory=[[0, 2], [1, 1], [3, 7], [7, 9], [4, 4]],
    ),
    dict(name="10x10-noise-oracle-start", rows=10, cols=10, theme="noise", seed=0, oracle=True, memory=[]),
    dict(
        name="6x6-noise-oracle",
        rows=6,
        cols=6,
        theme="noise",
        seed=13,
        oracle=True,
        matched=[0],
        memory=[[2, 2], [5, 0]],
    ),
    dict(name="4x4-text", rows=4, cols=4, theme=None, seed=14, up=[[1, 2]], matched=[3]),
    dict(
        name="6x6-text-oracle", rows=6, cols=6, theme=None, seed=15, oracle=True, matched=[1], memory=[[0, 0], [5, 5]]
    ),
]


def matplotlib_font(name: str) -> str:
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or spec.origin is None:
        sys.exit("matplotlib is needed for its bundled DejaVu fonts: pip install matplotlib")
    return str(Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf" / name)


def pin_fonts() -> dict:
    """ImageFont.truetype opens matplotlib's DejaVu file wherever the release names the system's."""
    original = ImageFont.truetype
    used = {}

    def truetype(font=None, size=10, *args, **kwargs):
        if isinstance(font, str) and font.startswith(SYSTEM_FONTS):
            path = matplotlib_font(os.path.basename(font))
            used[os.path.basename(font)] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
            font = path
        return original(font, size, *args, **kwargs)

    ImageFont.truetype = truetype
    return used


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def state_of(case: dict, board) -> tuple[list, list, list]:
    """(face-up coordinates, matched coordinates, memory coordinates) of a case on the release's board."""
    where = {}
    for r in range(board.rows):
        for c in range(board.cols):
            where.setdefault(board.symbols.index(board.cards[r][c]), []).append([r, c])
    matched = [rc for identity in case.get("matched", []) for rc in where[identity]]
    up = case.get("up", [])
    if up == "all":
        up = [[r, c] for r in range(board.rows) for c in range(board.cols)]
    elif isinstance(up, str):  # "pair:K": both cards of identity K (the reveal of a match just made)
        up = where[int(up.split(":")[1])]
    return up, matched, case.get("memory", [])


def draw(case: dict, release: Path):
    from common.oracle_memory import _compose_side_by_side
    from env.board import Board
    from env.card_assets import CardAssets
    from env.renderer import ImageCardRenderer, ImageRenderer

    board = Board(rows=case["rows"], cols=case["cols"], seed=case["seed"])
    up, matched, memory = state_of(case, board)
    for r, c in matched:
        board.matched[r][c] = True
    if case["theme"] is None:
        renderer = ImageRenderer()
    else:
        cell = case.get("cell", 64)
        assets = CardAssets(case["theme"], str(release / "1_matching_pairs_new" / "assets"), (cell, cell))
        assets.select(board.symbols, case["seed"])
        renderer = ImageCardRenderer(card_assets=assets)
    live = renderer.render(board, [tuple(rc) for rc in up])
    if case.get("oracle"):
        aid = renderer.render(board, [tuple(rc) for rc in memory])
        image = _compose_side_by_side(live, aid, "Live board", "Memory aid (revealed cards)")
    else:
        image = live
    identities = [[board.symbols.index(board.cards[r][c]) for c in range(board.cols)] for r in range(board.rows)]
    return image, identities, up, matched, memory


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    releases = os.environ.get("COGSIM_RELEASES")
    if not releases:
        sys.exit("set COGSIM_RELEASES=DIR, where DIR/RNGBench is a copy of the release commit")
    release = Path(releases) / "RNGBench"
    sys.path.insert(0, str(release / "1_matching_pairs_new"))
    fonts = pin_fonts()
    frames = []
    for case in CASES:
        image, identities, up, matched, memory = draw(case, release)
        raw = np.asarray(image.convert("RGB"))
        buffer = io.BytesIO()
        image.convert("RGB").save(buffer, format="JPEG", quality=85, optimize=True)  # ImageStore.save_pil
        sent = buffer.getvalue()
        decoded = np.asarray(Image.open(io.BytesIO(sent)).convert("RGB"))
        frames.append(
            {
                "name": case["name"],
                "rows": case["rows"],
                "cols": case["cols"],
                "theme": case["theme"],
                "seed": case["seed"],
                "cell": case.get("cell", 64),
                "oracle": bool(case.get("oracle")),
                "identities": identities,
                "up": up,
                "matched": matched,
                "memory": memory,
                "needs_files": case["theme"] is not None and bool(up or memory),
                "size": [raw.shape[1], raw.shape[0]],
                "raw_sha256": sha256(raw.tobytes()),
                "jpeg_sha256": sha256(sent),
                "jpeg_bytes": len(sent),
                "decoded_sha256": sha256(decoded.tobytes()),
            }
        )
        print(f"{case['name']}: {raw.shape[1]}x{raw.shape[0]}")
    data = {
        "source": "InternLM/RNGBench 1_matching_pairs_new: env/renderer.py (ImageCardRenderer, ImageRenderer), "
        "env/card_assets.py (CardAssets), common/oracle_memory.py (_compose_side_by_side), "
        "common/image_store.py (JPEG quality 85, optimize=True), run offline by scripts/release_goldens/pairs.py",
        "commit": COMMIT,
        "pillow": PIL.__version__,
        "numpy": np.__version__,
        "fonts": {
            name: {"file": f"matplotlib mpl-data/fonts/ttf/{name}", "sha256": digest} for name, digest in fonts.items()
        },
        "frames": frames,
    }
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(frames)} frames")


if __name__ == "__main__":
    main()
