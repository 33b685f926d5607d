"""What a run costs as it grows: the run, its report, a resume and each export, at sizes up to a
million episodes (text) and 50,000 (image): wall time, peak memory, bytes on disk.

    python benchmarks/bench_scale.py --text 1000,10000,100000,1000000 --image 1000,10000,50000 \\
        --work /tmp/scale --table benchmarks/results_scale.json

Each step is the `cogsim` command a user types, in a fresh process: `run` (scripted oracle, the
default workers), `report`, `run --resume` of the finished run, `export` as jsonl, sft and inspect
(`.eval`; for the image suite also `--images none`); ``--steps report,resume`` measures the run and
only those. Peak memory is the most the command's process tree held at once (its processes' resident
memory summed, sampled every 50 ms; the largest single process's own peak, from the kernel, is kept
beside it). Each export's file is measured and removed.
Results go to a JSON file (one object per size and step, merged with what it holds) and
``--markdown`` prints them as the tables of ``results_scale.md`` and draws its plot (``--plot``).

Suites (scripted oracle, one turn an episode): text = `cube/optimal-move` in text modality; image =
`cube/optimal-move` at scramble depth 5 with its default image+text prompt, the release's cube net
(840x620 PNG, some 10 KB; depth 5 makes most frames distinct, so the store holds one per episode).

``--replicate N``: the text suite's 1,000-episode run copied in SQL to N episodes (new indices and
seeds, the same texts and frames; the run's config then plans N), then its report, resume and
exports measured (``--steps``): what those cost at a size whose run would take an hour here. A copy shares its texts, so its store is smaller
than a real run's; the report and the exports still read every episode and turn.

``--ray N``: the text suite's N episodes sent to a local two-node Ray cluster (`cogsim run --ray`,
one CPU a node, both on this machine) and run locally, the two stores compared turn by turn in SQL;
the driver's peak memory and the cluster's (its processes' resident memory summed) are recorded.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Optional

import psutil

SUITES = {
    "text": ["cube/optimal-move", "--env-option", "modality=text"],
    "image": ["cube/optimal-move", "--env-option", "depth=5"],
}
SAMPLE_S = 0.05


def measure(args: list[str], log: Path) -> dict:
    """Run ``cogsim ARGS``; its wall and CPU time, the peak of its process tree's resident memory
    (sampled) and of its own process (the kernel's), in MB."""
    started = time.monotonic()
    with log.open("ab") as output:
        process = subprocess.Popen([sys.executable, "-m", "cogsim.cli", *args], stdout=output, stderr=output)
        peak = [0]
        done = threading.Event()
        threading.Thread(target=_sample_tree, args=(process.pid, peak, done), daemon=True).start()
        _, status, usage = os.wait4(process.pid, 0)
        done.set()
    wall = time.monotonic() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"cogsim {' '.join(args)} failed ({process.returncode}); see {log}")
    figures = {
        "wall_s": round(wall, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),  # its own and its waited-for children's
        "tree_peak_mb": round(peak[0] / 1e6, 1),
        "peak_mb": round(usage.ru_maxrss / 1e3, 1),
    }
    print(f"  cogsim {' '.join(args[:2])}: {json.dumps(figures)}", flush=True)  # kept if a later step is stopped
    return figures


def _sample_tree(pid: int, peak: list, done: threading.Event) -> None:
    try:
        root = psutil.Process(pid)
    except psutil.Error:
        return
    while not done.is_set():
        total = 0
        try:
            for process in [root, *root.children(recursive=True)]:
                try:
                    total += process.memory_info().rss
                except psutil.Error:
                    pass
        except psutil.Error:
            return
        peak[0] = max(peak[0], total)
        done.wait(SAMPLE_S)


def disk_bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def store_stats(run_dir: Path) -> dict:
    """Bytes of the store and of the frames, and the turns and episodes they hold."""
    import sqlite3

    with sqlite3.connect(f"file:{run_dir / 'store.sqlite'}?mode=ro", uri=True) as db:
        turns = db.execute("SELECT COUNT(*) FROM turns").fetchone()[0]
        episodes = db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
        text_bytes = db.execute("SELECT COALESCE(SUM(LENGTH(CAST(text AS BLOB))), 0) FROM texts").fetchone()[0]
        reply_bytes = db.execute("SELECT COALESCE(SUM(LENGTH(CAST(response AS BLOB))), 0) FROM turns").fetchone()[0]
    store = sum(disk_bytes(p) for p in run_dir.glob("store.sqlite*"))
    images = disk_bytes(run_dir / "images") if (run_dir / "images").exists() else 0
    return {
        "episodes": episodes,
        "turns": turns,
        "store_bytes": store,
        "image_bytes": images,
        "distinct_text_bytes": text_bytes,
        "reply_bytes": reply_bytes,
    }


