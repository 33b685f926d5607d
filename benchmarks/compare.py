"""cogsim beside its peers, in one process: every peer that is installed runs on the same machine
in the same run, and each line prints the ratio (cogsim's rate / the peer's rate; above 1: cogsim
is faster). Installs nothing: a peer that is missing is reported as skipped, with why.

    python benchmarks/compare.py [--seconds 2] [--rounds 3] [--render-path auto|gl|compositor]
                                 [--rubikoptimal-tables DIR]

Peers (pip install minigrid miniworld RubikOptimal==1.1.0 to run them all):
- NumPy: a WILT equivalence check (a rule against a fresh copy of itself, over the whole standard
  case set) against the same rule as vectorised NumPy over the same points, both rules evaluated;
  the median over the rules of the release's full split that translate to NumPy.
- MiniGrid: a new KidGym episode's first 576 px frame (reset) against MiniGrid DoorKey-16x16
  reset + render at 36 px tiles (576 px); and one frame of each alone. Then every KidGym task and
  level the same way, each measured in rounds that alternate cogsim and MiniGrid (the machine may be
  shared): a row per task-level (median ratio of its rounds, and their range) and the median and
  minimum over the 36. Frames come from the renderer's automatic path, printed first
  (--render-path picks one; both give the same pixels).
- Miniworld: a 3D maze step with its 128 px egocentric frame against a MiniWorld-Maze step with a
  128 px observation (pyglet headless).
- RubikOptimal: optimal distances of the same scrambles (its tables, about 1 GB, take hours to
  build: give their folder with --rubikoptimal-tables; see cube_peer.py).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the translations and timers of the other benchmark scripts


def rate(step: Callable[[], object], seconds: float) -> float:
    """Calls per second over about ``seconds`` after one warm-up call."""
    step()
    calls, began = 0, time.perf_counter()
    while time.perf_counter() - began < seconds:
        step()
        calls += 1
    return calls / (time.perf_counter() - began)


def row(what: str, ours: float, peer: float, unit: str) -> str:
    return f"| {what} | {ours:,.1f} {unit} | {peer:,.1f} {unit} | {ours / peer:.2f}x |"


def missing(*modules: str) -> str:
    absent = [m for m in modules if importlib.util.find_spec(m) is None]
    return f"not installed: {', '.join(absent)}" if absent else ""


# -- NumPy: WILT equivalence checks ------------------------------------------------------------------------
def wilt_vs_numpy(seconds: float) -> list[str]:
    from bench_wilt import best_of, numpy_rule
    from cogsim.benchmarks import wilt
    from cogsim.benchmarks.wilt.cases import cases_for

    cases = cases_for("release")  # the points wilt.equivalent checks by default
    xs, ys, zs = cases.xs, cases.ys, cases.zs
    ratios, checks = [], []
    repeats = max(3, int(seconds * 5))
    with np.errstate(all="ignore"):
        for source in wilt.FULL_SPLIT:
            try:
                ours_a, ours_b = numpy_rule(source), numpy_rule(source)
            except (ValueError, SyntaxError):
                continue  # no NumPy form (int(), bit operations on floats ...)
            guess, hidden = wilt.compile_rule(source), wilt.compile_rule(source)
            ours = best_of(lambda: wilt.equivalent(guess, hidden), repeats)
            peer = best_of(lambda: int((ours_a(xs, ys, zs) != ours_b(xs, ys, zs)).sum()), repeats)
            ratios.append(peer / ours)
            checks.append(ours)
    median = statistics.median(ratios)
    return [
        f"| WILT check, rule vs itself, {len(xs):,} release points (median of {len(ratios)} rules) | "
        f"{1 / statistics.median(checks):,.0f} checks/s | | {median:.2f}x |"
    ]


# -- MiniGrid: KidGym frames -------------------------------------------------------------------------------
def kidgym_vs_minigrid(seconds: float) -> list[str]:
    import gymnasium as gym
    import minigrid  # noqa: F401  (registers its envs)

    import cogsim

    peer_env = gym.make("MiniGrid-DoorKey-16x16-v0", render_mode="rgb_array", tile_size=36)
    ours_env = cogsim.make("kidgym/maze", look="cogsim")  # cogsim's look (release_look_kidgym.py: the release's)
    seeds = iter(range(10**9))
    peer_env.reset(seed=0)
    peer_frame = peer_env.render()
    ours_frame = ours_env.reset(seed=0)[0]["images"][0]
    assert peer_frame.shape == ours_frame.shape == (576, 576, 3), (peer_frame.shape, ours_frame.shape)

    def peer_reset():
        peer_env.reset(seed=next(seeds))
        return peer_env.render()

    rate(peer_reset, seconds)  # both warm up: MiniGrid's rendered tiles, cogsim's stamps
    rate(lambda: ours_env.reset(seed=next(seeds)), seconds)
    ours_reset_rate = rate(lambda: ours_env.reset(seed=next(seeds)), seconds)
    peer_reset_rate = rate(peer_reset, seconds)
    ours_frame_rate = rate(lambda: ours_env._frame(ours_env.state), seconds)
    peer_frame_rate = rate(peer_env.render, seconds)
    return [
        row(
            "KidGym maze reset + first 576 px frame vs MiniGrid DoorKey-16x16 reset + render",
            ours_reset_rate,
            peer_reset_rate,
            "/s",
        ),
        row("576 px frame alone (KidGym maze vs MiniGrid DoorKey-16x16)", ours_frame_rate, peer_frame_rate, "/s"),
    ]


def kidgym_tasks_vs_minigrid(seconds: float, rounds: int) -> list[str]:
    """Every KidGym task-level's reset (new episode, first 576 px frame) against MiniGrid's reset + render,
    in ``rounds`` alternating measurements of ``seconds`` each side, after a warm-up of both."""
    import gymnasium as gym
    import minigrid  # noqa: F401  (registers its envs)

    import cogsim
    from cogsim.benchmarks import kidgym

    peer_env = gym.make("MiniGrid-DoorKey-16x16-v0", render_mode="rgb_array", tile_size=36)
    seeds = iter(range(10**9))

    def peer_reset():
        peer_env.reset(seed=next(seeds))
        return peer_env.render()

    rate(peer_reset, seconds)  # MiniGrid caches its rendered tiles: warm them up first
    lines, medians = [], []
    for task in kidgym.TASKS:
        for level in (1, 2, 3):
            env = cogsim.make(f"kidgym/{task}", level=level, look="cogsim")
            rate(lambda: env.reset(seed=next(seeds)), seconds)  # the renderer's stamps of this task
            ratios = []
            for _ in range(rounds):
                ours = rate(lambda: env.reset(seed=next(seeds)), seconds)
                ratios.append(ours / rate(peer_reset, seconds))
            medians.append(statistics.median(ratios))
            lines.append(
                f"| KidGym {task} level {level}: reset + first 576 px frame vs MiniGrid DoorKey-16x16 | "
                f"{ours:,.1f} /s | | {medians[-1]:.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) |"
            )
    return lines + [
        f"| KidGym, all {len(medians)} task-levels vs MiniGrid: median, minimum | | | "
        f"{statistics.median(medians):.2f}x, {min(medians):.2f}x |"
    ]


# -- Miniworld: 3D maze steps --------------------------------------------------------------------------------
def maze3d_vs_miniworld(seconds: float) -> list[str]:
    import pyglet

    pyglet.options["headless"] = True
    import gymnasium as gym
    import miniworld  # noqa: F401  (registers its envs)

    import cogsim

    peer_env = gym.make("MiniWorld-Maze-v0", obs_width=128, obs_height=128)
    peer_env.reset(seed=0)
    peer_actions = np.random.default_rng(0).integers(0, 3, size=1 << 20)
    ours_env = cogsim.make("maze3d/nav", look="cogsim", image_size=128, max_steps=100_000)
    ours_env.reset(seed=0)
    rng = np.random.default_rng(0)
    moves = iter(range(10**9))

    def peer_step():
        obs, _, terminated, truncated, _ = peer_env.step(int(peer_actions[next(moves) % len(peer_actions)]))
        if terminated or truncated:
            peer_env.reset()

    def ours_step():
        obs, _, terminated, truncated, _ = ours_env.step(ours_env.scripted_response("random", rng))
        assert obs["images"][0].shape == (128, 128, 3)
        if terminated or truncated:
            ours_env.reset(seed=next(moves))

    return [
        row(
            "3D maze step + 128 px egocentric frame vs MiniWorld-Maze",
            rate(ours_step, seconds),
            rate(peer_step, seconds),
            "steps/s",
        )
    ]


# -- RubikOptimal: cube distances ----------------------------------------------------------------------------
def cube_vs_rubikoptimal(tables: Path, seconds: float) -> list[str]:
    from cogsim import cube
    from cube_peer import time_peer

    if not tables.is_dir():
        raise FileNotFoundError(f"no folder {tables}")
    here = os.getcwd()
    os.chdir(tables)  # the peer reads its tables from the working directory
    try:
        import optimal.solver as solver

        states = [cube.Cube.from_moves(" ".join(s)) for s in cube.scrambles([10] * 10, list(range(10)))]
        facelets = [s.to_facelets() for s in states]
        peer_seconds, lengths = time_peer(solver, facelets)
    finally:
        os.chdir(here)
    began = time.perf_counter()
    ours = cube.distance(states)
    ours_seconds = time.perf_counter() - began
    assert list(ours) == lengths, "the peer's solution lengths differ from cogsim's distances"
    n = len(states)
    return [
        row(
            f"optimal distance, {n} depth-10 scrambles (batched) vs RubikOptimal",
            n / ours_seconds,
            n / peer_seconds,
            "/s",
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per KidGym task-level")
    parser.add_argument("--render-path", choices=("auto", "gl", "compositor"), default="auto")
    parser.add_argument("--rubikoptimal-tables", type=Path, help="folder holding RubikOptimal's built tables")
    args = parser.parse_args()
    os.environ["COGSIM_RENDER_PATH"] = args.render_path
    from cogsim import render

    print(f"2D frames: {render.shared_renderer().describe()}\n")
    print("| workload | cogsim | peer | cogsim / peer |\n| --- | ---: | ---: | ---: |")
    sections = [
        ("NumPy", ("numpy",), lambda: wilt_vs_numpy(args.seconds)),
        ("MiniGrid", ("minigrid",), lambda: kidgym_vs_minigrid(args.seconds)),
        ("MiniGrid", ("minigrid",), lambda: kidgym_tasks_vs_minigrid(args.seconds / 4, args.rounds)),
        ("Miniworld", ("miniworld", "pyglet"), lambda: maze3d_vs_miniworld(args.seconds)),
        ("RubikOptimal", ("optimal",), lambda: cube_vs_rubikoptimal(args.rubikoptimal_tables, args.seconds)),
    ]
    skipped = []
    for peer, modules, measure in sections:
        reason = missing(*modules)
        if peer == "RubikOptimal" and not reason and args.rubikoptimal_tables is None:
            reason = "its tables take hours to build; pass --rubikoptimal-tables DIR"
        if reason:
            skipped.append(f"{peer}: {reason}")
            continue
        try:
            for line in measure():
                print(line, flush=True)
        except Exception as error:  # noqa: BLE001 - a broken peer install must not hide the others
            skipped.append(f"{peer}: failed ({type(error).__name__}: {error})")
    for line in skipped:
        print(f"\nskipped {line}")


if __name__ == "__main__":
    main()
