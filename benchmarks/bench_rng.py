"""RNG-Bench throughput and scripted-agent scores.

    python benchmarks/bench_rng.py              # Markdown: core steps/s, end-to-end runs/s, agent scores by size
    python benchmarks/bench_rng.py --quick      # smaller workloads
    python benchmarks/bench_rng.py --pairs-only # only the Matching Pairs scripted scores and duels
    python -m pytest benchmarks/bench_rng.py    # the core cases under pytest-benchmark

Core numbers use one thread (per core) unless the row says otherwise; the walkers' actions are
drawn up front, so the loop measures only the core's stepping.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import cogsim
from cogsim import metrics
from cogsim.benchmarks.rngbench import maze, pairs
from cogsim.envs import play_scripted

MAZE_WALKERS, MAZE_ROUNDS, MAZE_SIZE = 4096, 2000, 15


def timed(fn, repeats: int = 3) -> float:
    """Best wall time of ``repeats`` runs (the machine is shared, the minimum is the steadiest)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def maze_steps_per_second(
    threads: int, outcomes: bool, walkers: int = MAZE_WALKERS, rounds: int = MAZE_ROUNDS
) -> float:
    mazes = maze.generate_batch([MAZE_SIZE] * 64, range(64))
    layout = [mazes[i % 64] for i in range(walkers)]
    actions = np.random.default_rng(0).integers(0, 3, size=(rounds, walkers)).astype(np.uint8)
    batches = []

    def run():
        batch = maze.MazeBatch.from_mazes(layout)
        batches.append(batch)
        start = time.perf_counter()
        batch.step(actions, threads=threads, outcomes=outcomes)
        return time.perf_counter() - start

    best = min(run() for _ in range(3))
    return walkers * rounds / best


def maze_generation_per_second(size: int, count: int = 2000) -> float:
    return count / timed(lambda: maze.generate_batch([size] * count, range(count), threads=1))


def pairs_flips_per_second(shape=(10, 10), games: int = 4096) -> tuple[float, float]:
    """(flips/s stepping optimal() + flip() from Python per response, flips/s of whole games in the core)."""
    boards = [pairs.deal(*shape, s) for s in range(games)]
    flips = [0]

    def stepped():
        batch = pairs.PairsBatch.from_boards(boards)
        flips[0] = 0
        while batch.arrays["remaining"].any():
            batch.flip(batch.optimal(threads=1), threads=1)
            flips[0] += games
        return batch

    stepped_time = timed(stepped, repeats=2)
    total = [0]

    def in_core():
        batch = pairs.PairsBatch.from_boards(boards)
        total[0] = int(batch.play_optimal(threads=1).sum())

    core_time = timed(in_core)
    return flips[0] / stepped_time, total[0] / core_time


def env_runs_per_second(env_id: str, policy: str, episodes: int, **options) -> tuple[float, float]:
    """(episodes/s, steps/s) of scripted episodes through the env (parsers, text, rendering)."""
    env = cogsim.make(env_id, **options)
    env.reset(seed=10**6)  # warm up: GL context, shader compilation, first upload
    env.step(env.scripted_response(policy, np.random.default_rng(0)))
    steps = 0
    start = time.perf_counter()
    for seed in range(episodes):
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while True:
            obs, _, terminated, truncated, _ = env.step(env.scripted_response(policy, rng))
            steps += 1
            if terminated or truncated:
                break
    elapsed = time.perf_counter() - start
    env.close()
    return episodes / elapsed, steps / elapsed