def bench_size(
    suite: str, size: int, work: Path, log: Path, only: frozenset = frozenset(), run_dir: Optional[Path] = None
) -> dict:
    """The steps of one size (``only``: these steps and the run; empty: every step); with ``run_dir``,
    of the run already there."""
    result: dict = {"suite": suite, "size": size, "steps": {}}
    steps = result["steps"]
    if run_dir is None:
        run_dir = work / f"{suite}-{size}"
        shutil.rmtree(run_dir, ignore_errors=True)
        steps["run"] = measure(
            ["run", *SUITES[suite], "--agent", "oracle", "--episodes", str(size), "--out", str(run_dir)], log
        )
    result.update(store_stats(run_dir))
    if not only or "report" in only:
        steps["report"] = measure(["report", str(run_dir)], log)
    if not only or "resume" in only:
        steps["resume"] = measure(["run", "--resume", str(run_dir)], log)
    exports = {
        "export jsonl": (["--format", "jsonl"], "x.jsonl"),
        "export sft": (["--format", "sft"], "x.sft.jsonl"),
        "export inspect": (["--format", "inspect"], "x.eval"),
    }
    if suite == "image":
        exports["export inspect --images none"] = (["--format", "inspect", "--images", "none"], "y.eval")
    for step, (args, name) in exports.items():
        if only and step not in only:
            continue
        out = work / name
        steps[step] = measure(["export", str(run_dir), *args, "--out", str(out)], log)
        steps[step]["bytes"] = out.stat().st_size
        out.unlink()
    return result


def bench_replicated(size: int, work: Path, log: Path, only: frozenset = frozenset()) -> dict:
    """The steps of ``size`` episodes made from a run of 1,000 by copying its rows in SQL."""
    import sqlite3

    base = 1000
    run_dir = work / f"replicated-{size}"
    shutil.rmtree(run_dir, ignore_errors=True)
    measure(["run", *SUITES["text"], "--agent", "oracle", "--episodes", str(base), "--out", str(run_dir)], log)
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        columns = [c[1] for c in db.execute("PRAGMA table_info(episodes)") if c[1] != "id"]
        shifted = {"episode_index": "episode_index + :offset", "seed": "seed + :offset"}
        copy_episodes = (
            f"INSERT INTO episodes ({', '.join(columns)}) SELECT {', '.join(shifted.get(c, c) for c in columns)} "
            "FROM episodes WHERE id <= :last"
        )
        turn_columns = [c[1] for c in db.execute("PRAGMA table_info(turns)") if c[1] != "episode_id"]
        (last,) = db.execute("SELECT MAX(id) FROM episodes").fetchone()
        copy_turns = (  # the first run's turns only, by the index on (episode_id, turn): no scan of the copies
            f"INSERT INTO turns (episode_id, {', '.join(turn_columns)}) "
            f"SELECT n.id, {', '.join('t.' + c for c in turn_columns)} FROM turns t "
            "JOIN episodes o ON o.id = t.episode_id "
            "JOIN episodes n ON n.task = o.task AND n.agent = o.agent AND n.episode_index = o.episode_index + :offset "
            "WHERE t.episode_id <= :last"
        )
        for offset in range(base, size, base):
            db.execute(copy_episodes, {"offset": offset, "last": last})
            db.execute(copy_turns, {"offset": offset, "last": last})
        config = json.loads(db.execute("SELECT config FROM runs").fetchone()[0])
        config["tasks"][0]["episodes"] = size  # the run plans what it holds: a resume checks every episode
        db.execute("UPDATE runs SET config = ?", (json.dumps(config, sort_keys=True),))
    result = bench_size("replicated", size, work, log, only, run_dir=run_dir)
    return result


