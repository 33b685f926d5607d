"""Deep cube queries with and without the phase-1 table: nodes and seconds per query.

    .venv/bin/python benchmarks/cube_deep.py --depths 10-14 --per-depth 5 --random 2 --random-max-nodes 4e8

Exact-depth scrambles (seeds 0..N-1, generated with the phase-1 oracle) are answered one thread
at a time by both oracles; the plain oracle skips depths above --plain-max-depth. Random states
(Cube.random_state(seed)) run with the phase-1 table only, under a node budget: a state that
exceeds it is reported as "> budget", with the time spent. --build times a fresh build of the
phase-1 table in a temporary directory (about 30 s and 1.4 GB peak on 2 cores).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

from cogsim import _core, cube
from cogsim._cache import cache_dir


def _depths(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def _time(oracle, packed: np.ndarray, max_nodes: int):
    started = time.perf_counter()
    distances, nodes = oracle.distances(packed, max_nodes, 1)
    return distances, nodes, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--depths", default="10-14")
    parser.add_argument("--per-depth", type=int, default=5)
    parser.add_argument("--plain-max-depth", type=int, default=13)
    parser.add_argument("--random", type=int, default=1, help="random states to attempt")
    parser.add_argument("--random-max-nodes", type=float, default=4e8)
    parser.add_argument("--build", action="store_true", help="time a fresh phase-1 table build")
    args = parser.parse_args()

    directory = str(cache_dir("cube"))
    if args.build:
        with tempfile.TemporaryDirectory() as scratch:
            for name in os.listdir(directory):
                if name.endswith(".table") and "phase1" not in name:
                    os.symlink(os.path.join(directory, name), os.path.join(scratch, name))
            started = time.perf_counter()
            info = _core.CubeOracle(scratch, 6, 6, 0, None, phase1=True).info()
            table = next(t for t in info["tables"] if t["name"].startswith("cube-phase1"))
            print(f"phase-1 table: {table['entries']:,} entries, {table['bytes'] / 2**20:.1f} MiB, "
                  f"BFS build {table['build_seconds']:.1f} s, oracle ready in {time.perf_counter() - started:.1f} s")

    deep = _core.CubeOracle(directory, 6, 6, 0, None, phase1=True)
    plain = _core.CubeOracle(directory, 6, 6, 0, None)
    print("| depth | states | phase-1: mean nodes | phase-1: s/query | plain: mean nodes | plain: s/query | node ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for depth in _depths(args.depths):
        seeds = list(range(args.per_depth))
        scrambles = deep.scrambles([depth] * len(seeds), seeds, 10**12, 0)
        packed, _ = cube.as_states([" ".join(cube.MOVES[m] for m in s) for s in scrambles])
        d1, n1, t1 = _time(deep, packed, 10**12)
        assert (d1 == depth).all()
        row = f"| {depth} | {len(seeds)} | {n1.mean():,.0f} | {t1 / len(seeds):.3f} |"
        if depth <= args.plain_max_depth:
            d0, n0, t0 = _time(plain, packed, 10**12)
            assert (d0 == d1).all()
            row += f" {n0.mean():,.0f} | {t0 / len(seeds):.3f} | {n0.mean() / n1.mean():.1f}x |"
        else:
            row += " - | - | - |"
        print(row, flush=True)

    budget = int(args.random_max_nodes)
    for seed in range(args.random):
        packed, _ = cube.as_states(cube.Cube.random_state(seed))
        started = time.perf_counter()
        try:
            distances, nodes = deep.distances(packed, budget, 1)
            print(f"random state {seed}: distance {distances[0]}, {nodes[0]:,} nodes, "
                  f"{time.perf_counter() - started:.1f} s", flush=True)
        except cube.SearchLimitError as error:
            print(f"random state {seed}: > {budget:,} nodes after {time.perf_counter() - started:.1f} s ({error})",
                  flush=True)


if __name__ == "__main__":
    main()
