"""Cube oracle against the peer optimal solver, on the same states in the same run.

The peer is the `RubikOptimal` package (Kociemba's optimal solver in Python, the one the Cube
Bench paper used). Its tables (about 1 GB) must exist in --peer-tables: importing
`optimal.solver` in that folder builds them (about 8 hours under CPython, 20 minutes under PyPy).

    pip install RubikOptimal==1.1.0
    python benchmarks/cube_peer.py --peer-tables ~/rubikoptimal-tables --per-depth 10 --phase1 off,sorted

Prints a Markdown table: queries per second for the peer and, for each cogsim configuration
(--phase1: off, plain, sorted), single queries (one binding call per cube, including its
conversion to cubies) and one batched call on all states (all cores), their ratios to the peer,
and whether every distance agreed with the length of the peer's optimal solution.
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


def _queries_per_second(run, count: int) -> tuple[float, list[int]]:
    started, repeats = time.perf_counter(), 0
    while True:  # repeat cheap batches so the timing is not dominated by the clock
        answers = run()
        repeats += 1
        if time.perf_counter() - started > 0.2:
            return repeats * count / (time.perf_counter() - started), answers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peer-tables", required=True, help="folder holding (or to hold) RubikOptimal's tables")
    parser.add_argument("--per-depth", type=int, default=10)
    parser.add_argument("--depths", default="1-10", help="range such as 1-10")
    parser.add_argument("--seed", type=int, default=1000, help="first scramble seed")
    parser.add_argument("--phase1", default="off", help="cogsim configurations to time, e.g. off,sorted")
    parser.add_argument("--perimeter", type=int, default=6, help="radius of cogsim's exact table (6 or 7)")
    args = parser.parse_args()
    low, high = (int(x) for x in args.depths.split("-"))

    from cogsim import _core, cube
    from cogsim._cache import cache_dir

    configs = args.phase1.split(",")
    oracles = {
        name: _core.CubeOracle(str(cache_dir("cube")), 6, args.perimeter, 0, None, phase1=name) for name in configs
    }
    home = os.getcwd()
    os.chdir(args.peer_tables)
    with contextlib.redirect_stdout(sys.stderr):
        import optimal.solver as peer  # loads (or builds) its tables in the current folder
    os.chdir(home)

    header = "| depth | states | peer q/s |"
    for name in configs:
        header += f" {name}: single q/s | {name}: batch q/s | {name}: single / peer | {name}: batch / peer |"
    print(header + " agree |")
    print("|---:" * (3 + 4 * len(configs)) + "|:---:|")
    limit = cube.DEFAULT_MAX_NODES
    for depth in range(low, high + 1):
        seeds = list(range(args.seed, args.seed + args.per_depth))
        scrambles = cube.scrambles([depth] * len(seeds), seeds)
        cubes = [cube.Cube.from_moves(" ".join(s)) for s in scrambles]
        facelets = [c.to_facelets() for c in cubes]
        packed, _ = cube.as_states(cubes)

        peer_seconds, peer_lengths = time_peer(peer, facelets)
        peer_qps = len(cubes) / peer_seconds
        row, agree = f"| {depth} | {len(cubes)} | {peer_qps:,.1f} |", peer_lengths == [depth] * len(cubes)
        for oracle in oracles.values():
            single_qps, single = _queries_per_second(
                lambda: [int(oracle.distances(cube.as_states(c)[0], limit, 1)[0][0]) for c in cubes], len(cubes)
            )
            batch_qps, batch = _queries_per_second(lambda: oracle.distances(packed, limit, 0)[0].tolist(), len(cubes))
            agree &= single == batch == peer_lengths
            row += f" {single_qps:,.0f} | {batch_qps:,.0f} | {single_qps / peer_qps:,.0f}x | {batch_qps / peer_qps:,.0f}x |"
        print(row + f" {'yes' if agree else 'NO'} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
