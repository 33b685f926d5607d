"""How far is a WILT check from the hardware? Times, in one run, cogsim's `wilt.equivalent` (rule
against itself on the release points), NumPy evaluating both rules, and hand-written AVX2 loops for
the same rules (`wilt_floor.cpp`, compiled here with the system C++ compiler: each rule's lanes
compared against the hidden rule's cached bit-packed truth, no interpreter at all), and once more
for `x > y > z` specialised to the release set's layout (its integer grid generated from loop
counters, `x > y` hoisted out of the z loop): what a rule compiler, not an interpreter, could reach.

    python benchmarks/wilt_floor.py

Needs a C++ compiler and an AVX2 CPU; says so and stops otherwise. Prints a Markdown table.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from bench_wilt import best_of, numpy_rule
from cogsim.benchmarks import wilt
from cogsim.benchmarks.wilt.cases import cases_for


def floor_microseconds(points_file: Path, workdir: Path) -> dict[str, float]:
    compiler = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if compiler is None:
        sys.exit("no C++ compiler on PATH: the floor kernels cannot be built")
    if "avx2" not in Path("/proc/cpuinfo").read_text():
        sys.exit("this CPU has no AVX2: the floor kernels cannot run")
    binary = workdir / "wilt_floor"
    source = Path(__file__).with_name("wilt_floor.cpp")
    subprocess.run([compiler, "-O3", "-mavx2", "-mpopcnt", "-o", str(binary), str(source)], check=True)
    output = subprocess.run([str(binary), str(points_file)], check=True, capture_output=True, text=True).stdout
    return {rule: float(us) for rule, us in (line.split("\t") for line in output.splitlines())}


def main() -> None:
    cases = cases_for("release")
    with tempfile.TemporaryDirectory() as tmp:
        points_file = Path(tmp) / "points.bin"
        np.concatenate([cases.xs, cases.ys, cases.zs]).tofile(points_file)
        floors = floor_microseconds(points_file, Path(tmp))
    print(
        f"{len(cases.xs):,} release points; best-of timings in microseconds; ratios are NumPy's time / the other's.\n"
    )
    print("| rule | NumPy, both rules | cogsim check | hand AVX2 floor | cogsim / NumPy | floor / NumPy |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    xs, ys, zs = cases.xs, cases.ys, cases.zs
    for label, floor in floors.items():
        source = label.split(" (")[0]
        a, b = numpy_rule(source), numpy_rule(source)
        guess, hidden = wilt.compile_rule(source), wilt.compile_rule(source)
        assert wilt.equivalent(guess, hidden).equivalent
        peer = best_of(lambda: int((a(xs, ys, zs) != b(xs, ys, zs)).sum()), 200) * 1e6
        ours = best_of(lambda: wilt.equivalent(guess, hidden), 200) * 1e6
        print(
            f"| `{source}`{label[len(source) :]} | {peer:.1f} | {ours:.1f} | {floor:.1f} | {peer / ours:.2f}x | {peer / floor:.2f}x |"
        )


if __name__ == "__main__":
    main()
