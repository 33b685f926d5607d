"""End to end with a vision-language model: the test VLM (``python -m cogsim.agents.tiny_vlm --cached``:
SmolVLM's architecture over SmolLM2-135M-Instruct's real weights, with a seeded vision tower) plays
every image suite, in process (``vllm:DIR``) and served by vLLM's OpenAI-compatible server
(``openai:``), with the releases' pictures.

Checked against the model's own processor, independently of the engine: every stored turn's prompt
token count is what the processor makes of that turn's conversation (rebuilt from the store with the
episode's history policy, its frames decoded from the stored bytes), the image tokens among them
what the processor gives the frames at their sizes; in process, every stored frame reached the
processor as the pixels of its stored bytes (captured at the processor's call). Its replies are noise:
what is tested is the pipe. Every turn is stored, nothing fails or is lost; a prompt longer than the
context is a stored context_overflow fault naming the fix, and the run resumes after it.

Needs ``bash scripts/setup_e2e.sh``; run with ``pytest -q -m e2e``. The timings printed (turns per
second, the harness's share of the wall time) are the ones docs/guides/local-models.md quotes."""

from __future__ import annotations

import collections
import hashlib
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from e2e.vlm import (
    ENGINE,
    MAX_TOKENS,
    MAX_TURNS,
    VllmServer,
    as_vllm_sends,
    build_vlm,
    decoded,
    engine_env,
    image_tasks,
    processor_prompt_tokens,
    prompts_of,
    stored_episodes,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture(scope="module")
def vlm() -> Path:
    return build_vlm()


@pytest.fixture(scope="module")
def pairs_release_files(tmp_path_factory):
    """Matching Pairs' card files installed as a user installs them: the stand-in pack (CI has no
    release copy) under its own manifest, in the tests' cache; the variable reaches `cogsim run` too."""
    import os

    from benchmarks.rngbench.pairs.pairs_standin import make_standin
    from cogsim import release_assets

    made = make_standin(tmp_path_factory.mktemp("pairs-standin"))
    variable = release_assets.MANIFEST_VARIABLE.format("RNGBENCH")
    before = os.environ.get(variable)
    os.environ[variable] = str(made[2])
    try:
        try:
            release_assets.root("rngbench")
        except release_assets.AssetsMissing:
            release_assets.add("rngbench", made[1])
        yield made
    finally:
        if before is None:
            os.environ.pop(variable, None)
        else:
            os.environ[variable] = before


@pytest.fixture(scope="module")
def processor(vlm):
    from transformers import AutoProcessor

    return AutoProcessor.from_pretrained(vlm)


class Timed:
    """The runner's wall time from its first step and the time spent inside the backend's calls."""

    def __init__(self, monkeypatch, backend_class):
        self.backend_s, self.first_step, self.steps = 0.0, None, 0
        original = backend_class.complete

        def complete(backend, conversations, decoding=None):
            began = time.perf_counter()
            if self.first_step is None:
                self.first_step = began
            try:
                return original(backend, conversations, decoding)
            finally:
                self.backend_s += time.perf_counter() - began
                self.steps += 1

        monkeypatch.setattr(backend_class, "complete", complete)


def play(config, run_dir: Path, timed: Timed) -> dict:
    from cogsim.harness import run

    summary = run(config, run_dir)
    ended = time.perf_counter()
    wall = ended - timed.first_step
    return {
        "summary": summary,
        "turns": summary.new_turns,
        "turns_per_s": summary.new_turns / wall,
        "harness_share": (wall - timed.backend_s) / wall,
        "wall_s": wall,
    }


def check_run(run_dir: Path, processor, label: str) -> dict:
    """Every episode ended (done or truncated by the turn cap), every turn a stored reply whose
    prompt token count is the processor's; returns the image tokens per frame size seen, per env id."""
    per_frame = collections.defaultdict(dict)
    mismatches = []
    turns_seen = 0
    for episode, turns in stored_episodes(run_dir):
        assert episode["fault"] is None and episode["error"] is None, (label, episode)
        assert episode["status"] in ("done", "truncated"), (label, episode)
        assert turns and [t.turn for t in turns] == list(range(len(turns))), (label, episode)
        for turn, prompt in zip(turns, prompts_of(run_dir, episode, turns)):
            turns_seen += 1
            assert turn.error is None and isinstance(turn.response, str), (label, episode["env_id"], turn)
            assert 0 < turn.completion_tokens <= MAX_TOKENS, (label, turn)
            expected, image_tokens = processor_prompt_tokens(processor, run_dir, prompt)
            if turn.prompt_tokens != expected:
                mismatches.append(
                    (episode["env_id"], episode["episode_index"], turn.turn, turn.prompt_tokens, expected)
                )
            for ref in turn.images:
                image = decoded(run_dir, ref)
                size = (image.height, image.width)
                if size not in per_frame[episode["env_id"]]:
                    tokens = processor._get_num_multimodal_tokens(image_sizes=[list(size)])["num_image_tokens"][0]
                    per_frame[episode["env_id"]][size] = tokens
    assert not mismatches, f"{label}: stored prompt tokens differ from the processor's: {mismatches[:10]}"
    assert turns_seen > 0
    return per_frame


def image_config(model: str, **settings):
    from cogsim.harness import RunConfig, Task

    return RunConfig([Task(**t) for t in image_tasks()], [model], max_turns=MAX_TURNS, **settings)


def test_every_image_suite_in_process_reaches_the_processor_as_stored(
    vlm, processor, pairs_release_files, tmp_path, monkeypatch
):
    from transformers.models.idefics3.processing_idefics3 import Idefics3Processor

    from cogsim.agents.vllm import VLLMBackend

    for name, value in engine_env().items():
        monkeypatch.setenv(name, value)
    received = {}  # sha256 of the pixels -> (mode, shape): every image vLLM handed the processor
    original = Idefics3Processor.__call__

    def capture(self, images=None, text=None, **kwargs):
        stack = [images]
        while stack:
            item = stack.pop()
            if isinstance(item, (list, tuple)):
                stack.extend(item)
            elif item is not None:
                pixels = np.asarray(item)
                received[hashlib.sha256(pixels.tobytes()).hexdigest() + str(pixels.shape)] = item.mode
        return original(self, images=images, text=text, **kwargs)

    monkeypatch.setattr(Idefics3Processor, "__call__", capture)
    timed = Timed(monkeypatch, VLLMBackend)
    options = {**ENGINE, "max_tokens": MAX_TOKENS, "temperature": 0.0}
    result = play(image_config(f"vllm:{vlm}", agent_options=options, concurrency=64), tmp_path, timed)
    assert result["summary"].ok, result["summary"].fault_lines()
    per_frame = check_run(tmp_path, processor, "in process")

    frames = {ref for _, turns in stored_episodes(tmp_path) for t in turns for ref in t.images}
    modes = collections.Counter()
    for ref in frames:
        image = decoded(tmp_path, ref)
        modes[image.mode] += 1
        pixels = as_vllm_sends(image)
        key = hashlib.sha256(pixels.tobytes()).hexdigest() + str(pixels.shape)
        assert key in received, f"{ref} ({image.mode} {image.size}) never reached the processor as its stored pixels"
        assert received[key] == "RGB"
    assert modes["RGBA"] > 0 and modes["RGB"] > 0, modes  # KidGym's RGBA frames, the others' RGB
    print_measures("in process", result, per_frame)


def print_measures(label: str, result: dict, per_frame: dict) -> None:
    print(
        f"\ne2e vlm {label}: {result['turns']} turns in {result['wall_s']:.1f} s = {result['turns_per_s']:.2f} turns/s; "
        f"harness {100 * result['harness_share']:.2f}% of the wall time"
    )
    for env_id, sizes in sorted(per_frame.items()):
        shown = ", ".join(f"{w}x{h}: {tokens}" for (h, w), tokens in sorted(sizes.items()))
        print(f"  image tokens per frame, {env_id}: {shown}")


@pytest.fixture(scope="module")
def vlm_server(vlm, tmp_path_factory):
    log = tmp_path_factory.mktemp("vlm-server") / "server.log"
    args = ["--max-model-len", str(ENGINE["max_model_len"]), "--enforce-eager", "--dtype", "float32"]
    args += ["--kv-cache-memory-bytes", str(ENGINE["kv_cache_memory_bytes"])]
    args += ["--limit-mm-per-prompt", '{"image": 64}']
    server = VllmServer(vlm, log, "tiny-vlm", *args)
    yield server
    server.kill()


@pytest.fixture(scope="module")
def served_run(vlm_server, pairs_release_files, tmp_path_factory):
    """Every image suite through ``openai:`` against the server, played in this process (timed)."""
    from cogsim.agents.openai import OpenAIBackend

    monkeypatch = pytest.MonkeyPatch()
    try:
        timed = Timed(monkeypatch, OpenAIBackend)
        options = {"base_url": vlm_server.url, "api_key": "local", "concurrency": 16, "max_tokens": MAX_TOKENS}
        run_dir = tmp_path_factory.mktemp("served") / "run"
        result = play(image_config("openai:tiny-vlm", agent_options=options, concurrency=64), run_dir, timed)
    finally:
        monkeypatch.undo()
    return run_dir, result


def test_every_image_suite_served_counts_the_processors_tokens(served_run, processor):
    run_dir, result = served_run
    assert result["summary"].ok, result["summary"].fault_lines()
    per_frame = check_run(run_dir, processor, "served")
    print_measures("served", result, per_frame)


def cogsim(*args: str, timeout: float = 1200) -> subprocess.CompletedProcess:
    command = "import sys; from cogsim.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", command, *args], capture_output=True, text=True, timeout=timeout, env=engine_env()
    )


