"""KidGym throughput and baselines.

python benchmarks/bench_kidgym.py throughput   # episodes/s generated and played in the core, frames/s, env steps/s
python benchmarks/bench_kidgym.py vector       # envs stepped together: frames in shared passes or one call each
python benchmarks/bench_kidgym.py baselines    # random (500 episodes) and oracle tables per task and level
python benchmarks/bench_kidgym.py release-baselines  # the release's mechanics: random agent beside Table 2's random row
python -m pytest benchmarks/bench_kidgym.py    # the throughput cases under pytest-benchmark
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import pytest

import cogsim
from cogsim.benchmarks import kidgym
from cogsim.benchmarks.kidgym import cogsim_scene, scene
from cogsim.benchmarks.kidgym import metrics as kidgym_metrics
from cogsim.metrics import wilson

BATCH = 2000
FRAMES = 64


def generate_batch(name: str, level: int, threads: int = 0, count: int = BATCH):
    return kidgym.generate(name, level, range(count), threads=threads)


def play_batch(name: str, level: int, policy: str, threads: int = 0, count: int = BATCH):
    return kidgym.simulate(name, level, range(count), policy=policy, threads=threads)


def frame_specs(name: str, level: int, cell_size: int = 64, count: int = FRAMES):
    """cogsim's look of the first scenes of ``count`` episodes."""
    states = kidgym.generate(name, level, range(count))
    return [cogsim_scene.grid_scene(scene.scene(name, state), cell_size) for state in states]


def render_batch(specs):
    from cogsim.render import shared_renderer

    return shared_renderer().grid(specs)


def env_steps(name: str, level: int, images: bool, episodes: int = 20) -> tuple[int, float]:
    env = cogsim.make(f"kidgym/{name}", level=level, images=images, look="cogsim")
    rng = np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    for seed in range(episodes):
        env.reset(seed=seed)
        done = False
        while not done:
            _, _, terminated, truncated, _ = env.step(env.scripted_response("oracle", rng))
            done = terminated or truncated
            steps += 1
    return steps, time.perf_counter() - start