def batched_egocentric_rollouts(walkers: int = 64, size: int = 9, image: int = 128) -> tuple[float, float]:
    """Oracle walkers stepped in the core and every view rendered in one call per round: (runs/s, frames/s)."""
    from cogsim.benchmarks.rngbench.maze.cogsim_look import Maze as RenderMaze
    from cogsim.benchmarks.rngbench.maze.cogsim_look import ViewOptions
    from cogsim.render import shared_renderer

    mazes = maze.generate_batch([size] * walkers, range(walkers))
    shared_renderer().mazes([RenderMaze(mazes[0].walls)]).views(0, 0, 0, 0, ViewOptions(image, image))  # warm up
    scene = shared_renderer().mazes([RenderMaze(m.walls, goal=m.goal) for m in mazes])
    view = ViewOptions(image, image)
    start = time.perf_counter()
    batch = maze.MazeBatch.from_mazes(mazes)
    plans = [maze.shortest_actions(m.walls, 0, 0, 1, m.goal) for m in mazes]
    frames = 0
    for t in range(max(len(p) for p in plans) + 1):
        live = np.flatnonzero(batch.done == 0)
        if len(live):
            scene.views(live, batch.row[live], batch.col[live], batch.heading[live], view)
            frames += len(live)
        actions = np.array([p[t] if t < len(p) else 0 for p in plans], np.uint8)
        batch.step(actions)
    elapsed = time.perf_counter() - start
    scene.release()
    assert batch.done.all()
    return walkers / elapsed, frames / elapsed


def pairs_scripted_episodes(episodes_per_cell: int) -> list:
    """Scripted agents on Matching Pairs by size, with the env's defaults (the release's protocol)."""
    pair_episodes = []
    for rows, cols in ((4, 4), (6, 6), (8, 8), (10, 10), (12, 14)):
        for agent, memory_map in (("oracle", False), ("forgetful", False), ("forgetful", True), ("random", False)):
            env = cogsim.make("pairs/single", rows=rows, cols=cols, memory_map=memory_map)
            for seed in range(episodes_per_cell):
                pair_episodes.append(_play(env, agent, seed))
    return pair_episodes


def pairs_duel_tables(seeds: int, rows: int = 6, cols: int = 6) -> list:
    """A small round robin of the scripted agents (each board twice, seats swapped)."""
    from cogsim.harness.tournament import tournament

    episodes = tournament(
        {"oracle": "oracle", "forgetful": "forgetful", "random": "random"}, range(seeds), rows=rows, cols=cols
    )
    return metrics.summarize("pairs", episodes)


def scripted_scores(quick: bool) -> list:
    """Score%, Resp./Score (pairs) and SR/Efficiency/Explore/GS (maze) of the scripted agents by size."""
    episodes_per_cell = 10 if quick else 40
    pair_episodes = pairs_scripted_episodes(episodes_per_cell)
    return metrics.summarize("pairs", pair_episodes) + maze_scripted_tables(episodes_per_cell)


def maze_scripted_tables(episodes_per_cell: int, **options) -> list:
    """SR/Efficiency/Explore/Walls/GS of the scripted maze agents by size, under the env's defaults
    (the release's v6 mazes, slide moves, budget max(4 L*, 80)); the Memory Gap oracle is the minimap."""
    maze_episodes = []
    for size in (5, 7, 9, 11, 13, 15):
        for agent, minimap in (
            ("oracle", False),
            ("explorer", False),
            ("forgetful", False),
            ("forgetful", True),
            ("random", False),
        ):
            env = cogsim.make("maze3d/nav", size=size, modality="text", minimap=minimap, **options)
            for seed in range(episodes_per_cell):
                maze_episodes.append(_play(env, agent, seed))
    return metrics.summarize("maze3d", maze_episodes)


def release_generation_per_second(size: int, count: int = 200) -> float:
    return count / timed(lambda: [maze.generate(size, seed) for seed in range(count)])


def _maze_env_rates(episodes: int) -> None:
    for modality, image in (("text", 0), ("3d", 128), ("3d", 256), ("patch", 128)):
        options = {"size": 9, "modality": modality} | ({"image_size": image, "look": "cogsim"} if image else {})
        runs, steps = env_runs_per_second("maze3d/nav", "oracle", episodes, **options)
        label = f"maze3d/nav env, oracle, 9x9, {modality}" + (f" {image}px" if image else "")
        print(f"| {label} | {runs:,.2f} runs/s ({steps:,.0f} steps/s) |")


def _play(env, agent: str, seed: int) -> dict:
    played = play_scripted(env, agent, seed)
    return {**played.episode, "agent": agent, "env_id": env.env_id, "seed": seed, "turns": played.turns}