def test_a_maze_that_outgrows_the_context_stops_with_the_fix_named_and_resumes_after_it(vlm, tmp_path):
    """The release's default history (every turn) in a context of 700 tokens: the first prompt of a
    maze episode fits (about 610 tokens), the second or third does not. Stored as a context_overflow
    fault naming --history and max_model_len, exit status 3; resumed with --history current it plays
    on to the turn cap."""
    run_dir = tmp_path / "maze"
    args = ["run", "maze3d/nav", "--agent", f"vllm:{vlm}", "--episodes", "1", "--max-turns", "4"]
    args += ["--env-option", "size=5", "--out", str(run_dir), "--no-progress"]
    for key, value in {**ENGINE, "max_model_len": 700, "max_tokens": MAX_TOKENS}.items():
        args += ["--agent-option", f"{key}={value}"]
    first = cogsim(*args)
    assert first.returncode == 3, first.stderr[-3000:]
    assert "[context_overflow]" in first.stderr and "--history last:K" in first.stderr, first.stderr[-3000:]
    assert "max_model_len" in first.stderr
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        ((status, fault, turns),) = db.execute("SELECT status, fault, num_turns FROM episodes").fetchall()
    assert status == "running" and fault == "context_overflow" and turns >= 1
    resumed = cogsim("run", "--resume", str(run_dir), "--history", "current", "--no-progress")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        assert db.execute("SELECT status, fault FROM episodes").fetchall() == [("truncated", None)]
        assert db.execute("SELECT COUNT(*), COUNT(error) FROM turns").fetchone() == (4, 0)
        (changes,) = db.execute("SELECT changes FROM config_changes").fetchone()
    assert '"history"' in changes and '"current"' in changes


