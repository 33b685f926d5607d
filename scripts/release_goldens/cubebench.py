#!/usr/bin/env python3
"""Golden frames of Cube Bench's net, drawn by the release's own code.

Runs ``VirtualCube.render`` / ``render_variant`` of the release (``sim/cube_simulator.py``, commit
1ca7d58 of github.com/dana-23/cube-bench) on fixed states (solved and scrambles given as move
strings) in every variant the invariance sweep sends (clean, occl, bright, recolor with the sweep's
map), encodes each image as the release sends it to a model (its API strategies: ``_as_pil(image)``
saved by Pillow as PNG), and writes the SHA-256 of the raw RGB frame and of the decoded PNG to
tests/benchmarks/cubebench/data/cubebench_release_frames.json. No image is written.

    COGSIM_RELEASES=DIR python scripts/release_goldens/cubebench.py [--out FILE]

DIR/cube-bench is a checkout (or extracted archive) of the release. Needs numpy, matplotlib and
Pillow at the versions cogsim pins for these pixels (matplotlib 3.11.2, Pillow 13.0.0), pycuber and
kociemba (the simulator imports them): ``pip install .[cubebench-release]``. The simulator module
is loaded alone: its imports of torch (used only for tensor outputs) and of the release's optimal
solver (which builds its tables on import; used only for distances) are replaced by empty modules;
nothing on the drawing path is.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import io
import json
import os
import sys
import types
from pathlib import Path

SIMULATOR = Path("src/cube_bench/sim/cube_simulator.py")
RELEASE_DIR = "cube-bench"
RELEASE_COMMIT = "1ca7d58"
OUTPUT = (
    Path(__file__).resolve().parents[2]
    / "tests"
    / "benchmarks"
    / "cubebench"
    / "data"
    / "cubebench_release_frames.json"
)
PINNED = {"matplotlib": "3.11.2", "PIL": "13.0.0"}
# The invariance sweep's variants and recolour map (tests/invariance_sweep.py of the release).
VARIANTS = ("clean", "occl", "bright", "recolor")
RECOLOR_MAP = {"white": "yellow", "yellow": "white", "orange": "red", "red": "orange", "green": "blue", "blue": "green"}
# Fixed states as move strings (the release's notation; "" is the solved cube).
STATES = {
    "solved": "",
    "one-turn": "R",
    "sexy-move": "R U R' U'",
    "six-moves": "F2 D' L B2 R' U2",
    "superflip": "U R2 F B R B2 R U2 L B2 R U' D' R2 F R' L B2 U2 F2",
    "twenty-moves": "D2 B' L2 F U' R2 D B2 L' U F2 R' D' B L2 U2 F' R D2 L",
}


def release_root() -> Path:
    releases = os.environ.get("COGSIM_RELEASES")
    if not releases:
        raise SystemExit("set COGSIM_RELEASES=DIR, where DIR/cube-bench holds the release")
    root = Path(releases) / RELEASE_DIR
    if not (root / SIMULATOR).is_file():
        raise SystemExit(f"{root / SIMULATOR} not found: DIR/cube-bench must be a checkout of the release")
    return root


def load_simulator(root: Path) -> types.ModuleType:
    """The release's simulator module, loaded from its file with empty stand-ins for torch and the
    optimal solver (neither is on the drawing path)."""
    for name in ("torch", "cube_bench", "cube_bench.optimal", "cube_bench.optimal.solver", "cube_bench.sim"):
        sys.modules.setdefault(name, types.ModuleType(name))
    spec = importlib.util.spec_from_file_location("cube_bench.sim.cube_simulator", root / SIMULATOR)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def release_frames(simulator: types.ModuleType, moves: str) -> dict:
    """The release's PIL image of the state per variant (its ``render_variant``, return_type "pil")."""
    cube = simulator.VirtualCube()
    if moves:
        cube.apply(moves)
    return {
        variant: cube.render_variant(
            variant, recolor_map=RECOLOR_MAP if variant == "recolor" else None, return_type="pil"
        )
        for variant in VARIANTS
    }


def sent_png(image) -> bytes:
    """The bytes the release sends a model (OpenAIStrategy._image_to_data_url, ClaudeStrategy._image_to_b64)."""
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="PNG")
    return buffer.getvalue()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUTPUT)
    args = parser.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import numpy as np
    import PIL
    from PIL import Image

    versions = {"matplotlib": matplotlib.__version__, "PIL": PIL.__version__}
    if versions != PINNED:
        raise SystemExit(f"pinned versions {PINNED} are needed for these pixels, found {versions}")
    root = release_root()
    simulator = load_simulator(root)
    states = []
    for name, moves in STATES.items():
        frames = {}
        for variant, image in release_frames(simulator, moves).items():
            rgb = np.asarray(image.convert("RGB"))
            png = sent_png(image)
            decoded = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
            frames[variant] = {
                "size": [int(rgb.shape[1]), int(rgb.shape[0])],
                "rgb_sha256": sha256(np.ascontiguousarray(rgb).tobytes()),
                "sent": "png",
                "sent_rgb_sha256": sha256(np.ascontiguousarray(decoded).tobytes()),
            }
        states.append({"name": name, "moves": moves, "frames": frames})
    data = {
        "source": (
            f"cube-bench {RELEASE_COMMIT}, src/cube_bench/sim/cube_simulator.py: VirtualCube.apply, then "
            "render_variant(variant, return_type='pil') (render -> _build_canvas, _paint_face, _canvas_to_figure; "
            "_augment_image; recolor_isomorphic for 'recolor' with tests/invariance_sweep.py's recolor_map), "
            "sent as the release's API strategies send it (PIL image saved as PNG); by "
            "scripts/release_goldens/cubebench.py"
        ),
        "simulator_sha256": sha256((root / SIMULATOR).read_bytes()),
        "versions": versions,
        "recolor_map": RECOLOR_MAP,
        "hashes": "SHA-256 of the frame's RGB bytes (H x W x 3, row-major) and of the decoded PNG's",
        "states": states,
    }
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(states)} states x {len(VARIANTS)} variants")


if __name__ == "__main__":
    main()
