"""``cogsim view`` on stores of growing size: the time of each kind of page and the server's peak memory.

For each size N, a run of N single-turn text episodes (`cube/optimal-move --env-option modality=text`,
oracle and random: N/2 each) is made once under --cache (reused when it is there), then `cogsim view`
serves it in a child process, exactly as a user starts it, and every kind of page is asked for REPEAT
times (each a fresh read of its page; only whole-store summaries, the counts and the filters'
choices, are kept 30 s): the run's page, the first page of the episode list, a page of it far into
the store (after=N-100), the episodes of one env and seed (a scan: no index on seed), an episode
turn by turn, the prompt of its turn, and side by side. Reported: the first request's time (with
the summaries' scans) and the median of the others, and the server's peak resident memory (VmHWM)
after all of them, which must not grow with N.

    python benchmarks/bench_view.py --sizes 1000,10000,100000,1000000 [--cache build/bench-view]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
URL = re.compile(r"(http://\S+)/\?token=(\S+)")
REPEAT = 5


def cogsim() -> str:
    return str(Path(sys.executable).parent / "cogsim")


def make_run(size: int, cache: Path) -> Path:
    out = cache / f"run-{size}"
    if (out / "store.sqlite").exists():
        return out
    started = time.perf_counter()
    subprocess.run(
        [cogsim(), "run", "cube/optimal-move", "--env-option", "modality=text", "--agent", "oracle",
         "--agent", "random", "--episodes", str(size // 2), "--out", str(out), "--no-progress"],
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    print(f"  made a run of {size:,} episodes in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return out


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure(run: Path, size: int) -> dict:
    server = subprocess.Popen([cogsim(), "view", str(run), "--no-browser"], stdout=subprocess.PIPE, text=True)
    try:
        for line in server.stdout:
            found = URL.search(line)
            if found:
                base, token = found.groups()
                break
        pages = {
            "run": "/runs/0/",
            "list, first page": "/runs/0/episodes",
            "list, far page": f"/runs/0/episodes?after={max(1, size - 100)}",
            "same env and seed (scan)": f"/runs/0/episodes?env=cube%2Foptimal-move&seed={size // 4}",
            "episode": f"/runs/0/episodes/{size // 2}",
            "prompt of a turn": f"/runs/0/episodes/{size // 2}/turns/0",
            "side by side": f"/compare?a=0.{size // 2}&b=0.{size // 2 + 1}",
        }
        times = {}
        with httpx.Client(base_url=base, cookies={f"cogsim-{base.rsplit(':', 1)[1]}": token}, timeout=120) as client:
            for name, path in pages.items():
                samples = []
                for _ in range(REPEAT):
                    began = time.perf_counter()
                    response = client.get(path)
                    samples.append(time.perf_counter() - began)
                    if response.status_code != 200:
                        raise SystemExit(f"{path}: {response.status_code} {response.text[:200]}")
                times[name] = (samples[0], statistics.median(samples[1:]))
        return {
            "times": times,
            "peak_mib": peak_rss_mib(server.pid),
            "store_mib": (run / "store.sqlite").stat().st_size / 2**20,
        }
    finally:
        server.terminate()
        server.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="episodes per run, comma-separated")
    parser.add_argument("--cache", default=str(ROOT / "build" / "bench-view"), help="where the runs are kept")
    args = parser.parse_args()
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    results = {}
    for size in [int(s) for s in args.sizes.split(",")]:
        results[size] = measure(make_run(size, cache), size)
    names = list(next(iter(results.values()))["times"])
    print("| page: first / median ms | " + " | ".join(f"{size:,} episodes" for size in results) + " |")
    print("|---|" + "---:|" * len(results))
    for name in names:
        cells = [f"{r['times'][name][0] * 1000:,.0f} / {r['times'][name][1] * 1000:,.0f}" for r in results.values()]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("| server peak memory | " + " | ".join(f"{r['peak_mib']:,.0f} MiB" for r in results.values()) + " |")
    print("| store size | " + " | ".join(f"{r['store_mib']:,.0f} MiB" for r in results.values()) + " |")
    print(f"\n{os.cpu_count()} cores; the first of {REPEAT} requests per page and the median of the rest")


if __name__ == "__main__":
    main()
