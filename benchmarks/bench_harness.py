"""Harness overhead per turn with a scripted agent: answer + parse + step + store, one process.

    python benchmarks/bench_harness.py [--turns 200000] [--profile]

A minimal text env ("bench/echo", defined here) keeps the env's own cost near zero, so the numbers
are the loop's: the bare env loop (scripted answer + step, no harness) for reference, then the
lockstep runner with the SQLite store on, at batch (concurrency) 1 and 256, one worker.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import re
import tempfile
import time
from pathlib import Path

import numpy as np

from cogsim import envs
from cogsim.envs import TextEnv, observation
from cogsim.harness import RunConfig, Task, run

TURNS_PER_EPISODE = 20
ANSWER = re.compile(r"MOVE (\d+)")


class EchoEnv(TextEnv):
    """Repeat the number shown; 20 turns per episode. About what a text suite's step costs in Python."""

    suite = "bench"

    def _reset(self, seed, options):
        self.turn = 0
        self.value = seed % 1000
        return observation(f"Turn 0. Say MOVE {self.value}.")

    def _step(self, action):
        match = ANSWER.search(action)
        parsed = int(match.group(1)) if match else None
        parse = "parse_failure" if match is None else "ok" if parsed == self.value else "invalid"
        self.turn += 1
        self.value = (self.value * 7 + 3) % 1000
        done = self.turn == TURNS_PER_EPISODE
        info = {"parse": parse, "parsed": parsed}
        if done:
            info["episode"] = {"turns": self.turn}
        return observation(f"Turn {self.turn}. Say MOVE {self.value}."), float(parse == "ok"), done, False, info

    def scripted_response(self, policy, rng):
        return f"MOVE {self.value}"


envs.register("bench/echo", EchoEnv)


def bare_loop(turns: int) -> float:
    """Turns per CPU second of the env alone: scripted answer + step, no harness, no store."""
    env = EchoEnv("bench/echo")
    rng = np.random.default_rng(0)
    started = time.process_time()
    done_turns, seed = 0, 0
    while done_turns < turns:
        env.reset(seed=seed)
        seed += 1
        done = False
        while not done:
            _, _, done, _, _ = env.step(env.scripted_response("oracle", rng))
            done_turns += 1
    return done_turns / (time.process_time() - started)


def harness(turns: int, batch: int) -> tuple[float, float, float]:
    """(turns per wall second, turns per CPU second, wall seconds) of the runner with the store on,
    one worker. CPU time is the steadier number on a shared machine."""
    episodes = turns // TURNS_PER_EPISODE
    config = RunConfig([Task("bench/echo", episodes)], ["oracle"], concurrency=batch, workers=1)
    with tempfile.TemporaryDirectory() as tmp:
        started, cpu_started = time.perf_counter(), time.process_time()
        summary = run(config, Path(tmp) / "run")
        seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    assert summary.turns == episodes * TURNS_PER_EPISODE and summary.parse_failures == 0
    return summary.turns / seconds, summary.turns / cpu_seconds, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=200_000)
    parser.add_argument("--batches", default="1,256", help="comma-separated batch sizes (default 1,256)")
    parser.add_argument("--profile", action="store_true", help="profile the batch-256 run")
    args = parser.parse_args()
    if args.profile:
        cProfile.runctx("harness(args.turns, 256)", globals(), {"args": args, "harness": harness}, "/tmp/harness.prof")
        pstats.Stats("/tmp/harness.prof").sort_stats("tottime").print_stats(20)
        return
    bare = bare_loop(args.turns)
    print(f"env alone (answer + step): {bare:,.0f} turns per CPU second ({1e6 / bare:.1f} us/turn)")
    for batch in (int(b) for b in args.batches.split(",")):
        turns = args.turns if batch >= 32 else args.turns // 4
        rate, cpu_rate, seconds = harness(turns, batch)
        overhead = 1e6 / cpu_rate - 1e6 / bare
        print(
            f"harness, batch {batch:4d}, store on: {rate:,.0f} turns/s wall, {cpu_rate:,.0f} turns per CPU second "
            f"({1e6 / cpu_rate:.1f} us CPU/turn, harness overhead {overhead:.1f} us/turn; {turns:,} turns in {seconds:.1f} s)"
        )


if __name__ == "__main__":
    main()
