"""Scale-out on Ray, measured on this machine: the per-episode cost of running through Ray against a
local run, 1-node against 2-node throughput of a local cluster (both nodes share this machine's
cores, so this shows the overhead, not a cluster's scaling), and cube distances on the cluster.

    python benchmarks/bench_ray.py [--episodes 96] [--states 2000]

Every figure comes from this one process, so the ratios compare like with like.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import ray
from ray.cluster_utils import Cluster

from cogsim import cube
from cogsim._ray import connect
from cogsim.harness import LocalExecutor, RunConfig, Task, run
from cogsim.harness.ray_executor import RayExecutor

SUITES = ("wilt/lite", "kidgym/maze", "pairs/single")


def timed_run(config: RunConfig, executor) -> float:
    out = Path(tempfile.mkdtemp(prefix="bench-ray-"))
    try:
        began = time.perf_counter()
        summary = run(config, out / "run", executor=executor)
        seconds = time.perf_counter() - began
        assert summary.finished == summary.episodes, summary
        return seconds
    finally:
        shutil.rmtree(out, ignore_errors=True)


def local_cluster(nodes: int, cpus_per_node: int) -> Cluster:
    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": cpus_per_node, "node_ip_address": "127.0.0.1", "include_dashboard": False},
    )
    for _ in range(nodes - 1):
        cluster.add_node(num_cpus=cpus_per_node, node_ip_address="127.0.0.1")
    cluster.wait_for_nodes()
    connect(cluster.address)
    return cluster


def close(cluster: Cluster) -> None:
    ray.shutdown()
    cluster.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=96, help="episodes per suite")
    parser.add_argument("--states", type=int, default=2000, help="cube states for the distance batch")
    args = parser.parse_args()
    config = RunConfig([Task(s, args.episodes) for s in SUITES], ["oracle"], seed=11, concurrency=32)
    episodes = len(SUITES) * args.episodes
    print(f"{os.cpu_count()} cores; {episodes} episodes ({', '.join(SUITES)}), oracle agent")

    local_1 = timed_run(config, LocalExecutor(1))
    local_2 = timed_run(config, LocalExecutor(2))
    rows = [("local, 1 process", local_1), ("local, 2 processes", local_2)]

    cluster = local_cluster(nodes=1, cpus_per_node=1)
    one_node = timed_run(config, RayExecutor(cluster.address, workers=1))
    close(cluster)
    cluster = local_cluster(nodes=2, cpus_per_node=1)
    two_nodes = timed_run(config, RayExecutor(cluster.address, workers=2))
    rows += [("Ray, 1 node x 1 worker", one_node), ("Ray, 2 nodes x 1 worker", two_nodes)]

    print("\n| run | seconds | episodes/s | per episode (ms) |\n| --- | ---: | ---: | ---: |")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.2f} | {episodes / seconds:.1f} | {1000 * seconds / episodes:.2f} |")
    print(f"\nRay overhead per episode, 1 worker vs 1 local process: {1000 * (one_node - local_1) / episodes:+.2f} ms")
    print(f"2 nodes / 1 node throughput: {one_node / two_nodes:.2f}x (both nodes on this machine's cores)")

    rng = np.random.default_rng(3)
    states = [" ".join(rng.choice(cube.MOVES, size=10 + i % 3)) for i in range(args.states)]  # random 10-12 moves
    cube.distance(states[:10])  # tables loaded before timing
    began = time.perf_counter()
    local = cube.distance(states)
    local_s = time.perf_counter() - began
    began = time.perf_counter()
    remote = cube.distances_on_ray(states, address=cluster.address, chunk_size=250)
    remote_s = time.perf_counter() - began
    assert np.array_equal(local, remote)
    close(cluster)
    print(
        f"\ncube distances of {args.states} states (10-12 random moves): local {local_s:.2f} s, "
        f"Ray 2 nodes {remote_s:.2f} s (includes each node loading its tables), ratio {remote_s / local_s:.2f}"
    )


if __name__ == "__main__":
    main()