def bench_ray(size: int, work: Path, log: Path) -> dict:
    """The text suite on a two-node local cluster and locally: times, peaks, and whether the stores
    hold the same turns and episodes."""
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "node_ip_address": "127.0.0.1", "include_dashboard": False},
    )
    cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1")
    cluster.wait_for_nodes()
    peak = [0]
    done = threading.Event()
    threading.Thread(target=_sample_tree, args=(os.getpid(), peak, done), daemon=True).start()
    result: dict = {"suite": "ray", "size": size, "steps": {}}
    try:
        ray_dir, local_dir = work / f"ray-{size}", work / f"ray-local-{size}"
        for path in (ray_dir, local_dir):
            shutil.rmtree(path, ignore_errors=True)
        args = ["run", *SUITES["text"], "--agent", "oracle", "--episodes", str(size)]
        result["steps"]["run on Ray"] = measure([*args, "--ray", cluster.address, "--out", str(ray_dir)], log)
        result["steps"]["run on Ray"]["cluster_peak_mb"] = round(peak[0] / 1e6, 1)  # the cluster and this process
        result["steps"]["run"] = measure([*args, "--out", str(local_dir)], log)
        result.update(store_stats(ray_dir))
        result["stores_equal"] = same_stores(ray_dir, local_dir)
    finally:
        done.set()
        ray.shutdown()
        cluster.shutdown()
    return result


def same_stores(a: Path, b: Path) -> bool:
    """Whether two runs stored the same episodes and turns (prompts as sent, replies, parses, rewards),
    compared in SQL whatever the ids."""
    import sqlite3

    turns = (
        "SELECT e.task, e.agent, e.episode_index, t.turn, t.player, "
        "CASE WHEN t.prompt_text IS NULL THEN t.prompt ELSE (SELECT text FROM {db}.texts x WHERE x.id = t.prompt_text) END, "
        "t.images, t.response, t.parsed, t.parse, t.reward, t.terminated FROM {db}.turns t JOIN {db}.episodes e ON e.id = t.episode_id"
    )
    episodes = "SELECT task, agent, episode_index, seed, status, num_turns, total_reward, outcome FROM {db}.episodes"
    db = sqlite3.connect(f"file:{a / 'store.sqlite'}?mode=ro", uri=True)
    db.execute("ATTACH DATABASE ? AS other", (f"file:{b / 'store.sqlite'}?mode=ro",))
    try:
        for query in (turns, episodes):
            for first, second in (("main", "other"), ("other", "main")):
                sql = f"SELECT COUNT(*) FROM ({query.format(db=first)} EXCEPT {query.format(db=second)})"
                if db.execute(sql).fetchone()[0]:
                    return False
        counts = [db.execute(f"SELECT COUNT(*) FROM {name}.turns").fetchone()[0] for name in ("main", "other")]
        return counts[0] == counts[1]
    finally:
        db.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--text", default="1000,10000", help="text-suite sizes, comma-separated")
    parser.add_argument("--image", default="1000", help="image-suite sizes, comma-separated ('' for none)")
    parser.add_argument("--replicate", default="", help="sizes of the text run copied in SQL (report, exports)")
    parser.add_argument("--ray", default="", help="text-suite sizes to run on a local two-node Ray cluster")
    parser.add_argument("--steps", default="", help="measure only the run and these steps (comma-separated names)")
    parser.add_argument("--work", default="/tmp/cogsim-scale", help="where the runs and exports go")
    parser.add_argument("--table", default="benchmarks/results_scale.json", help="results (JSON), merged")
    parser.add_argument("--keep", action="store_true", help="keep the run directories")
    parser.add_argument("--markdown", action="store_true", help="print the tables of the results and draw the plot")
    parser.add_argument("--plot", default="docs/images/scale.png")
    args = parser.parse_args(argv)
    table = Path(args.table)
    results = json.loads(table.read_text()) if table.exists() else []
    if args.markdown:
        print(markdown(results))
        plot(results, Path(args.plot))
        return 0
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    log = work / "commands.log"
    for suite in ("text", "image", "replicate", "ray"):
        for size in [int(s) for s in getattr(args, suite).split(",") if s]:
            print(f"{suite} {size}...", flush=True)
            only = frozenset(s.strip() for s in args.steps.split(",") if s.strip())
            if suite == "ray":
                result = bench_ray(size, work, log)
            elif suite == "replicate":
                result = bench_replicated(size, work, log, only)
            else:
                result = bench_size(suite, size, work, log, only)
            result["when"] = time.strftime("%Y-%m-%d %H:%M")
            earlier = [r for r in results if (r["suite"], r["size"]) == (result["suite"], size)]
            if only and earlier:  # the steps not measured now keep their figures
                result["steps"] = {**earlier[0]["steps"], **result["steps"]}
            results = [r for r in results if (r["suite"], r["size"]) != (result["suite"], size)] + [result]
            table.write_text(json.dumps(sorted(results, key=lambda r: (r["suite"], r["size"])), indent=1) + "\n")
            print(json.dumps(result), flush=True)
            if not args.keep:
                for name in (f"{suite}-{size}", f"ray-local-{size}", f"replicated-{size}"):
                    shutil.rmtree(work / name, ignore_errors=True)
    return 0