# -- the tools users run, against the same server ---------------------------------------------------
TOOL_TASKS = {  # one image task of each benchmark (RNG-Bench: both games), a short episode each
    "kidgym/maze": {},
    "cube/optimal-move": {},
    "maze3d/nav": {},
    "pairs/single": {"modality": "image", "rows": 2, "cols": 3},
}
BIN = Path(sys.executable).parent


def tool_env(server) -> dict:
    """inspect's OpenAI-compatible provider (openai-api/local/MODEL) reads LOCAL_BASE_URL and LOCAL_API_KEY."""
    return {**engine_env(), "LOCAL_BASE_URL": server.url, "LOCAL_API_KEY": "local", "COGSIM_E2E_KEY": "local"}


def test_inspect_eval_of_an_image_task_of_each_benchmark_sends_the_frames(vlm_server, tmp_path):
    import base64

    from inspect_ai.log import read_eval_log
    from inspect_ai.model import ContentImage

    from cogsim.integrations.inspect_tasks import task_name

    # one inspect run for the tasks whose defaults show pictures, one for Matching Pairs' image modality
    runs = [
        ([e for e in TOOL_TASKS if e != "pairs/single"], []),
        (["pairs/single"], [a for k, v in TOOL_TASKS["pairs/single"].items() for a in ("-T", f"{k}={v}")]),
    ]
    logs = {}
    for env_ids, task_args in runs:
        log_dir = tmp_path / task_name(env_ids[0])
        command = [str(BIN / "inspect"), "eval", *[f"cogsim/{task_name(e)}" for e in env_ids]]
        command += ["--model", "openai-api/local/tiny-vlm", "-T", "episodes=1", "-T", "max_turns=2", *task_args]
        command += ["--log-dir", str(log_dir), "--display", "plain", "--max-tokens", str(MAX_TOKENS)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=900, env=tool_env(vlm_server))
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        for path in log_dir.glob("*.eval"):
            log = read_eval_log(str(path), resolve_attachments=True)  # the frames, not attachment:// names
            logs[log.eval.task.split("/")[-1]] = log
    assert sorted(logs) == sorted(task_name(e) for e in TOOL_TASKS)
    for name, log in logs.items():
        assert log.status == "success" and len(log.samples) == 1, (name, log.status)
        (sample,) = log.samples
        images = [
            part.image
            for message in sample.messages
            if message.role == "user" and not isinstance(message.content, str)
            for part in message.content
            if isinstance(part, ContentImage)
        ]
        assert images and all(i.startswith(("data:image/png;base64,", "data:image/jpeg;base64,")) for i in images)
        assert all(len(base64.b64decode(i.split(",", 1)[1])) > 100 for i in images), name
        replies = [m.text for m in sample.messages if m.role == "assistant"]
        assert replies and all(isinstance(r, str) for r in replies), name
        # the server counted the frames' image tokens (at least 80 a frame for this processor)
        assert log.stats.model_usage["openai-api/local/tiny-vlm"].input_tokens > 80 * len(images), name


