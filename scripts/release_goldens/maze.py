"""Golden frames of the released RNG-Bench 3D maze, drawn by the release's own code.

    COGSIM_RELEASES=DIR python scripts/release_goldens/maze.py [--out PATH]

DIR/RNGBench is a checkout or an extracted archive of InternLM/RNGBench at the release commit (its
``2_3d_maze/game.py`` is checked against the SHA-256 below). The script plays fixed action lists in
the release's ``MazeGame3D`` (action space v5, the evaluation sweep's) on fixed mazes and records, at
checkpoints along each walk, the state and the SHA-256 of what the release draws and sends:
``render_frame(show_minimap, show_hud=True)`` and its ``render_image_b64`` JPEG (quality 88) for the 3D
view, ``_build_local_patch()`` and ``render_local_patch_b64`` (quality 92) for the 2D patch. Output:
``tests/benchmarks/rngbench/maze/data/maze_release_frames.json`` (test_maze_release_look.py there reads it).

Run it with the numpy and Pillow versions of cogsim's environment (it records them, and FreeType's
and libjpeg-turbo's). The release loads DejaVu Sans Mono from /usr/share/fonts/truetype/dejavu/ and
falls back to Pillow's default font; here every font it asks for by that path is matplotlib's bundled
copy (matplotlib/mpl-data/fonts/ttf/), the file cogsim pins. Needs numpy, Pillow and matplotlib only
(not cogsim): the test suite imports it to draw the release's frames directly.
"""

from __future__ import annotations

import argparse
import base64
import copy
import hashlib
import importlib.util
import json
import os
import random
import sys
from collections import deque
from pathlib import Path
from types import ModuleType, SimpleNamespace

import numpy as np
import PIL
from PIL import ImageFont, features

RELEASE = "InternLM/RNGBench@f7fdd6eb1a61d3403da00bbd1a90f7eb5b50b8b9"
GAME_SHA256 = "f105738525d8900f8fd7ab49f9f5e697a09def75e262de1535f9a3a3e5df2b60"  # 2_3d_maze/game.py there
SYSTEM_FONT_DIR = "/usr/share/fonts/truetype/dejavu/"
OUT = (
    Path(__file__).resolve().parents[2]
    / "tests"
    / "benchmarks"
    / "rngbench"
    / "maze"
    / "data"
    / "maze_release_frames.json"
)
FACINGS = "NESW"  # cogsim's heading codes 0..3

# (maze_type, size, seed, vision_range, walk): "goal" = a shortest action list to the goal under the
# release's rules; "explore:K" = K actions of a wall follower with random turns (random.Random(seed)).
WALKS = [
    ("v6", 13, 0, 4, "goal"),
    ("v6", 13, 2, 4, "goal"),
    ("v6", 13, 4, 4, "explore:40"),
    ("v6", 9, 1, 2, "explore:40"),
    ("v5", 11, 3, 1, "explore:40"),
    ("v5", 7, 2, 6, "goal"),
    ("v5", 9, 5, 3, "explore:30"),
    ("v6", 5, 0, 3, "goal"),
    ("v5", 3, 4, 4, "explore:12"),
    ("v6", 15, 7, 5, "explore:30"),
]


def font_file() -> Path:
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or spec.origin is None:
        raise SystemExit("matplotlib is needed: its DejaVuSansMono.ttf is the font cogsim pins")
    return Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf" / "DejaVuSansMono.ttf"


