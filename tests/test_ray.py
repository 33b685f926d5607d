"""Scale-out on Ray, on a two-node local cluster (both nodes on 127.0.0.1): a run on the cluster
stores what a local run stores; a worker lost mid-run and a driver killed mid-run lose no stored
turn and end equal to a local run; an address with no cluster fails at once; cube distances on the
cluster equal local ones."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster

import cogsim
import loop_envs  # noqa: F401  (registers the looptest envs)
from cogsim import cube
from cogsim._ray import ClusterUnavailable, connect
from cogsim.cli import main as cogsim_main
from cogsim.harness import RunConfig, Task, run
from cogsim.harness.ray_executor import RayExecutor
from cogsim.store.rows import PROMPT_SQL

ROOT = Path(__file__).resolve().parents[1]
LOOP_ENVS = str(ROOT / "tests" / "loop_envs.py")


@pytest.fixture(scope="module")
def cluster():
    """Two nodes of one CPU each; the test process is the driver."""
    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "node_ip_address": "127.0.0.1", "include_dashboard": False},
    )
    cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1")
    cluster.wait_for_nodes()
    connect(cluster.address)
    yield cluster
    ray.shutdown()
    cluster.shutdown()


def stored_turns(run_dir: Path) -> dict:
    """Turns keyed by (task, agent, episode, turn): what a run produced, whatever the episode ids."""
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        rows = db.execute(
            f"SELECT e.task, e.agent, e.episode_index, t.turn, t.player, {PROMPT_SQL}, t.images, t.response, t.parsed, "
            "t.parse, t.reward, t.terminated FROM turns t JOIN episodes e ON e.id = t.episode_id"
        ).fetchall()
    return {row[:4]: row[4:] for row in rows}


def stored_episodes(run_dir: Path) -> list:
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        return db.execute(
            "SELECT task, agent, episode_index, seed, status, num_turns, total_reward, outcome FROM episodes "
            "ORDER BY 1, 2, 3"
        ).fetchall()


CONFIG = RunConfig(
    [Task("looptest/count", 6), Task("looptest/choice", 3), Task("wilt/lite", 2), Task("kidgym/maze", 2)],
    ["oracle", "noisy-oracle:0.3"],
    seed=5,
    concurrency=4,
)


def test_a_run_on_the_cluster_stores_what_a_local_run_stores(cluster, tmp_path):
    run(CONFIG, tmp_path / "local")
    summary = run(CONFIG, tmp_path / "ray", executor=RayExecutor(cluster.address, workers=2, chunk_size=3))
    assert summary.finished == summary.episodes == 26
    local = stored_turns(tmp_path / "local")
    assert local and stored_turns(tmp_path / "ray") == local  # prompts, image refs, replies, parses, rewards
    assert stored_episodes(tmp_path / "ray") == stored_episodes(tmp_path / "local")
    images = {ref for row in local.values() for ref in json.loads(row[2] or "[]")}
    assert images and all((tmp_path / "ray" / ref).is_file() for ref in images)


def test_a_worker_lost_mid_run_costs_nothing_stored(cluster, tmp_path):
    config = RunConfig([Task("looptest/count", 8)], ["oracle"], seed=1, concurrency=4)
    run(config, tmp_path / "local")
    marker = tmp_path / "crashed"
    crashing = RunConfig([Task("looptest/count", 8, {"crash_once": str(marker)})], ["oracle"], seed=1, concurrency=4)
    summary = run(crashing, tmp_path / "ray", executor=RayExecutor(cluster.address, workers=2, chunk_size=2))
    assert marker.exists()  # a worker did die
    assert summary.finished == 8
    assert stored_turns(tmp_path / "ray") == stored_turns(tmp_path / "local")


def test_a_chunk_that_keeps_losing_workers_stops_the_run_resumably(cluster, tmp_path):
    from cogsim.harness.ray_executor import WorkerLost

    config = RunConfig([Task("looptest/count", 2, {"crash_once": str(tmp_path / "crashed")})], ["oracle"], seed=1)
    executor = RayExecutor(cluster.address, workers=1, chunk_size=2, max_attempts=1)
    with pytest.raises(WorkerLost, match="lost its worker 1 times"):
        run(config, tmp_path / "ray", executor=executor)
    summary = run(None, tmp_path / "ray", resume=True, executor=RayExecutor(cluster.address))  # marker set: no crash
    assert summary.finished == 2


def test_the_driver_killed_mid_run_then_resumed_equals_a_local_run(cluster, tmp_path):
    args = ["looptest/count", "--import", LOOP_ENVS, "--agent", "oracle", "--episodes", "24", "--seed", "3"]
    args += ["--concurrency", "2", "--env-option", "delay=0.05", "--no-progress"]
    local = tmp_path / "local"
    assert cogsim_main(["run", *args, "--out", str(local)]) == 0
    out = tmp_path / "ray"
    command = [sys.executable, "-m", "cogsim.cli", "run", *args, "--out", str(out), "--ray", cluster.address]
    driver = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and driver.poll() is None and _count_turns(out) < 20:
        time.sleep(0.1)
    assert driver.poll() is None, driver.communicate()[0]  # still running: killed mid-way
    before = stored_turns(out)
    driver.send_signal(signal.SIGKILL)
    driver.wait()
    assert 20 <= len(before) < len(stored_turns(local))
    resume = [sys.executable, "-m", "cogsim.cli", "run", "--resume", str(out), "--import", LOOP_ENVS]
    done = subprocess.run(
        [*resume, "--ray", cluster.address, "--no-progress"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    after = stored_turns(out)
    assert all(after[key] == value for key, value in before.items())  # nothing stored was lost or changed
    assert after == stored_turns(local)
    assert stored_episodes(out) == stored_episodes(local)


def _count_turns(run_dir: Path) -> int:
    try:
        with sqlite3.connect(run_dir / "store.sqlite") as db:
            return db.execute("SELECT COUNT(*) FROM turns").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def test_no_cluster_at_the_address_fails_at_once_with_a_clear_message(tmp_path, capsys):
    began = time.monotonic()
    code = cogsim_main(["run", "wilt/lite", "--ray", "127.0.0.1:1", "--out", str(tmp_path / "r"), "--no-progress"])
    assert code == 2 and time.monotonic() - began < 10
    error = capsys.readouterr().err
    assert "no Ray cluster answers at 127.0.0.1:1" in error and "ray start --head" in error
    assert not (tmp_path / "r").exists()  # nothing written
    with pytest.raises(ClusterUnavailable, match="give auto, HOST:PORT or ray://HOST:PORT"):
        RayExecutor("nonsense").execute(tmp_path, CONFIG, [object()])


def test_cube_distances_on_the_cluster_equal_local_ones(cluster, tmp_path):
    scrambles = [" ".join(cube.MOVES[(7 * i + 5 * k * k) % 18] for k in range(i % 9)) for i in range(60)]
    states = [cube.Cube.from_moves(s) for s in scrambles]
    local = cube.distance(states)
    assert len(set(local.tolist())) > 5
    remote = cube.distances_on_ray(states, address=cluster.address, chunk_size=16)
    assert remote.dtype == np.int64 and np.array_equal(remote, local)

    lines = [state.to_facelets() if i % 2 else scrambles[i] for i, state in enumerate(states[:12])]
    path = tmp_path / "states.txt"
    path.write_text("\n".join(lines) + "\n")
    out = tmp_path / "d.txt"
    args = ["cube", "distances", str(path), "--out", str(out), "--chunk", "5"]
    assert cogsim_main([*args, "--ray", cluster.address, "--no-progress"]) == 0
    assert out.read_text().split() == [str(int(d)) for d in local[:12]]


def test_cogsim_package_needs_no_ray():
    code = "import sys, cogsim, cogsim.harness, cogsim.cube; sys.exit('ray' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": str(Path(cogsim.__file__).resolve().parents[1])}
    assert subprocess.run([sys.executable, "-c", code], env=env).returncode == 0


def test_model_agents_on_the_cluster_share_one_endpoint(cluster, tmp_path):
    from test_backends_openai import ChatServer

    server = ChatServer()
    try:
        agent_options = {"base_url": server.url, "backoff_s": 0.01, "max_backoff_s": 0.05, "timeout_s": 5}
        config = RunConfig(
            [Task("looptest/count", 6)], ["openai:m"], seed=2, concurrency=4, agent_options=agent_options
        )
        run(config, tmp_path / "local")
        summary = run(config, tmp_path / "ray", executor=RayExecutor(cluster.address, workers=2, chunk_size=2))
        assert summary.finished == 6 and summary.backend_errors == 0
        assert stored_turns(tmp_path / "ray") == stored_turns(tmp_path / "local")
        with sqlite3.connect(tmp_path / "ray" / "store.sqlite") as db:
            (description,) = db.execute("SELECT description FROM backends WHERE spec = 'openai:m'").fetchone()
        assert server.url in description

        server_down = RunConfig([Task("looptest/count", 6)], ["openai:always-500"], seed=2, agent_options=agent_options)
        summary = run(server_down, tmp_path / "down", executor=RayExecutor(cluster.address, workers=2, chunk_size=2))
        assert summary.finished == 0 and summary.faults  # stopped, unscored, resumable
        server.healed = True
        summary = run(None, tmp_path / "down", resume=True, executor=RayExecutor(cluster.address))
        assert summary.finished == 6 and not summary.faults
    finally:
        server.close()


def test_auto_with_no_cluster_on_this_machine_says_how_to_start_one(monkeypatch):
    import cogsim._ray as cluster_connection

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr(cluster_connection, "_recorded_address", lambda: "")
    with pytest.raises(ClusterUnavailable, match="no Ray cluster is running on this machine.*ray start --head"):
        cluster_connection.resolve("auto")
    monkeypatch.setenv("RAY_ADDRESS", "10.1.2.3:6379")
    assert cluster_connection.resolve("auto") == "10.1.2.3:6379"
