"""Deep cube queries with two oracle configurations: nodes and seconds per query.

    .venv/bin/python benchmarks/cube_deep.py --phase1 sorted --compare plain --depths 10-16 --random 5

Exact-depth scrambles (seeds 0..N-1, generated with the --phase1 oracle) are answered one thread
at a time by the --phase1 oracle and by the --compare oracle (skipped above --compare-max-depth).
Random states (Cube.random_state(seed)) run with the --phase1 oracle only, under a node budget: a
state that exceeds it is reported as "> budget", with the time spent. --build times a fresh build
of the --phase1 table in a temporary directory (plain: seconds; sorted: about 2 minutes and 1.7 GB).
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


def _time_build(directory: str, phase1: str) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        for name in os.listdir(directory):
            if name.endswith(".table") and "phase1" not in name:
                os.symlink(os.path.join(directory, name), os.path.join(scratch, name))
        started = time.perf_counter()
        info = _core.CubeOracle(scratch, 6, 6, 0, None, phase1=phase1).info()
        table = next(t for t in info["tables"] if t["name"].startswith("cube-phase1"))
        print(
            f"{table['name']}: {table['entries']:,} entries, {table['bytes'] / 2**20:.1f} MiB, "
            f"BFS build {table['build_seconds']:.1f} s, oracle ready in {time.perf_counter() - started:.1f} s"
        )


def _random_states(oracle, first: int, count: int, budget: int) -> None:
    for seed in range(first, first + count):
        packed, _ = cube.as_states(cube.Cube.random_state(seed))
        started = time.perf_counter()
        try:
            distances, nodes = oracle.distances(packed, budget, 1)
            print(
                f"random state {seed}: distance {distances[0]}, {nodes[0]:,} nodes, "
                f"{time.perf_counter() - started:.1f} s",
                flush=True,
            )
        except cube.SearchLimitError as error:
            print(
                f"random state {seed}: > {budget:,} nodes after {time.perf_counter() - started:.1f} s ({error})",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phase1", choices=["plain", "sorted"], default="sorted")
    parser.add_argument("--compare", choices=["off", "plain", "sorted"], default="plain")
    parser.add_argument("--depths", default="10-14")
    parser.add_argument("--per-depth", type=int, default=5)
    parser.add_argument("--compare-max-depth", type=int, default=15)
    parser.add_argument("--random", type=int, default=1, help="random states to attempt")
    parser.add_argument("--random-first", type=int, default=0, help="seed of the first random state")
    parser.add_argument("--random-max-nodes", type=float, default=4e9)
    parser.add_argument("--build", action="store_true", help="time a fresh build of the --phase1 table")
    args = parser.parse_args()

    directory = str(cache_dir("cube"))
    if args.build:
        _time_build(directory, args.phase1)
    deep = _core.CubeOracle(directory, 6, 6, 0, None, phase1=args.phase1)
    other = _core.CubeOracle(directory, 6, 6, 0, None, phase1=args.compare)
    a, b = f"phase1={args.phase1}", f"phase1={args.compare}"
    print(f"| depth | states | {a}: mean nodes | {a}: s/query | {b}: mean nodes | {b}: s/query | node ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for depth in _depths(args.depths):
        seeds = list(range(args.per_depth))
        scrambles = deep.scrambles([depth] * len(seeds), seeds, 10**12, 0)
        packed, _ = cube.as_states([" ".join(cube.MOVES[m] for m in s) for s in scrambles])
        d1, n1, t1 = _time(deep, packed, 10**12)
        assert (d1 == depth).all()
        row = f"| {depth} | {len(seeds)} | {n1.mean():,.0f} | {t1 / len(seeds):.4f} |"
        if depth <= args.compare_max_depth:
            d0, n0, t0 = _time(other, packed, 10**12)
            assert (d0 == d1).all()
            row += f" {n0.mean():,.0f} | {t0 / len(seeds):.4f} | {n0.mean() / n1.mean():.1f}x |"
        else:
            row += " - | - | - |"
        print(row, flush=True)
    _random_states(deep, args.random_first, args.random, int(args.random_max_nodes))


if __name__ == "__main__":
    main()
