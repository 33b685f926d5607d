"""KidGym's release look beside the release's own drawing code, in one run.

    COGSIM_RELEASES=DIR python benchmarks/release_look_kidgym.py [--scenes 6] [--repeats 5] [--seconds 1]

DIR/KidGym is a copy of BoBo-Ye/KidGym 083cf1f (the release's image files and code). For every task
and level, scenes of cogsim's release engine (seeds 0.., the first frame and one after an oracle
step) are drawn by

- the release: its task object set to the scene (scripts/release_goldens/kidgym.py), then its
  ``render()`` (raw), and ``render()`` plus the PNG its ``save_obs`` writes (Pillow, default level 6);
- cogsim: ``scene.scene(state)`` and ``ReleaseLook.frame`` (raw; the release files were
  resampled once per process, as cogsim keeps them), and that frame as sent: a PNG by fpng where it
  is installed (lossless, the same pixels; ``pip install fpng``), else by Pillow at level 1.

Each scene is timed ``repeats`` times on each side, alternating, and the fastest kept (the machine may
be shared); a task-level's ratio is the median over its scenes. Then MiniGrid (``pip install minigrid``):
a new KidGym episode with its first release frame (``env.reset``) against MiniGrid DoorKey-16x16
reset + render (576 px), for all 39 task-levels, each after 100 resets that load the release files its
episodes show (cogsim keeps them for the process). Every frame is checked equal to the release's.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]


def golden_script():
    spec = importlib.util.spec_from_file_location("kidgym_goldens", ROOT / "scripts" / "release_goldens" / "kidgym.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fastest(call, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        began = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - began)
    return best


def pillow_png(frame: np.ndarray, level: int = 6) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(frame).save(buffer, format="PNG", compress_level=level)
    return buffer.getvalue()


def fast_png():
    """The fast lossless encoder used for cogsim's frames as sent, and its name."""
    if importlib.util.find_spec("fpng") is not None:
        import fpng

        return fpng.from_ndarray, "fpng"
    return (lambda frame: pillow_png(frame, 1)), "Pillow level 1"


def scenes_and_states(count: int):
    from cogsim import _core
    from cogsim.benchmarks.kidgym import TASKS
    from cogsim.benchmarks.kidgym import catalog as rc

    out = {}
    for name, spec in TASKS.items():
        for level in (1, 2, 3):
            states = []
            for state in _core.kidgym_generate(spec.core_id, level, list(range(count // 2)), rc.core_catalog()):
                states.append(state.copy())
                option = state.oracle_option()
                if option is not None:
                    state.apply(option)
                    states.append(state)
            out[name, level] = states
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args()
    if not (Path(os.environ.get("COGSIM_RELEASES", "")) / "KidGym" / "src").is_dir():
        print("set COGSIM_RELEASES=DIR with DIR/KidGym a copy of the KidGym release", file=sys.stderr)
        return 2
    release_root = Path(os.environ["COGSIM_RELEASES"]) / "KidGym"
    from cogsim import release_assets

    release_assets.add("kidgym", release_root)  # as a user installs them: the envs below draw from there
    here = os.getcwd()
    goldens = golden_script()
    goldens.import_release()
    os.chdir(here)
    import PIL

    from cogsim.benchmarks.kidgym.look import ReleaseLook
    from cogsim.benchmarks.kidgym.scene import scene

    encode, encoder = fast_png()
    look = ReleaseLook(release_root, threads=1)
    rows, raw_ratios, sent_ratios = [], [], []
    for (name, level), states in scenes_and_states(args.scenes).items():
        raw, sent, release_ms, release_png_ms, ours_us, ours_png_us = [], [], [], [], [], []
        for state in states:
            the_scene = scene(name, state)
            task = goldens.release_task(the_scene)
            with contextlib.redirect_stdout(io.StringIO()):
                theirs = task.render()
                assert np.array_equal(look.frame(scene(name, state)), theirs), (name, level)
                t_release = fastest(task.render, args.repeats)
                t_release_png = fastest(lambda: pillow_png(task.render()), args.repeats)
            t_ours = fastest(lambda: look.frame(scene(name, state)), args.repeats)
            t_ours_png = fastest(lambda: encode(look.frame(scene(name, state))), args.repeats)
            raw.append(t_release / t_ours)
            sent.append(t_release_png / t_ours_png)
            release_ms.append(1e3 * t_release)
            release_png_ms.append(1e3 * t_release_png)
            ours_us.append(1e6 * t_ours)
            ours_png_us.append(1e6 * t_ours_png)
        raw_ratios.append(statistics.median(raw))
        sent_ratios.append(statistics.median(sent))
        rows.append(
            f"| {name} L{level} | {statistics.median(release_ms):.1f} ms | {statistics.median(ours_us):.0f} us | "
            f"{raw_ratios[-1]:.0f}x | {statistics.median(release_png_ms):.1f} ms | "
            f"{statistics.median(ours_png_us) / 1e3:.2f} ms | {sent_ratios[-1]:.1f}x |"
        )
    print(
        f"Pillow {PIL.__version__}, numpy {np.__version__}; cogsim's PNG as sent: {encoder}; {args.scenes} scenes a task-level"
    )
    print(
        "| task-level | release render() | cogsim frame | raw ratio | release render()+PNG | cogsim frame+PNG | as-sent ratio |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    print("\n".join(rows))
    print(
        f"| all 39 | | | median {statistics.median(raw_ratios):.0f}x, min {min(raw_ratios):.0f}x | | | "
        f"median {statistics.median(sent_ratios):.1f}x, min {min(sent_ratios):.1f}x |"
    )
    minigrid_rows()
    return 0


def minigrid_rows(seconds: float = 1.0) -> None:
    if importlib.util.find_spec("minigrid") is None:
        print("MiniGrid: not installed (pip install minigrid)")
        return
    import gymnasium as gym
    import minigrid  # noqa: F401  (registers its envs)

    import cogsim
    from cogsim.benchmarks.kidgym import TASKS

    peer = gym.make("MiniGrid-DoorKey-16x16-v0", render_mode="rgb_array", tile_size=36)
    seeds = iter(range(10**9))

    def peer_reset():
        peer.reset(seed=next(seeds))
        return peer.render()

    def rate(call) -> float:
        call()
        calls, began = 0, time.perf_counter()
        while time.perf_counter() - began < seconds:
            call()
            calls += 1
        return calls / (time.perf_counter() - began)

    rate(peer_reset)
    ratios = []
    for name in TASKS:
        for level in (1, 2, 3):
            env = cogsim.make(f"kidgym/{name}", level=level)
            for _ in range(100):  # the release's files this task shows, resampled once per process
                env.reset(seed=next(seeds))
            ours = rate(lambda: env.reset(seed=next(seeds)))
            theirs = rate(peer_reset)
            ratios.append((f"{name} L{level}", ours / theirs, ours, theirs))
    print("\nKidGym reset + first release frame vs MiniGrid DoorKey-16x16 reset + render (576 px), per task-level:")
    print("| task-level | cogsim resets/s | MiniGrid resets/s | ratio |")
    print("| --- | --- | --- | --- |")
    for label, ratio, ours, theirs in ratios:
        print(f"| {label} | {ours:,.0f} | {theirs:,.0f} | {ratio:.2f}x |")
    values = [r for _, r, _, _ in ratios]
    print(f"| all 39 | | | median {statistics.median(values):.2f}x, min {min(values):.2f}x |")


if __name__ == "__main__":
    sys.exit(main())
