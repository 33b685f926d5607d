"""Cube Bench's net in the release's look: cogsim against the release's own drawing code, same states,
one run.

    COGSIM_RELEASES=DIR python benchmarks/release_look_cubebench.py [--states 24] [--rounds 3]

DIR/cube-bench is the release (see scripts/release_goldens/cubebench.py, whose loader this uses; the
release's simulator needs pycuber and kociemba). For every state (the release's own seeded scrambles)
it times, per frame: the release's ``render(return_type="numpy")`` (raw) and ``render(return_type=
"bytes")`` (the PNG it sends), its ``render_variant`` for the sweep's variants, and cogsim's
``release_frame`` (one frame per call), ``release_frames`` (a batch), the frame encoded by the core
(``to_png_bytes``, what the harness sends) and by Pillow (the floor of the release's path). Every
cogsim frame is checked equal to the release's first. Prints a Markdown table of medians.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import os
import platform
import statistics
import time
from pathlib import Path

import numpy as np
from PIL import Image

from cogsim.benchmarks.cubebench import look as net
from cogsim.benchmarks.cubebench import views
from cogsim.cube import Cube
from cogsim.render.png import to_png_bytes

ROOT = Path(__file__).resolve().parents[1]


def goldens_module():
    spec = importlib.util.spec_from_file_location(
        "cubebench_goldens", ROOT / "scripts" / "release_goldens" / "cubebench.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(fn, rounds: int) -> tuple[float, object]:
    """Median seconds of ``rounds`` calls, and the last result."""
    times, result = [], None
    for _ in range(rounds):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def pillow_png(frame: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(frame).save(buffer, format="PNG")
    return buffer.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=24)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    goldens = goldens_module()
    simulator = goldens.load_simulator(goldens.release_root())
    times: dict[str, list[float]] = {}

    def record(name: str, seconds: float) -> None:
        times.setdefault(name, []).append(seconds)

    net.release_frame(Cube.solved())  # build the fixed frames once, outside the timings
    shown_states = []
    for seed in range(args.states):
        cube = simulator.VirtualCube()
        moves = str(cube.scramble(random_seed=seed, n_moves=1 + seed % 20))
        shown = views.recolour(Cube.from_moves(moves), "release")
        shown_states.append(shown)
        seconds, release_raw = timed(lambda: cube.render(return_type="numpy"), args.rounds)
        record("release raw", seconds)
        seconds, release_png = timed(lambda: cube.render(return_type="bytes"), args.rounds)
        record("release as sent (PNG)", seconds)
        seconds, frame = timed(lambda: net.release_frame(shown), args.rounds)
        record("cogsim raw", seconds)
        assert np.array_equal(frame, release_raw), moves
        assert np.array_equal(np.asarray(Image.open(io.BytesIO(release_png))), frame), moves
        seconds, png = timed(lambda: to_png_bytes(net.release_frame(shown)), args.rounds)
        record("cogsim as sent (PNG, core encoder)", seconds)
        assert np.array_equal(np.asarray(Image.open(io.BytesIO(png))), release_raw), moves
        record("encode only: core", timed(lambda: to_png_bytes(frame), args.rounds)[0])
        record("encode only: Pillow (the release's)", timed(lambda: pillow_png(frame), args.rounds)[0])
        for variant in ("occl", "bright", "recolor"):
            recolor_map = goldens.RECOLOR_MAP if variant == "recolor" else None
            seconds, image = timed(
                lambda: cube.render_variant(variant, recolor_map=recolor_map, return_type="pil"), args.rounds
            )
            record(f"release variant {variant}", seconds)
            seconds, frame = timed(lambda: net.release_frame(shown, variant), args.rounds)
            record(f"cogsim variant {variant}", seconds)
            assert np.array_equal(frame, np.asarray(image)), (moves, variant)
    batch_seconds, _ = timed(lambda: net.release_frames(shown_states, threads=1), args.rounds)
    record("cogsim raw, batch of all states (per frame, 1 thread)", batch_seconds / len(shown_states))
    batch_seconds, _ = timed(lambda: net.release_frames(shown_states), args.rounds)
    record("cogsim raw, batch of all states (per frame, all cores)", batch_seconds / len(shown_states))
    out = np.empty((len(shown_states), *net.FRAME_SIZE, 3), np.uint8)
    batch_seconds, _ = timed(lambda: net.release_frames(shown_states, out=out), args.rounds)
    record("cogsim raw, batch into a reused array (per frame, all cores)", batch_seconds / len(shown_states))

    median = {name: statistics.median(values) * 1000 for name, values in times.items()}
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    print(f"{args.states} states x {args.rounds} rounds; every cogsim frame equal to the release's\n")
    print("| what | ms per frame (median) | release / cogsim |")
    print("| --- | ---: | ---: |")
    pairs = {
        "cogsim raw": "release raw",
        "cogsim raw, batch of all states (per frame, 1 thread)": "release raw",
        "cogsim raw, batch of all states (per frame, all cores)": "release raw",
        "cogsim raw, batch into a reused array (per frame, all cores)": "release raw",
        "cogsim as sent (PNG, core encoder)": "release as sent (PNG)",
        "cogsim variant occl": "release variant occl",
        "cogsim variant bright": "release variant bright",
        "cogsim variant recolor": "release variant recolor",
    }
    for name, value in median.items():
        peer = pairs.get(name)
        ratio = f"{median[peer] / value:.0f}x" if peer else ""
        print(f"| {name} | {value:.3f} | {ratio} |")
    floor = median["release raw"] / (median["cogsim raw"] + median["encode only: Pillow (the release's)"])
    print(f"\nwith Pillow's encoder (the release's) cogsim's as-sent frame would be {floor:.1f}x the release's")


if __name__ == "__main__":
    main()
