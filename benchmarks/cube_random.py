"""Uniformly random cube states solved optimally with a coset table: the figures of results_cube.md.

    .venv/bin/python benchmarks/cube_random.py --count 100 --table large --json random.json
    .venv/bin/python benchmarks/cube_random.py --walks 1-14 --per-depth 5      # agreement checks
    .venv/bin/python benchmarks/cube_random.py --count 3 --check                # ... with random states

States are Cube.random_state(seed) for seeds --first .. --first + --count - 1: uniform over the
43 quintillion reachable states (random permutations and twists/flips with the parity rules), not
random walks. Each is solved alone with all cores (--threads), as `cube.solve` does for one state;
every solution is checked to solve its state. Printed per state: distance, nodes, wall and CPU
seconds, and the load average when it finished (the machine may be shared). The summary gives the
median, 90th percentile and worst time, the node rate, and the distances beside Rokicki's published
distribution of random states. --check also answers each random state with the pattern-database
oracle and its sorted phase-1 table (minutes per state) and compares distances; --walks compares
the two searches on random walks of the given lengths. --latency times random reads of the table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

from cogsim import _core, cube

# Rokicki, Kociemba, Davidson, Dethridge: distances of 1,000,000 random states (face-turn metric).
ROKICKI_PERCENT = {16: 2.6, 17: 26.7, 18: 67.0, 19: 3.4}


def _load() -> str:
    with open("/proc/loadavg", encoding="ascii") as f:
        return " ".join(f.read().split()[:3])


def _solve(solver, packed: np.ndarray, max_nodes: int, threads: int) -> tuple[list[int], int, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    solutions, nodes = solver.solutions(packed, max_nodes, threads)
    return solutions[0], int(nodes[0]), time.perf_counter() - wall, time.process_time() - cpu


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def random_states(solver, args) -> list[dict]:
    rows = []
    for seed in range(args.first, args.first + args.count):
        state = cube.Cube.random_state(seed)
        packed, _ = cube.as_states(state)
        moves, nodes, wall, cpu = _solve(solver, packed, int(args.max_nodes), args.threads)
        solution = [cube.MOVES[m] for m in moves]
        if not state.apply(" ".join(solution)).is_solved():
            raise AssertionError(f"seed {seed}: the solution {solution} does not solve the state")
        row = {"seed": seed, "distance": len(moves), "nodes": nodes, "seconds": wall, "cpu_seconds": cpu}
        row["load"], row["solution"] = _load(), " ".join(solution)
        rows.append(row)
        print(
            f"| {seed} | {len(moves)} | {nodes:,} | {wall:.2f} | {cpu:.2f} | {nodes / max(cpu, 1e-9) / 1e6:.1f} "
            f"| {row['load']} |",
            flush=True,
        )
    return rows


def summary(rows: list[dict]) -> None:
    seconds = [r["seconds"] for r in rows]
    nodes = [r["nodes"] for r in rows]
    worst = max(rows, key=lambda r: r["seconds"])
    print(f"\n{len(rows)} random states, {_load()} load at the end")
    print(
        f"seconds: median {statistics.median(seconds):.2f}, 90th percentile {_percentile(seconds, 0.9):.2f}, "
        f"worst {worst['seconds']:.2f} (seed {worst['seed']}), mean {statistics.mean(seconds):.2f}"
    )
    print(f"nodes: median {statistics.median(nodes):,.0f}, mean {statistics.mean(nodes):,.0f}, max {max(nodes):,}")
    print(
        f"node rate: {sum(nodes) / sum(seconds) / 1e6:.1f} M nodes/s wall, "
        f"{sum(nodes) / sum(r['cpu_seconds'] for r in rows) / 1e6:.1f} M nodes per CPU-second"
    )
    counts = {
        d: sum(r["distance"] == d for r in rows) for d in sorted({r["distance"] for r in rows} | set(ROKICKI_PERCENT))
    }
    print("\n| distance | states | share | Rokicki's 1,000,000 |\n|---:|---:|---:|---:|")
    for d, n in counts.items():
        print(f"| {d} | {n} | {100 * n / len(rows):.0f} % | {ROKICKI_PERCENT.get(d, 0):.1f} % |")


def check_against_the_oracle(solver, rows: list[dict], max_nodes: int) -> None:
    deep = _core.CubeOracle(str(cube.oracle().info()["cache_dir"]), 6, 6, 0, None, phase1="sorted")
    for row in rows:
        packed, _ = cube.as_states(cube.Cube.random_state(row["seed"]))
        started = time.perf_counter()
        distances, nodes = deep.distances(packed, max_nodes, 0)
        agree = "agrees" if distances[0] == row["distance"] else "DISAGREES"
        print(
            f"seed {row['seed']}: pattern databases + sorted phase-1: distance {distances[0]}, {nodes[0]:,} nodes, "
            f"{time.perf_counter() - started:.0f} s; coset search {row['distance']}: {agree}",
            flush=True,
        )


def walks(solver, depths: list[int], per_depth: int, threads: int) -> None:
    rng = np.random.default_rng(2026)
    print("| walk length | walks | distances | coset: mean nodes | coset: s/state | oracle: s/state | agree |")
    print("|---:|---:|---|---:|---:|---:|:---:|")
    for depth in depths:
        sequences = [" ".join(rng.choice(cube.MOVES, size=depth)) for _ in range(per_depth)]
        packed, _ = cube.as_states(sequences)
        started = time.perf_counter()
        solutions, nodes = solver.solutions(packed, 10**12, threads)
        coset_seconds = time.perf_counter() - started
        started = time.perf_counter()
        expected, _ = cube.oracle().distances(packed, 10**12, threads)  # the pattern databases alone
        oracle_seconds = time.perf_counter() - started
        solved = all(
            cube.Cube.from_moves(s).apply(" ".join(cube.MOVES[m] for m in moves)).is_solved()
            for s, moves in zip(sequences, solutions)
        )
        agree = solved and [len(m) for m in solutions] == expected.tolist()
        print(
            f"| {depth} | {per_depth} | {' '.join(map(str, expected.tolist()))} | {np.mean(nodes):,.0f} "
            f"| {coset_seconds / per_depth:.4f} | {oracle_seconds / per_depth:.4f} | {'yes' if agree else 'NO'} |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--table", choices=cube.TABLE_SIZES, default="large")
    parser.add_argument("--count", type=int, default=0, help="random states")
    parser.add_argument("--first", type=int, default=0, help="seed of the first random state")
    parser.add_argument("--threads", type=int, default=0, help="threads per state (default: all cores)")
    parser.add_argument("--max-nodes", type=float, default=1e12)
    parser.add_argument("--check", action="store_true", help="also answer the random states with the oracle")
    parser.add_argument("--check-max-nodes", type=float, default=2e10)
    parser.add_argument("--walks", default="", help="walk lengths to compare with the oracle, e.g. 1-14")
    parser.add_argument("--per-depth", type=int, default=5)
    parser.add_argument("--latency", action="store_true", help="time random reads of the table")
    parser.add_argument("--json", help="write the per-state rows here")
    args = parser.parse_args()

    started = time.perf_counter()
    cube.configure(table=args.table, progress=None)
    solver = cube.coset_solver()
    info = solver.info()
    print(
        f"{info['name']}: {info['bytes'] / 2**30:.2f} GiB, vectorised search: {info['vectorised']}, "
        f"ready in {time.perf_counter() - started:.1f} s; {os.cpu_count()} cores, load {_load()}"
    )
    if args.latency:
        dependent, batched = solver.time_random_reads(2_000_000)
        print(
            f"random reads of the table: {dependent:.0f} ns each one after another, {batched:.0f} ns each "
            f"16 at a time (load {_load()})"
        )
    if args.walks:
        low, _, high = args.walks.partition("-")
        walks(solver, list(range(int(low), int(high or low) + 1)), args.per_depth, args.threads)
    if args.count:
        print("| seed | distance | nodes | seconds | CPU seconds | M nodes per CPU-s | load (1, 5, 15 min) |")
        print("|---:|---:|---:|---:|---:|---:|---|")
        rows = random_states(solver, args)
        summary(rows)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as out:
                json.dump(rows, out, indent=1)
        if args.check:
            check_against_the_oracle(solver, rows, int(args.check_max_nodes))


if __name__ == "__main__":
    main()
