"""What checking the installed release files costs KidGym's release look: the frame rate and the first make.

    python benchmarks/release_files_kidgym.py [--steps 250] [--out FILE]

Needs KidGym's release files installed (``cogsim assets add kidgym PATH``). Makes every KidGym env id
at level 2 (the first make of the process checks every installed file's SHA-256; later ones reuse
the verdicts), resets each once, then plays each ``steps`` scripted oracle steps (a reset where an
episode ends), every step drawing its release frame. Prints one line: the CPU seconds of the makes
and first resets, the frames drawn, and frames per CPU second and per wall second of the play (CPU
time: on a shared machine the wall clock mostly measures the other jobs). To compare two versions,
run it alternately under each, several times, and take the median of the paired ratios.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import cogsim


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=250, help="oracle steps per env id")
    parser.add_argument("--out", help="append the line to this file too")
    args = parser.parse_args()
    ids = [env_id for env_id in cogsim.list_envs() if env_id.startswith("kidgym/")]
    made = time.process_time()
    envs = [cogsim.make(env_id, level=2) for env_id in ids]
    for seed, env in enumerate(envs):
        env.reset(seed=seed)
    started, started_wall = time.process_time(), time.perf_counter()
    frames, rng = 0, np.random.default_rng(0)
    for index, env in enumerate(envs):
        seed = 1000 * index
        for _ in range(args.steps):
            obs, _, terminated, truncated, _ = env.step(env.scripted_response("oracle", rng))
            frames += len(obs["images"])
            if terminated or truncated:
                seed += 1
                obs, _ = env.reset(seed=seed)
                frames += len(obs["images"])
    cpu, wall = time.process_time() - started, time.perf_counter() - started_wall
    line = (
        f"make+first reset {started - made:.3f} CPU s; {frames} frames; {frames / cpu:.1f} frames per CPU s, "
        f"{frames / wall:.1f} per wall s"
    )
    print(line)
    if args.out:
        with open(args.out, "a") as out:
            out.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