def test_vf_eval_of_an_image_task_of_each_benchmark_sends_the_frames(vlm_server, tmp_path):
    import json

    for env_id, options in TOOL_TASKS.items():
        out = tmp_path / env_id.replace("/", "_")
        command = [str(BIN / "vf-eval"), "cogsim-verifiers", "--env.taskset.env-id", env_id]
        command += ["--env.taskset.episodes", "1", "--env.taskset.max-turns", "2"]
        command += ["--env.taskset.options", json.dumps(options), "-m", "tiny-vlm", "--client.base-url", vlm_server.url]
        command += ["--client.api-key-var", "COGSIM_E2E_KEY", "--sampling.max-tokens", str(MAX_TOKENS)]
        command += ["--no-push", "--no-rich", "-o", str(out)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=900, env=tool_env(vlm_server))
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        (results,) = out.rglob("traces.jsonl")
        (row,) = [json.loads(line) for line in results.read_text().splitlines()]
        (trace,) = row["traces"]
        text = json.dumps(trace)
        assert '"image_url"' in text and "data:image/" in text, env_id  # the frames went in v1 messages
        assert any(node["sampled"] for node in trace["nodes"]), env_id
        assert trace["info"]["cogsim"]["env_id"] == env_id


def test_exports_of_the_served_run_carry_the_frames(served_run, tmp_path):
    import base64
    import json

    from inspect_ai.log import read_eval_log
    from inspect_ai.model import ContentImage

    from cogsim.store.frames import read_stored_frame

    run_dir, _ = served_run
    stored = {
        read_stored_frame(run_dir, ref, 64 << 20)
        for _, turns in stored_episodes(run_dir)
        for t in turns
        for ref in t.images
    }
    done = cogsim("export", str(run_dir), "--format", "inspect", "--out", str(tmp_path / "run.eval"))
    assert done.returncode == 0, done.stderr[-3000:]
    log = read_eval_log(str(tmp_path / "run.eval"), resolve_attachments=True)
    sent = {
        base64.b64decode(part.image.split(",", 1)[1])
        for sample in log.samples
        for message in sample.messages
        if not isinstance(message.content, str)
        for part in message.content
        if isinstance(part, ContentImage)
    }
    assert sent == stored
    done = cogsim(
        "export", str(run_dir), "--format", "sft", "--agent", "openai:tiny-vlm", "--out", str(tmp_path / "sft.jsonl")
    )
    assert done.returncode == 0, done.stderr[-3000:]
    records = [json.loads(line) for line in (tmp_path / "sft.jsonl").read_text().splitlines()]
    paths = {
        part["image"]
        for record in records
        for message in record["messages"]
        if isinstance(message["content"], list)
        for part in message["content"]
        if part.get("type") == "image"
    }
    # the SFT export holds the finished ("done") episodes, each whole: their frames, as stored
    done_frames = {
        read_stored_frame(run_dir, ref, 64 << 20)
        for episode, turns in stored_episodes(run_dir)
        if episode["status"] == "done"
        for t in turns
        for ref in t.images
    }
    assert records and done_frames and {Path(p).read_bytes() for p in paths} == done_frames