def vector_steps(name: str, envs: int, batched: bool, cell_size: int = 64, steps: int = 0) -> float:
    """Steps/s of ``envs`` KidGym envs stepped together (random agent, level 2), with their frames
    drawn in shared passes (``render.frame_batch``, what ``TextVectorEnv`` does) or one call each."""
    from contextlib import nullcontext

    from cogsim.envs import vector

    vec = cogsim.make_vec(
        f"kidgym/{name}", envs, autoreset_mode="SameStep", level=2, cell_size=cell_size, look="cogsim"
    )
    vec.reset(seed=list(range(envs)))
    rng = np.random.default_rng(0)
    steps = steps or max(30, 300 // envs)  # at least 300 frames
    together = vector.shared_frame_passes
    vector.shared_frame_passes = together if batched else nullcontext
    try:
        start = time.perf_counter()
        for _ in range(steps):
            vec.step([env.scripted_response("random", rng) for env in vec.envs])
        return envs * steps / (time.perf_counter() - start)
    finally:
        vector.shared_frame_passes = together


def vector_table() -> str:
    lines = [
        "| envs stepped together (kidgym/maze, level 2) | frame size | steps/s, one frame per call | steps/s, frames batched | ratio |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for envs in (1, 8, 32):
        for cell_size in (32, 64):
            alone = max(vector_steps("maze", envs, False, cell_size) for _ in range(2))
            batched = max(vector_steps("maze", envs, True, cell_size) for _ in range(2))
            side = 9 * cell_size
            lines.append(f"| {envs} | {side} px | {alone:,.0f} | {batched:,.0f} | {batched / alone:.2f}x |")
    return "\n".join(lines)


def _rate(fn, units: int, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return units / best


def throughput_table() -> str:
    cores = os.cpu_count()
    lines = [
        f"Core: {BATCH} episodes per batch call, best of 3; threads: 1 and all ({cores} cores). Frames: {FRAMES} per batch, 576 x 576 px.",
        "",
        "| task | level | generated/s (1 thread) | generated/s (all) | oracle episodes/s (all) | random episodes/s (all) | frames/s (batch of 64) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name in kidgym.TASKS:
        for level in (1, 3):
            gen1 = _rate(lambda: generate_batch(name, level, threads=1), BATCH)
            gen = _rate(lambda: generate_batch(name, level), BATCH)
            oracle = _rate(lambda: play_batch(name, level, "oracle"), BATCH)
            rand = _rate(lambda: play_batch(name, level, "random"), BATCH)
            specs = frame_specs(name, level)
            frames = _rate(lambda: render_batch(specs), FRAMES, repeats=2)
            lines.append(
                f"| {name} | {level} | {gen1:,.0f} | {gen:,.0f} | {oracle:,.0f} | {rand:,.0f} | {frames:,.0f} |"
            )
    lines += ["", "| env (oracle agent, level 2) | images | steps/s |", "| --- | --- | --- |"]
    for name in ("classification", "maze", "memory_filling"):
        for images in (False, True):
            steps, seconds = env_steps(name, 2, images)
            lines.append(f"| kidgym/{name} | {images} | {steps / seconds:,.0f} |")
    return "\n".join(lines) + "\n\n" + vector_table()


def baseline_tables(episodes: int = 500) -> str:
    """Random and oracle success per task and level, simulated in the core, as Markdown."""
    records = []
    for policy in ("random", "oracle"):
        for spec in kidgym.TASKS.values():
            for level in kidgym.LEVELS:
                success, steps = kidgym.simulate(spec.name, level, range(episodes), policy=policy, policy_seed=1)
                records += [{"code": spec.code, "level": level, "success": bool(s), "agent": policy} for s in success]
    out = []
    for policy in ("random", "oracle"):
        out += [
            f"### {policy} agent ({episodes} episodes per task and level, seeds 0..{episodes - 1})",
            "",
            "| task | capabilities | level 1 | level 2 | level 3 |",
            "| --- | --- | --- | --- | --- |",
        ]
        for spec in kidgym.TASKS.values():
            cells = []
            for level in kidgym.LEVELS:
                wins = sum(
                    r["success"]
                    for r in records
                    if r["agent"] == policy and r["code"] == spec.code and r["level"] == level
                )
                cells.append(wilson(wins, episodes).format(percent=True))
            out.append(f"| {spec.code} ({spec.name}) | {', '.join(spec.capabilities)} | " + " | ".join(cells) + " |")
        out.append("")
    paper_records = [r for r in records if r["code"] in kidgym_metrics.PAPER_TASK_CODES]
    tables = [
        [t for t in kidgym_metrics.summarize(chosen) if t.title == "KidGym capability scores"][0]
        for chosen in (paper_records, records)  # the paper's twelve tasks, then with Decode
    ]
    out += [
        "### Capability scores (100 x mean over tasks of 0.2 p1 + 0.3 p2 + 0.5 p3)",
        "",
        "| " + " | ".join(tables[0].columns) + " |",
        "| --- |" + " --- |" * (len(tables[0].columns) - 1),
    ]
    out += ["| " + " | ".join(str(cell) for cell in row) + " |" for table in tables for row in table.rows]
    return "\n".join(out)


def release_baseline_table(episodes: int = 1000) -> str:
    """The random agent with the release's mechanics (seeds 0..episodes-1: each maze layout 10 times)
    beside the paper's Table 2 Random row, and the oracle's success (its ceiling where the release makes
    unsolvable episodes)."""
    from cogsim.benchmarks.kidgym import game
    from cogsim.report.papers import published

    table2 = {r["level"]: r["values"] for r in published("kidgym")["table2"] if r["model"] == "Random"}
    lines = [
        f"| task | level | random, cogsim ({episodes} episodes, 95% CI) | Table 2 Random | oracle (200 episodes) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for spec in kidgym.TASKS.values():
        for level in kidgym.LEVELS:
            success, _ = game.simulate(spec, level, range(episodes), "random", policy_seed=1)
            oracle, _ = game.simulate(spec, level, range(200), "oracle")
            paper = table2[level].get(spec.code)
            paper_text = "-" if paper is None else f"{100 * paper:.0f}%"
            lines.append(
                f"| {spec.code} | {level} | {wilson(int(success.sum()), episodes).format(percent=True)} | {paper_text} | "
                f"{100 * oracle.mean():.1f}% |"
            )
    return "\n".join(lines)


@pytest.mark.parametrize("name", ["classification", "maze", "counting", "memory_filling"])
def test_generate_batch(benchmark, name):
    benchmark(generate_batch, name, 3)


@pytest.mark.parametrize("policy", ["oracle", "random"])
def test_play_batch(benchmark, policy):
    benchmark(play_batch, "maze", 3, policy)


def test_render_batch(benchmark):
    specs = frame_specs("counting", 3)
    benchmark(render_batch, specs)


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "throughput"
    tables = {
        "throughput": throughput_table,
        "baselines": baseline_tables,
        "release-baselines": release_baseline_table,
        "vector": vector_table,
    }
    if mode not in tables:
        raise SystemExit("usage: bench_kidgym.py [throughput|baselines|release-baselines|vector]")
    print(tables[mode]())