def _cell(value) -> str:
    if isinstance(value, metrics.Estimate):
        return value.format(digits=2)
    return str(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller workloads")
    parser.add_argument(
        "--pairs-only", action="store_true", help="only the Matching Pairs scripted scores and duel tables"
    )
    parser.add_argument("--maze-only", action="store_true", help="only the 3D Maze env rates and scripted-agent tables")
    args = parser.parse_args()
    if args.maze_only:
        print("| workload | result |\n| --- | ---: |")
        for size in (9, 13):
            print(
                f"| maze generation, the release's v6 (Python), {size}x{size}, with slide L* | {release_generation_per_second(size):,.0f} mazes/s |"
            )
        _maze_env_rates(5 if args.quick else 20)
        _print_tables(maze_scripted_tables(10 if args.quick else 40))
        return
    if args.pairs_only:
        tables = metrics.summarize("pairs", pairs_scripted_episodes(10 if args.quick else 40))
        _print_tables(tables + pairs_duel_tables(5 if args.quick else 20))
        return
    rounds = 500 if args.quick else MAZE_ROUNDS
    print("| workload | result |\n| --- | ---: |")
    for threads, outcomes in ((1, False), (1, True), (2, False)):
        rate = maze_steps_per_second(threads, outcomes, rounds=rounds)
        label = f"maze core steps/s, {MAZE_WALKERS} walkers in {MAZE_SIZE}x{MAZE_SIZE} mazes, {threads} thread(s)" + (
            ", outcome codes returned" if outcomes else ""
        )
        print(f"| {label} | {rate / 1e6:,.1f} M |")
    for size in (5, 15):
        print(
            f"| maze generation (spanning tree, extra openings, BFS L*), {size}x{size}, 1 thread | {maze_generation_per_second(size):,.0f} mazes/s |"
        )
    stepped, in_core = pairs_flips_per_second()
    print(
        f"| pairs flips/s, 4096 10x10 games, optimal() + flip() per response from Python, 1 thread | {stepped / 1e6:,.2f} M |"
    )
    print(f"| pairs flips/s, whole optimal games in the core, 1 thread | {in_core / 1e6:,.2f} M |")
    episodes = 5 if args.quick else 20
    _maze_env_rates(episodes)
    runs, frames = batched_egocentric_rollouts()
    print(
        f"| batched egocentric rollouts: 64 oracle walkers (9x9), all views of a round in one render call, 128px | {runs:,.2f} runs/s ({frames:,.0f} frames/s) |"
    )
    for modality in ("text", "image"):
        runs, steps = env_runs_per_second("pairs/single", "oracle", episodes, rows=6, cols=6, modality=modality)
        print(f"| pairs/single env, oracle, 6x6, {modality} | {runs:,.2f} runs/s ({steps:,.0f} steps/s) |")
    _print_tables(scripted_scores(args.quick) + pairs_duel_tables(5 if args.quick else 20))


def _print_tables(tables) -> None:
    for table in tables:
        print(f"\n**{table.title}**\n")
        print("| " + " | ".join(table.columns) + " |")
        print("|" + " --- |" * len(table.columns))
        for row in table.rows:
            print("| " + " | ".join(_cell(v) for v in row) + " |")


# -- pytest-benchmark cases ---------------------------------------------------------------------


def test_maze_core_steps(benchmark):
    mazes = maze.generate_batch([MAZE_SIZE] * 64, range(64))
    batch = maze.MazeBatch.from_mazes([mazes[i % 64] for i in range(MAZE_WALKERS)])
    actions = np.random.default_rng(0).integers(0, 3, size=(100, MAZE_WALKERS)).astype(np.uint8)
    benchmark(lambda: batch.step(actions, threads=1, outcomes=False))


def test_pairs_core_games(benchmark):
    boards = [pairs.deal(10, 10, s) for s in range(512)]
    benchmark(lambda: pairs.PairsBatch.from_boards(boards).play_optimal(threads=1))


if __name__ == "__main__":
    main()
