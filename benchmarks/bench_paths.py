"""Frames per second by render path: KidGym grid frames (288 and 576 px), minimaps (128 and 576 px)
and 3D maze views (128 and 576 px, always the GL's) in batches of 1, 64 and 1,024 frames per call, on
the GL path and on the CPU compositor, each path's renderer built explicitly (``Renderer(path=...)``);
then the compositor alone composing a batch of 64 grid frames at 576 px on 1 thread and on all.
The GL device is printed first: Mesa llvmpipe on a CPU machine, the GPU's own driver on a GPU.

    python benchmarks/bench_paths.py                                  # batches of 1 and 64
    python benchmarks/bench_paths.py --batches 1,64,1024 --rounds 3   # with 1,024 (1 GB of 576 px frames)
    python benchmarks/bench_paths.py --paths gl                       # one path only

Rates are best of ``--rounds``, each round timing every case once in turn (the machine may be shared).
"""

from __future__ import annotations

import argparse
import time
from functools import lru_cache, partial

import numpy as np

from cogsim import _core, render
from cogsim.benchmarks.kidgym import cogsim_look as kidgym_look
from cogsim.benchmarks.rngbench.maze import cogsim_look as maze_look
from cogsim.benchmarks.rngbench.maze.cogsim_look import ViewOptions

GRID_SIZES = (288, 576)  # KidGym frames are 9 cells of 32, 64 or 96 px
SQUARE_SIZES = (128, 576)


@lru_cache(maxsize=None)
def renderer(path: str) -> render.Renderer:
    return render.Renderer(path=path)


@lru_cache(maxsize=None)
def grid_scenes(count: int, size: int) -> list:
    return [kidgym_look.example_grid(seed, cell_size=size // kidgym_look.GRID_CELLS) for seed in range(count)]


@lru_cache(maxsize=None)
def map_views(count: int) -> list:
    return [maze_look.example_map_view(seed % 64) for seed in range(count)]


@lru_cache(maxsize=None)
def maze_views(count: int):
    mazes = renderer("gl").mazes([maze_look.example_maze(seed, 10) for seed in range(8)])
    rng = np.random.default_rng(0)
    return mazes, *(rng.integers(0, high, count) for high in (8, 10, 10, 4))


def cases(paths: list[str], batches: list[int]) -> dict:
    """(workload, size, batch, path) -> a call drawing ``batch`` frames."""
    out = {}
    for batch in batches:
        for path in paths:
            r = renderer(path)
            for size in GRID_SIZES:
                out["KidGym grid", size, batch, path] = partial(r.grid, grid_scenes(batch, size))
            for size in SQUARE_SIZES:
                out["minimap", size, batch, path] = partial(r.minimap, map_views(batch), size)
        mazes, *placement = maze_views(batch)
        for size in SQUARE_SIZES:
            out["3D maze view", size, batch, "gl"] = partial(mazes.views, *placement, ViewOptions(size, size))
    return out


def measure(calls: dict, rounds: int) -> dict:
    best = {key: float("inf") for key in calls}
    for call in calls.values():
        call()  # warm-up: programs, targets, stamps
    for _ in range(rounds):
        for key, call in calls.items():
            began = time.perf_counter()
            call()
            best[key] = min(best[key], time.perf_counter() - began)
    return {key: key[2] / seconds for key, seconds in best.items()}


def compose_scaling(rounds: int) -> tuple[float, float, int]:
    """Frames per second of the compositor alone on 64 grid frames at 576 px: (1 thread, all threads, threads)."""
    r = renderer("compositor")
    scenes = grid_scenes(64, 576)
    canvas = r._canvas(576, 576)
    for index, scene in enumerate(scenes):
        canvas.frame = index
        kidgym_look.draw_state(canvas, scene)
    rows, bases = canvas.instances(), [kidgym_look.base_layer(r, scene) for scene in scenes]
    out = np.empty((64, 576, 576, 3), dtype=np.uint8)
    rates = []
    for threads in (1, 0):
        r._compositor.draw(rows, (576, 576), bases, [out], threads=threads)
        best = float("inf")
        for _ in range(rounds):
            began = time.perf_counter()
            r._compositor.draw(rows, (576, 576), bases, [out], threads=threads)
            best = min(best, time.perf_counter() - began)
        rates.append(64 / best)
    return rates[0], rates[1], _default_threads()


def _default_threads() -> int:
    import os

    value = os.environ.get("COGSIM_THREADS", "")
    return int(value) if value.isdigit() and int(value) > 0 else (os.cpu_count() or 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", default="gl,compositor", help="render paths, comma-separated")
    parser.add_argument("--batches", default="1,64", help="frames per call, comma-separated (1,64,1024)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    paths = [p for p in args.paths.split(",") if p]
    for path in paths:
        render.check_render_path(path)
    batches = [int(b) for b in args.batches.split(",") if b]
    print(f"GL device: {renderer(paths[0]).gl_renderer}; core: {_core.__doc__.splitlines()[0][:40]}...\n")
    rates = measure(cases(paths, batches), args.rounds)
    columns = sorted({key[3] for key in rates}, key=lambda p: (p != "gl", p))
    print("| workload | frame | frames per call | " + " | ".join(f"{p} frames/s" for p in columns) + " |")
    print("| --- | --- | ---: | " + " | ".join("---:" for _ in columns) + " |")
    for workload, size, batch in sorted({key[:3] for key in rates}, key=lambda k: (k[0], k[1], k[2])):
        cells = [
            f"{rates[workload, size, batch, p]:,.0f}" if (workload, size, batch, p) in rates else "" for p in columns
        ]
        print(f"| {workload} | {size} px | {batch:,} | " + " | ".join(cells) + " |")
    if "compositor" in paths:
        one, every, threads = compose_scaling(args.rounds)
        print(
            f"\nCompositor alone, 64 grid frames at 576 px: {one:,.0f} frames/s on 1 thread, {every:,.0f} on "
            f"{threads} ({every / one:.2f}x)"
        )


if __name__ == "__main__":
    main()