def load_release_game(releases: Path) -> ModuleType:
    """The release's 2_3d_maze/game.py as a module, its fonts redirected to matplotlib's copies."""
    path = Path(releases) / "RNGBench" / "2_3d_maze" / "game.py"
    if not path.is_file():
        raise SystemExit(f"{path} is missing: COGSIM_RELEASES must hold RNGBench/, the release's checkout")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != GAME_SHA256:
        raise SystemExit(f"{path} is not the release's file (SHA-256 {digest}, expected {GAME_SHA256})")
    spec = importlib.util.spec_from_file_location("rngbench_maze_game", path)
    assert spec is not None and spec.loader is not None
    game = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(game)
    fonts = font_file().parent
    truetype = ImageFont.truetype

    def pinned_truetype(font, *args, **kwargs):
        if isinstance(font, str) and font.startswith(SYSTEM_FONT_DIR):
            font = str(fonts / font[len(SYSTEM_FONT_DIR) :])
        return truetype(font, *args, **kwargs)

    game.ImageFont = SimpleNamespace(truetype=pinned_truetype, load_default=ImageFont.load_default)
    return game


def new_game(game: ModuleType, maze_type: str, size: int, seed: int, vision_range: int):
    return game.MazeGame3D(maze_size=size, seed=seed, vision_range=vision_range, action_space="v5", maze_type=maze_type)


def shortest_to_goal(g) -> list[str]:
    """A shortest action list to the goal, by breadth-first search over copies of the release's game."""
    start = (g.agent_cell_pos(), g.facing)
    parents = {start: None}
    queue = deque([(start, g)])
    while queue:
        key, state = queue.popleft()
        if state.is_game_over():
            actions = []
            while parents[key] is not None:
                key, action = parents[key]
                actions.append(action)
            return actions[::-1]
        for action in ("turn_left", "turn_right", "move_forward"):
            nxt = copy.deepcopy(state)
            nxt.move(action)
            nkey = (nxt.agent_cell_pos(), nxt.facing)
            if nkey not in parents:
                parents[nkey] = (key, action)
                queue.append((nkey, nxt))
    raise ValueError("the goal cannot be reached")


def explore(g, count: int, seed: int) -> list[str]:
    """A right-hand wall follower that turns at random one time in four (it bumps into walls too)."""
    rng, g, actions = random.Random(seed), copy.deepcopy(g), []
    for _ in range(count):
        if g.is_game_over():
            break
        if rng.random() < 0.25:
            action = rng.choice(["turn_left", "turn_right", "move_forward"])
        elif g._can_move_face(g.facing) and not g._can_move_face(game_turn_right(g)):
            action = "move_forward"
        else:
            action = rng.choice(["turn_right", "move_forward"])
        g.move(action)
        actions.append(action)
    return actions


def game_turn_right(g) -> str:
    return {"E": "S", "S": "W", "W": "N", "N": "E"}[g.facing]


def walk_actions(game: ModuleType, maze_type: str, size: int, seed: int, vision_range: int, walk: str) -> list[str]:
    g = new_game(game, maze_type, size, seed, vision_range)
    if walk == "goal":
        return shortest_to_goal(g)
    return explore(g, int(walk.split(":")[1]), seed)


def checkpoints(count: int) -> list[int]:
    """The states recorded along a walk of `count` actions: the start, every third, the last three."""
    return sorted(set(range(0, count + 1, 3)) | set(range(max(0, count - 2), count + 1)))


def state_of(g) -> dict:
    row, col = g.agent_cell_pos()
    return {
        "row": row,
        "col": col,
        "heading": FACINGS.index(g.facing),
        "steps": g.step_count,
        "visited": sorted([int(r), int(c)] for r, c in g.visited_cells),
    }


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def release_pictures(g, minimap: bool) -> dict:
    """What the release draws for the state: the 3D frame and its JPEG, the 2D patch and its JPEG."""
    frame = np.asarray(g.render_frame(show_minimap=minimap, show_hud=True))
    jpeg = base64.b64decode(g.render_image_b64(show_minimap=minimap, show_hud=True))
    patch = np.asarray(g._build_local_patch())
    patch_jpeg = base64.b64decode(g.render_local_patch_b64())
    return {"frame": frame, "jpeg": jpeg, "patch": patch, "patch_jpeg": patch_jpeg}


