"""Kill a real `cogsim run` (SIGKILL, at random moments) again and again, resume it each time, and
check that no committed turn is ever lost or changed, no episode is duplicated, and the finished
run equals an uninterrupted one."""

import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from cogsim.store.rows import PROMPT_SQL

ROOT = Path(__file__).resolve().parents[1]
RUN = [
    "looptest/count",
    "looptest/choice",
    "looptest/duel",
    "--import",
    "tests/loop_envs.py",
    "--agent",
    "random",
    "--agent",
    "noisy-oracle:0.3",
    "--episodes",
    "30",
    "--seed",
    "1",
    "--concurrency",
    "4",
    "--env-option",
    "delay=0.01",
    "--no-progress",
]
PLUGIN = ["--import", "tests/loop_envs.py"]  # a resume imports only what its command line names
PLANNED = 30 * 2 + 30 * 2 + 30  # count and choice per agent, one duel seating


def cogsim(*args: str) -> subprocess.Popen:
    # The installed package (with its compiled core), not the source tree: CI installs a wheel.
    return subprocess.Popen(
        [sys.executable, "-m", "cogsim.cli", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def turns(run_dir: Path) -> dict:
    """Committed turns keyed by (task, agent, episode, turn), as a fresh reader sees them."""
    if not (run_dir / "store.sqlite").exists():
        return {}
    db = sqlite3.connect(run_dir / "store.sqlite")
    try:
        rows = db.execute(
            f"SELECT e.task, e.agent, e.episode_index, t.turn, t.player, t.agent, {PROMPT_SQL}, t.images, t.response, "
            "t.parsed, t.parse, t.reward, t.terminated FROM turns t JOIN episodes e ON e.id = t.episode_id"
        ).fetchall()
    except sqlite3.OperationalError:  # killed before the schema was written
        return {}
    finally:
        db.close()
    return {row[:4]: row[4:] for row in rows}


def episodes(run_dir: Path) -> list:
    db = sqlite3.connect(run_dir / "store.sqlite")
    rows = db.execute(
        "SELECT task, agent, episode_index, seed, status, num_turns, total_reward, outcome FROM episodes ORDER BY 1, 2, 3"
    ).fetchall()
    db.close()
    return rows


def has_run(run_dir: Path) -> bool:
    try:
        db = sqlite3.connect(run_dir / "store.sqlite")
        return db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1
    except sqlite3.OperationalError:
        return False


def test_sigkill_at_random_moments_then_resume(tmp_path):
    reference = tmp_path / "reference"
    done = cogsim("run", *RUN, "--out", str(reference))
    output, _ = done.communicate(timeout=300)
    assert done.returncode == 0, output
    expected = turns(reference)

    killed = tmp_path / "killed"
    rng = random.Random(20261123)
    seen: dict = {}
    kills, partial_stores = 0, 0
    for attempt in range(5):
        args = (
            ["run", "--resume", str(killed), "--no-progress", *PLUGIN]
            if has_run(killed)
            else ["run", *RUN, "--out", str(killed)]
        )
        process = cogsim(*args)
        if attempt == 0:
            time.sleep(rng.uniform(0.1, 1.0))  # most likely while starting up
        else:  # somewhere after the next 20-150 turns, wherever the step is then
            target = len(seen) + rng.randint(20, 150)
            while process.poll() is None and len(turns(killed)) < target:
                time.sleep(0.02)
            time.sleep(rng.uniform(0.0, 0.2))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            kills += 1
        process.communicate(timeout=60)
        now = turns(killed)
        time.sleep(0.3)
        assert turns(killed) == now, "a worker kept writing after its run was killed"
        assert all(now.get(key) == value for key, value in seen.items()), "a committed turn was lost or changed"
        seen = now
        partial_stores += 0 < len(now) < len(expected)
        print(f"attempt {attempt}: {len(now)} of {len(expected)} turns committed")
    assert kills >= 4 and partial_stores >= 3  # the kills did land mid-run

    final = cogsim("run", "--resume", str(killed), "--no-progress", *PLUGIN)
    output, _ = final.communicate(timeout=300)
    assert final.returncode == 0, output
    assert f"{PLANNED}/{PLANNED} episodes finished" in output
    result = turns(killed)
    assert all(result.get(key) == value for key, value in seen.items())
    assert result == expected
    assert episodes(killed) == episodes(reference)
    assert len(episodes(killed)) == PLANNED