STEPS = ("run", "report", "resume", "export jsonl", "export sft", "export inspect", "export inspect --images none")


def markdown(results: list[dict]) -> str:
    lines = []
    for suite in ("text", "image", "replicated"):
        rows = sorted((r for r in results if r["suite"] == suite), key=lambda r: r["size"])
        if not rows:
            continue
        steps = [s for s in STEPS if any(s in r["steps"] for r in rows)]
        lines += [f"### {suite}", ""]
        lines += ["| episodes | turns | store (MB) | frames (MB) | bytes/turn | " + " | ".join(steps) + " |"]
        lines += ["|" + "---:|" * (5 + len(steps))]
        for r in rows:
            cells = []
            for step in steps:
                if step not in r["steps"]:
                    cells.append("not measured")
                    continue
                s = r["steps"][step]
                cell = f"{s['wall_s']:,.0f} s ({s['cpu_s']:,.0f} s CPU), {s['tree_peak_mb']:,.0f} MB"
                if "bytes" in s:
                    cell += f", {s['bytes'] / 1e6:,.0f} MB out"
                cells.append(cell)
            per_turn = (r["store_bytes"]) / max(r["turns"], 1)
            lines.append(
                f"| {r['size']:,} | {r['turns']:,} | {r['store_bytes'] / 1e6:,.1f} | {r['image_bytes'] / 1e6:,.1f} | "
                f"{per_turn:,.0f} | " + " | ".join(cells) + " |"
            )
        lines += ["", slopes(rows, steps), ""]
    return "\n".join(lines)


def slopes(rows: list[dict], steps: list[str]) -> str:
    """Per step: CPU seconds per 1,000 episodes fitted over the sizes, and the log-log slope of CPU time
    on size (1: linear; the fixed start-up of each command makes small sizes flatter)."""
    import numpy as np

    parts = []
    for step in steps:
        measured = [r for r in rows if step in r["steps"]]
        if len(measured) < 2:
            continue
        sizes = np.array([r["size"] for r in measured], dtype=float)
        walls = np.array([r["steps"][step]["cpu_s"] for r in measured])
        per_thousand = np.polyfit(sizes, walls, 1)[0] * 1000
        exponent = np.polyfit(np.log(sizes), np.log(np.maximum(walls, 1e-3)), 1)[0]
        parts.append(f"{step}: {per_thousand:.2f} s per 1,000 episodes (log-log slope {exponent:.2f})")
    return "CPU time fitted over the sizes: " + "; ".join(parts) + "." if parts else ""


def plot(results: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(2, 3, figsize=(15, 8))
    for column, suite in enumerate(("text", "image", "replicated")):
        rows = sorted((r for r in results if r["suite"] == suite), key=lambda r: r["size"])
        if not rows:
            continue
        for step in STEPS:
            measured = [r for r in rows if step in r["steps"]]
            if not measured:
                continue
            sizes = [r["size"] for r in measured]
            (line,) = axes[0][column].plot(sizes, [r["steps"][step]["cpu_s"] for r in measured], marker="o", label=step)
            axes[0][column].plot(
                sizes,
                [r["steps"][step]["wall_s"] for r in measured],
                linestyle=":",
                color=line.get_color(),
                linewidth=1,
            )
            axes[1][column].plot(sizes, [r["steps"][step]["tree_peak_mb"] for r in measured], marker="o", label=step)
        for row, label in ((0, "CPU time (s); dotted: wall time"), (1, "peak memory (MB)")):
            axis = axes[row][column]
            axis.set_xscale("log")
            axis.set_yscale("log")
            axis.set_xlabel(f"episodes ({suite} suite)")
            axis.set_ylabel(label)
            axis.grid(True, which="both", alpha=0.3)
            axis.legend(fontsize=7)
        axes[1][column].axhline(1000, color="red", linestyle="--", linewidth=1)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


if __name__ == "__main__":
    raise SystemExit(main())