def golden_walks(game: ModuleType):
    """(walk record, [(checkpoint, game state at it)]) for every walk."""
    for maze_type, size, seed, vision_range, walk in WALKS:
        actions = walk_actions(game, maze_type, size, seed, vision_range, walk)
        g = new_game(game, maze_type, size, seed, vision_range)
        marks = checkpoints(len(actions))
        states = []
        for done in range(len(actions) + 1):
            if done in marks:
                states.append((done, copy.deepcopy(g)))
            if done < len(actions):
                g.move(actions[done])
        record = {
            "maze_type": maze_type,
            "size": size,
            "seed": seed,
            "vision_range": vision_range,
            "walk": walk,
            "actions": actions,
        }
        yield record, states


def versions() -> dict:
    return {
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "pillow": PIL.__version__,
        "freetype2": features.version("freetype2"),
        "raqm": features.version("raqm"),
        "libjpeg_turbo": features.version("libjpeg_turbo"),
    }


def dump(data: dict) -> str:
    """JSON with one line per walk's settings and per frame."""
    head = json.dumps({k: v for k, v in data.items() if k != "walks"}, indent=1, ensure_ascii=False)
    walks = []
    for walk in data["walks"]:
        settings = json.dumps({k: v for k, v in walk.items() if k != "frames"})
        frames = ",\n".join("   " + json.dumps(frame) for frame in walk["frames"])
        walks.append(f'  {settings[:-1]}, "frames": [\n{frames}\n  ]}}')
    return head[:-2] + ',\n "walks": [\n' + ",\n".join(walks) + "\n ]\n}\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    releases = os.environ.get("COGSIM_RELEASES")
    if not releases:
        raise SystemExit("set COGSIM_RELEASES=DIR, where DIR/RNGBench is the release's checkout")
    game = load_release_game(Path(releases))
    walks = []
    for record, states in golden_walks(game):
        frames = []
        for index, (done, g) in enumerate(states):
            minimap = index % 2 == 1
            pictures = release_pictures(g, minimap)
            frames.append(
                {
                    "after": done,
                    "state": state_of(g),
                    "minimap": minimap,
                    "view_sha256": sha256(pictures["frame"][:360].tobytes()),
                    "frame_sha256": sha256(pictures["frame"].tobytes()),
                    "jpeg_sha256": sha256(pictures["jpeg"]),
                    "jpeg_bytes": len(pictures["jpeg"]),
                    "patch_sha256": sha256(pictures["patch"].tobytes()),
                    "patch_jpeg_sha256": sha256(pictures["patch_jpeg"]),
                    "patch_jpeg_bytes": len(pictures["patch_jpeg"]),
                }
            )
        walks.append({**record, "frames": frames})
    data = {
        "source": f"{RELEASE} 2_3d_maze/game.py MazeGame3D(maze_size, seed, vision_range, action_space='v5', "
        "maze_type).move(action) for each walk's actions; at each frame's checkpoint: render_frame(show_minimap="
        "minimap, show_hud=True) (640x420 RGB) and render_image_b64 (JPEG quality 88, optimize), "
        "_build_local_patch() (188x188) and render_local_patch_b64 (JPEG quality 92, optimize); hashes are SHA-256 "
        "of the raw RGB bytes (view: the first 360 rows) and of the JPEG bytes. Made by "
        "scripts/release_goldens/maze.py.",
        "font": "matplotlib's mpl-data/fonts/ttf/DejaVuSansMono.ttf in place of the release's "
        "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
        "font_sha256": sha256(font_file().read_bytes()),
        "versions": versions(),
        "frame_shape": [420, 640, 3],
        "patch_shape": [188, 188, 3],
        "walks": walks,
    }
    args.out.write_text(dump(data))
    count = sum(len(w["frames"]) for w in walks)
    print(f"{args.out}: {len(walks)} walks, {count} states, 3D frame and patch each")


if __name__ == "__main__":
    main()
