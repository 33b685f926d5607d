"""WILT checks with the release points' grid part factored (cpp/wilt/grid.hpp) against the same check
point by point, and the whole `wilt.equivalent` against NumPy, per rule of the release's full split,
in one process with the measurements of each rule taken in turn (the machine may be shared).

    python benchmarks/wilt_grid.py [--repeats 15] [--markdown]

Columns: the core's check on the 78,931 release points with the grid declared (factored) and with no
grid declared (every point through the block evaluator, as before the factoring), their ratio, then
`wilt.equivalent(guess, hidden)` (Python included) and NumPy evaluating both rules over the same
points (as benchmarks/compare.py), and their ratio. Times are best of --repeats, in microseconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_wilt's NumPy translations

from bench_wilt import numpy_rule  # noqa: E402
from cogsim import _core
from cogsim.benchmarks import wilt  # noqa: E402
from cogsim.benchmarks.wilt.cases import cases_for  # noqa: E402


def best_of(calls: list, repeats: int) -> list[float]:
    """Best time of each call over `repeats` rounds, the calls taken in turn within a round."""
    best = [float("inf")] * len(calls)
    for _ in range(repeats):
        for k, call in enumerate(calls):
            began = time.perf_counter()
            call()
            best[k] = min(best[k], time.perf_counter() - began)
    return [b * 1e6 for b in best]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    cases = cases_for("release")
    xs, ys, zs = cases.xs, cases.ys, cases.zs
    points_only = _core.WiltCases(xs, ys, zs)  # no grid declared: every point through the block evaluator
    assert cases.core.grid_points == 41**3
    print(
        "| rule | point by point us | factored us | speed-up | equivalent() us | NumPy us | NumPy / equivalent |\n"
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    )
    speedups, numpy_ratios = [], []
    with np.errstate(all="ignore"):
        for number, source in enumerate(wilt.FULL_SPLIT, 1):
            guess, hidden = wilt.compile_rule(source), wilt.compile_rule(source)
            truth = np.asarray(hidden.evaluate(xs, ys, zs))
            factored = _core.WiltReference(cases.core, truth)
            by_point = _core.WiltReference(points_only, truth)
            assert _core.wilt_check(guess.program, factored, 5, 1) == _core.wilt_check(guess.program, by_point, 5, 1)
            calls = [
                lambda: _core.wilt_check(guess.program, by_point, 5, 1),
                lambda: _core.wilt_check(guess.program, factored, 5, 1),
                lambda: wilt.equivalent(guess, hidden),
            ]
            try:
                a, b = numpy_rule(source), numpy_rule(source)
                calls.append(lambda: int((a(xs, ys, zs) != b(xs, ys, zs)).sum()))
            except (ValueError, SyntaxError):
                pass  # no NumPy form (math.gcd ...)
            times = best_of(calls, args.repeats)
            speedups.append(times[0] / times[1])
            numpy_cells = ["", ""]
            if len(times) == 4:
                numpy_ratios.append(times[3] / times[2])
                numpy_cells = [f"{times[3]:,.1f}", f"{numpy_ratios[-1]:.2f}x"]
            print(
                f"| {number} | {times[0]:,.1f} | {times[1]:,.1f} | {speedups[-1]:.2f}x | {times[2]:,.1f} | "
                + " | ".join(numpy_cells)
                + " |",
                flush=True,
            )
    print(
        f"\nFactored / point by point, per rule: min {min(speedups):.2f}x, median {statistics.median(speedups):.2f}x, "
        f"max {max(speedups):.2f}x. equivalent() against NumPy, median of {len(numpy_ratios)} rules: "
        f"{statistics.median(numpy_ratios):.2f}x (min {min(numpy_ratios):.2f}x, max {max(numpy_ratios):.2f}x)."
    )


if __name__ == "__main__":
    main()
