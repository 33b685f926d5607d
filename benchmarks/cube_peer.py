"""Cube oracle against the peer optimal solver, on the same states in the same run.

The peer is the `RubikOptimal` package (Kociemba's optimal solver in Python, the one the Cube
Bench paper used). Its tables (about 1 GB) must exist in --peer-tables: importing
`optimal.solver` in that folder builds them (about 8 hours under CPython, 20 minutes under PyPy).

    pip install RubikOptimal==1.1.0
    python benchmarks/cube_peer.py --peer-tables ~/rubikoptimal-tables --per-depth 10

Prints a Markdown table: queries per second for cogsim (single queries through the Python API,
and one batched call) and for the peer, their ratio, and whether every distance agreed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time



def time_peer(solver, facelets: list[str]) -> tuple[float, list[int]]:
    lengths = []
    started = time.perf_counter()
    for f in facelets:
        with contextlib.redirect_stdout(io.StringIO()):
            answer = solver.solve(f)
        lengths.append(int(answer.rsplit("(", 1)[1].split("f")[0]))
    return time.perf_counter() - started, lengths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peer-tables", required=True, help="folder holding (or to hold) RubikOptimal's tables")
    parser.add_argument("--per-depth", type=int, default=10)
    parser.add_argument("--depths", default="1-10", help="range such as 1-10")
    parser.add_argument("--seed", type=int, default=1000, help="first scramble seed")
    args = parser.parse_args()
    low, high = (int(x) for x in args.depths.split("-"))

    from cogsim import cube

    cube.oracle()
    home = os.getcwd()
    os.chdir(args.peer_tables)
    with contextlib.redirect_stdout(sys.stderr):
        import optimal.solver as peer  # loads (or builds) its tables in the current folder
    os.chdir(home)

    print("| depth | states | cogsim single q/s | cogsim batch q/s | peer q/s | single / peer | batch / peer | agree |")
    print("|---:|---:|---:|---:|---:|---:|---:|:---:|")
    for depth in range(low, high + 1):
        seeds = list(range(args.seed, args.seed + args.per_depth))
        scrambles = cube.scrambles([depth] * len(seeds), seeds)
        cubes = [cube.Cube.from_moves(" ".join(s)) for s in scrambles]
        facelets = [c.to_facelets() for c in cubes]

        started = time.perf_counter()
        repeats = 0
        while True:  # repeat cheap batches so the timing is not dominated by the clock
            single = [cube.distance(c) for c in cubes]
            repeats += 1
            if time.perf_counter() - started > 0.2:
                break
        single_qps = repeats * len(cubes) / (time.perf_counter() - started)

        packed, _ = cube.as_states(cubes)
        started = time.perf_counter()
        repeats = 0
        while True:
            batch = cube.distance(packed)
            repeats += 1
            if time.perf_counter() - started > 0.2:
                break
        batch_qps = repeats * len(cubes) / (time.perf_counter() - started)

        peer_seconds, peer_lengths = time_peer(peer, facelets)
        peer_qps = len(cubes) / peer_seconds
        agree = single == peer_lengths == batch.tolist() == [depth] * len(cubes)
        print(
            f"| {depth} | {len(cubes)} | {single_qps:,.0f} | {batch_qps:,.0f} | {peer_qps:,.1f} | "
            f"{single_qps / peer_qps:,.0f}x | {batch_qps / peer_qps:,.0f}x | {'yes' if agree else 'NO'} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
