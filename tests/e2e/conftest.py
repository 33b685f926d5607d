"""The training examples' runs that several e2e tests read: ``examples/sft.py`` once per session."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example(script: str, *args: str) -> subprocess.Popen:
    """``python examples/SCRIPT ARGS`` offline, its output collected."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    env.pop("VLLM_CPU_KVCACHE_SPACE", None)  # the examples size vLLM's KV cache themselves
    command = [sys.executable, str(EXAMPLES / script), *args]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)


def finished(process: subprocess.Popen, timeout: float) -> str:
    output, _ = process.communicate(timeout=timeout)
    assert process.returncode == 0, output[-6000:]
    return output


@pytest.fixture(scope="session")
def sft_run(tmp_path_factory) -> dict:
    """examples/sft.py with its defaults: oracle rollouts, LoRA SFT of SmolLM2-135M, the held-out run."""
    pytest.importorskip("peft", reason="peft is not installed: run scripts/setup_e2e.sh")
    from e2e.test_vllm_loop import smollm2_folder

    folder = smollm2_folder()
    out = tmp_path_factory.mktemp("sft")
    started = time.perf_counter()
    output = finished(example("sft.py", "--model", str(folder), "--out", str(out)), timeout=5400)
    return {"model": folder, "out": out, "output": output, "seconds": time.perf_counter() - started}


FIGURES: list[str] = []


@pytest.fixture
def figures() -> list[str]:
    """Lines a test measured, printed at the end of the session (a passing test's output is hidden)."""
    return FIGURES


def pytest_terminal_summary(terminalreporter):
    if FIGURES:
        terminalreporter.section("figures measured by the e2e tests")
        for line in FIGURES:
            terminalreporter.write_line(line)
