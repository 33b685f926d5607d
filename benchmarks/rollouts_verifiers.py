"""Rollouts per second for trainers: episodes/s and tokens/s of rollout generation through cogsim's
verifiers taskset against vLLM's OpenAI-compatible server, and the share of the time spent in cogsim.

    python benchmarks/rollouts_verifiers.py --model FOLDER [--env cube/move-effect ...] [--episodes 32]
        [--concurrency 16] [--max-tokens 64] [--base-url URL] [--json OUT.json]

Without ``--base-url`` it starts ``vllm.entrypoints.openai.api_server`` for FOLDER on loopback
(float32, eager, a 1 GiB KV cache: the e2e stage's engine) and stops it at the end. Each env id's
episodes run as a verifiers trainer runs them: ``env.run_episode`` for every task, ``--concurrency``
in flight, inside ``env.serving()``. Time in cogsim is every call into the cogsim episode the env
drives (making and resetting the env, each step, each prompt the history policy builds, the
episode's record and its metrics for the reward), measured around the outermost such call on the
event loop's thread, and the taskset's loading (the first prompts). What cogsim loads once per process
(WILT's hypothesis space: seconds) is measured before, by one episode outside the clock, and reported
on its own: a trainer pays it once, not per rollout. Results: benchmarks/results_train.md.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import verifiers.v1 as vf

import cogsim.integrations.verifiers as adapter
from cogsim.harness.config import parse_option_values
from cogsim.integrations.episode import Episode, EpisodeSpec

DEFAULT_ENVS = ["cube/move-effect:depth=1", "wilt/lite:max_attempts=5", "pairs/single:rows=2,cols=4"]
KEY_VARIABLE = "COGSIM_BENCH_KEY"


class CogsimClock:
    """Wall and CPU seconds spent inside cogsim's calls (the outermost call only: nested ones are inside it)."""

    def __init__(self):
        self.wall = self.cpu = 0.0
        self.calls = 0
        self.depth = 0

    def wrap(self, function):
        @functools.wraps(function)
        def timed(*args, **kwargs):
            if self.depth:
                return function(*args, **kwargs)
            self.depth += 1
            wall, cpu = time.perf_counter(), time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                self.wall += time.perf_counter() - wall
                self.cpu += time.thread_time() - cpu
                self.calls += 1
                self.depth -= 1

        return timed

    def install(self) -> None:
        for name in ("__init__", "prompt", "step", "record", "close", "scripted_answer", "user_message"):
            setattr(Episode, name, self.wrap(getattr(Episode, name)))
        for name in (
            "episode_metrics",
            "finished_record",
            "play_opponent",
            "split_system",
            "openai_messages",
            "_checked",
        ):
            setattr(adapter, name, self.wrap(getattr(adapter, name)))

    def reset(self) -> None:
        self.wall = self.cpu = 0.0
        self.calls = 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_vllm(folder: str, log: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    command = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", folder, "--served-model-name"]
    command += ["policy", "--host", "127.0.0.1", "--port", str(port), "--dtype", "float32", "--enforce-eager"]
    command += ["--max-model-len", "4096", "--kv-cache-memory-bytes", str(1 << 30)]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    env.pop("VLLM_CPU_KVCACHE_SPACE", None)
    # its own process group: the engine's worker processes end with the server (stop_vllm)
    process = subprocess.Popen(command, stdout=log.open("w"), stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the vLLM server stopped: {log.read_text()[-2000:]}")
        try:
            if httpx.get(url + "/models", timeout=2).status_code == 200:
                return process, url
        except httpx.HTTPError:
            pass
        time.sleep(2)
    stop_vllm(process)
    raise SystemExit("the vLLM server did not answer within 15 minutes")


def stop_vllm(process: subprocess.Popen) -> None:
    """The server and every process it started (vLLM's engine core outlives a killed server)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def env_spec(text: str) -> tuple[str, dict]:
    """``ID`` or ``ID:KEY=VALUE,KEY=VALUE``."""
    env_id, _, options = text.partition(":")
    return env_id, parse_option_values([o for o in options.split(",") if o], "--env")


async def run_all(env, tasks: list, context, concurrency: int) -> list:
    gate = asyncio.Semaphore(concurrency)

    async def one(task):
        async with gate:
            return await env.run_episode(task, context)

    async with env.serving():
        return await asyncio.gather(*(one(task) for task in tasks))


def warm_up(env_id: str, options: dict) -> float:
    """Seconds of the process's first episode of ``env_id``: what cogsim loads once per process (WILT's
    hypothesis space, the release files' check, the first imports), reported beside the rates."""
    started = time.perf_counter()
    Episode(EpisodeSpec(env_id, dict(options)), seed=0).close()
    return time.perf_counter() - started


def measure(text: str, args, url: str, clock: CogsimClock) -> dict:
    env_id, options = env_spec(text)
    once = warm_up(env_id, options)
    clock.reset()
    started = time.perf_counter()
    env = adapter.load_environment(env_id, episodes=args.episodes, seed=0, **options)
    tasks = list(env.taskset)  # the taskset builds each task's first prompt: cogsim's work, timed below
    load_wall = time.perf_counter() - started
    context = vf.ModelContext(
        model="policy",
        client=vf.EvalClientConfig(base_url=url, api_key_var=KEY_VARIABLE),
        sampling=vf.SamplingConfig(temperature=0.0, max_tokens=args.max_tokens),
    )
    began = time.perf_counter()
    episodes = asyncio.run(run_all(env, tasks, context, args.concurrency))
    wall = time.perf_counter() - began + load_wall
    traces = [t for e in episodes for t in e.traces]
    turns = sum(len([n for n in t.nodes if getattr(n, "sampled", False)]) for t in traces)
    out_tokens = sum(t.num_output_tokens for t in traces)
    in_tokens = sum(t.num_input_tokens for t in traces)
    return {
        "env": text,
        "once_per_process_s": round(once, 2),
        "episodes": len(episodes),
        "ok": sum(e.ok for e in episodes),
        "turns": turns,
        "wall_s": round(wall, 2),
        "episodes_per_s": round(len(episodes) / wall, 3),
        "output_tokens_per_s": round(out_tokens / wall, 1),
        "input_tokens_per_s": round(in_tokens / wall, 1),
        "cogsim_wall_s": round(clock.wall, 3),
        "cogsim_cpu_s": round(clock.cpu, 3),
        "cogsim_share": round(clock.wall / wall, 4),
        "cogsim_ms_per_turn": round(1000 * clock.wall / max(1, turns), 2),
        "mean_reward": round(sum(t.reward or 0.0 for t in traces) / max(1, len(traces)), 3),
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="a transformers model folder for the vLLM server this script starts")
    parser.add_argument("--base-url", help="an OpenAI-compatible server already running (its model named 'policy')")
    parser.add_argument("--env", action="append", help=f"ID[:KEY=VALUE,...] (default: {' '.join(DEFAULT_ENVS)})")
    parser.add_argument("--episodes", type=int, default=32)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--json", type=Path, help="write the results here too")
    args = parser.parse_args(argv)
    if not args.model and not args.base_url:
        parser.error("give --model (a server is started) or --base-url")
    os.environ.setdefault(KEY_VARIABLE, "local")
    clock = CogsimClock()
    clock.install()
    server = None
    if args.base_url:
        url = args.base_url
    else:
        log = Path(os.environ.get("TMPDIR", "/tmp")) / f"rollouts-vllm-{os.getpid()}.log"
        server, url = start_vllm(args.model, log)
    try:
        results = [measure(text, args, url, clock) for text in args.env or DEFAULT_ENVS]
    finally:
        if server is not None:
            stop_vllm(server)
    columns = ["env", "once_per_process_s", "episodes", "turns", "wall_s", "episodes_per_s", "output_tokens_per_s"]
    columns += ["input_tokens_per_s"]
    columns += ["cogsim_wall_s", "cogsim_cpu_s", "cogsim_share", "cogsim_ms_per_turn", "mean_reward"]
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in results:
        print("| " + " | ".join(str(row[c]) for c in columns) + " |")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
