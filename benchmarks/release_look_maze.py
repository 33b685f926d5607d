"""The 3D maze's release look: cogsim's frames against the release's own drawing code, same states.

    COGSIM_RELEASES=DIR python benchmarks/release_look_maze.py [--rounds 5]

DIR/RNGBench is the release's checkout (InternLM/RNGBench). The states are the golden walks of
scripts/release_goldens/maze.py (154 states over 10 mazes, sizes 3-15, vision ranges 1-6). For each
state both sides draw the same frame (checked byte for byte before timing):

- raw frame: the release's ``render_frame(show_minimap, show_hud=True)`` (a PIL image) against
  cogsim's ``maze.look.frames`` one state per call (as the env draws a turn) and in batches of
  16 states drawn into one reused array (the core's threads);
- as sent: the release's ``render_image_b64`` (its JPEG, quality 88, optimized, in base64) against
  cogsim's frame + ``encode_frames`` (the release's JPEG settings) + base64 (the same string);
- the floor of "as sent": Pillow's JPEG encoding of the same frames, which both sides pay.

Times are medians over rounds (release and cogsim interleaved in each round), wall clock and CPU.
"""

from __future__ import annotations

import argparse
import base64
import importlib.util
import os
import statistics
import time
from pathlib import Path

import numpy as np

from cogsim.benchmarks.rngbench import maze
from cogsim.benchmarks.rngbench.maze import look
from cogsim.benchmarks.rngbench.maze.look import FRAME_FORMATS, BlockWorld, MazeState
from cogsim.render.frames import encode_frames

BATCH = 16
SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "release_goldens" / "maze.py"


def encode(frame: np.ndarray) -> bytes:
    """A 3D frame as the release sends it (JPEG quality 88, optimized): the bytes cogsim sends."""
    return encode_frames([frame], FRAME_FORMATS["3d"])[0]


def load_goldens():
    spec = importlib.util.spec_from_file_location("maze_release_goldens", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def workload(goldens, game):
    """(release game copies, cogsim states) for every golden checkpoint."""
    games, states = [], []
    for record, checkpoints in goldens.golden_walks(game):
        world = BlockWorld.of(maze.generate(record["size"], record["seed"], generator=record["maze_type"]).walls)
        for _, g in checkpoints:
            s = goldens.state_of(g)
            visited = np.zeros((world.size, world.size), bool)
            for r, c in s["visited"]:
                visited[r, c] = True
            games.append(g)
            states.append(
                MazeState(world, s["row"], s["col"], s["heading"], visited, s["steps"], record["vision_range"])
            )
    return games, states


def timed(fn) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def check_same(games, states, minimap: bool) -> None:
    ours = look.frames(states, minimap=minimap)
    for g, frame in zip(games, ours):
        assert np.array_equal(np.asarray(g.render_frame(show_minimap=minimap, show_hud=True)), frame)
        sent = base64.b64encode(encode(frame)).decode("ascii")
        assert sent == g.render_image_b64(show_minimap=minimap, show_hud=True)


def cases(games, states, minimap: bool) -> dict:
    frames = look.frames(states, minimap=minimap)
    chunk = np.empty((BATCH,) + look.FRAME_SHAPE, np.uint8)

    def in_batches():
        for i in range(0, len(states), BATCH):
            part = states[i : i + BATCH]
            look.frames(part, minimap=minimap, out=chunk[: len(part)])

    def one_at_a_time():
        for s in states:
            look.frames([s], minimap=minimap)

    def sent_one_at_a_time():
        for s in states:
            base64.b64encode(encode(look.frames([s], minimap=minimap)[0]))

    return {
        "release: raw frame (render_frame)": lambda: [g.render_frame(show_minimap=minimap) for g in games],
        "cogsim: raw frame, one state per call": one_at_a_time,
        f"cogsim: raw frames, batches of {BATCH} (one array reused)": in_batches,
        "release: as sent (render_image_b64)": lambda: [g.render_image_b64(show_minimap=minimap) for g in games],
        "cogsim: as sent, one state per call": sent_one_at_a_time,
        "floor: Pillow's JPEG of the frames": lambda: [encode(f) for f in frames],
    }


def measure(games, states, minimap: bool, rounds: int) -> dict:
    runs = cases(games, states, minimap)
    for fn in runs.values():  # warm: fonts, text stamps, minimap kits
        fn()
    samples: dict = {name: [] for name in runs}
    for _ in range(rounds):
        for name, fn in runs.items():
            samples[name].append(timed(fn))
    n = len(states)
    return {
        name: (statistics.median(w for w, _ in s) / n, statistics.median(c for _, c in s) / n)
        for name, s in samples.items()
    }


def cold_text_cost(states) -> float:
    """CPU ms per frame when every HUD text piece is new (the text stamp cache emptied before each frame)."""
    start = time.process_time()
    for s in states:
        look._STAMPS.texts.clear()
        look.frames([s])
    return (time.process_time() - start) / len(states) * 1e3


def table(results: dict, minimap: bool) -> list[str]:
    label = "with minimap" if minimap else "no minimap"
    release_raw = results["release: raw frame (render_frame)"]
    release_sent = results["release: as sent (render_image_b64)"]
    floor = results["floor: Pillow's JPEG of the frames"]
    rows = [
        f"| case ({label}) | ms per frame (wall) | CPU ms per frame | vs the release (wall / CPU) |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, (wall, cpu) in results.items():
        peer = release_sent if "sent" in name or "floor" in name else release_raw
        ratio = "" if name.startswith("release") else f"{peer[0] / wall:.1f}x / {peer[1] / cpu:.1f}x"
        rows.append(f"| {name} | {wall * 1e3:.3f} | {cpu * 1e3:.3f} | {ratio} |")
    best = release_sent[0] / floor[0], release_sent[1] / floor[1]
    rows.append(f"| bound on 'as sent': release as sent / JPEG floor | | | {best[0]:.1f}x / {best[1]:.1f}x |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    releases = os.environ.get("COGSIM_RELEASES")
    if not releases:
        raise SystemExit("set COGSIM_RELEASES=DIR (DIR/RNGBench: the release's checkout) to time the release's code")
    goldens = load_goldens()
    games, states = workload(goldens, goldens.load_release_game(Path(releases)))
    print(f"{len(states)} states; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs\n")
    for minimap in (False, True):
        check_same(games, states, minimap)
        print("\n".join(table(measure(games, states, minimap, args.rounds), minimap)) + "\n")
    print(f"cogsim, every HUD text piece new (cold text stamps): {cold_text_cost(states):.3f} CPU ms per frame")


if __name__ == "__main__":
    main()
