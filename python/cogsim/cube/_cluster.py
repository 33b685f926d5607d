"""Optimal distances of many states on a Ray cluster (the optional extra ``cogsim[ray]``).

One worker per node of the cluster answers chunks of states with ``cube.distance``; its process
builds or loads the node's pattern databases once (from the node's ``$COGSIM_CACHE``) and searches
with all the node's cores. Chunks go to whichever worker is free; a worker lost mid-chunk hands its
chunk to the others. Results come back in input order.
"""

from __future__ import annotations

from collections import deque
from typing import Callable, Iterable, Optional, Union

import numpy as np

from cogsim._ray import connect
from cogsim.cube._cube import StateLike, as_states
from cogsim.cube._oracle import DEFAULT_MAX_NODES, distance

IN_FLIGHT_PER_WORKER = 2  # one chunk searching, one waiting, so no worker idles between chunks


class _DistanceWorker:
    def distances(self, packed: np.ndarray, max_nodes: int) -> np.ndarray:
        return distance(packed, max_nodes=max_nodes)


def distances_on_ray(
    states: Union[Iterable[StateLike], np.ndarray],
    *,
    address: str = "auto",
    chunk_size: int = 4096,
    max_nodes: int = DEFAULT_MAX_NODES,
    progress: Optional[Callable[[int], None]] = None,
) -> np.ndarray:
    """Optimal face-turn distances of ``states`` (Cubes, move strings or a packed (N, 40) array),
    computed on the Ray cluster at ``address``; ``progress(n)`` is told of every n states answered.
    Raises SearchLimitError as ``distance`` does."""
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
    packed, _ = as_states(states)
    ray = connect(address)
    result = np.empty(len(packed), dtype=np.int64)
    if len(packed) == 0:
        return result
    chunks = deque((start, packed[start : start + chunk_size]) for start in range(0, len(packed), chunk_size))
    workers = _one_worker_per_node(ray)
    in_flight: dict = {}  # object ref -> (worker, start, chunk)
    try:
        while chunks or in_flight:
            for worker in workers:
                while chunks and sum(w is worker for w, _, _ in in_flight.values()) < IN_FLIGHT_PER_WORKER:
                    start, chunk = chunks.popleft()
                    in_flight[worker.distances.remote(chunk, max_nodes)] = (worker, start, chunk)
            (ready,), _ = ray.wait(list(in_flight), num_returns=1)
            worker, start, chunk = in_flight.pop(ready)
            try:
                answered = ray.get(ready)
            except ray.exceptions.RayActorError:
                workers = [w for w in workers if w is not worker]
                if not workers:
                    raise RuntimeError("cube distances: every worker of the cluster was lost") from None
                chunks.appendleft((start, chunk))
                continue
            result[start : start + len(chunk)] = answered
            if progress:
                progress(len(chunk))
    finally:
        for worker in workers:
            ray.kill(worker)
    return result


def _one_worker_per_node(ray) -> list:
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    worker_class = ray.remote(max_restarts=0)(_DistanceWorker)
    nodes = [node["NodeID"] for node in ray.nodes() if node.get("Alive")]
    return [
        worker_class.options(num_cpus=1, scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False)).remote()
        for node in nodes
    ]
