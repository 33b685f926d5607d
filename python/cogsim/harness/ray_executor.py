"""Runs on a Ray cluster (``cogsim run ... --ray ADDRESS``): the episodes play on the cluster's
workers, and this process, the driver, owns the run's one SQLite store.

The driver cuts the pending slots into chunks as it goes (the run's slots are never held whole) and
hands each to a worker (a Ray actor, which keeps its agents, so a ``vllm:`` worker loads its engine
once). A worker plays its chunk lockstep as a local run does (``lockstep.play_chunk``), from what
the store held of those episodes, and sends back every step; the driver writes them one transaction
per step (``lockstep.deliver_chunk``).

What survives what:
- A worker lost mid-chunk (its process or node died): nothing of that attempt was stored; the chunk
  goes to a new worker and is played from the start (up to ``max_attempts`` times).
- The driver killed: every step delivered so far is in the store; Ray ends the driver's workers
  with it. ``cogsim run --resume DIR --ray ADDRESS`` replays the open episodes and continues.
- A chunk delivered twice stores once: the store's writes are idempotent on (episode, turn).

Agents: scripted agents, and model agents either sharing one OpenAI-compatible endpoint (each worker
sends its own ``concurrency`` requests at a time) or holding one engine per worker (``vllm:`` asks
one GPU per worker). For deterministic agents the stored turns equal a local run's.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, deque
from pathlib import Path
from typing import Iterator, Optional

from cogsim._ray import connect
from cogsim.agents.base import parse_agent_spec
from cogsim.harness.config import RunConfig, all_agents
from cogsim.harness.executor import import_registering_modules, registering_modules
from cogsim.harness.lockstep import deliver_chunk, play_chunk
from cogsim.harness.slots import PendingSlots, Progress, Slot, with_states
from cogsim.store.sqlite import Store


class WorkerLost(RuntimeError):
    """A chunk lost its worker ``max_attempts`` times."""


class RayExecutor:
    def __init__(self, address: str, workers: int = 0, chunk_size: int = 0, max_attempts: int = 3):
        """``workers``: actors to start (0: one per CPU of the cluster, or per GPU for vLLM agents);
        ``chunk_size``: episodes per chunk (0: enough chunks to keep every worker busy, at most the
        run's concurrency each)."""
        if workers < 0 or chunk_size < 0 or max_attempts < 1:
            raise ValueError("RayExecutor: workers and chunk_size must be >= 0 (0: automatic), max_attempts >= 1")
        self.address, self.workers, self.chunk_size, self.max_attempts = address, workers, chunk_size, max_attempts

    def execute(self, out: Path, config: RunConfig, slots: PendingSlots, progress: Optional[Progress] = None) -> None:
        ray = connect(self.address)  # before anything else: no cluster, no work done
        if not len(slots):
            return
        with Store(out) as store:
            store.begin_session()
            _Dispatch(ray, self, store, config, slots, progress).run()

    def worker_count(self, ray, config: RunConfig) -> int:
        if self.workers:
            return self.workers
        resources = ray.cluster_resources()
        kind = "GPU" if _uses_vllm(config) else "CPU"
        return max(1, int(resources.get(kind, 1)))

    def actor_options(self, config: RunConfig) -> dict:
        return {"num_cpus": 1, "num_gpus": 1} if _uses_vllm(config) else {"num_cpus": 1}


class _Dispatch:
    """One execute(): chunks to idle workers, results into the store, lost workers replaced."""

    def __init__(self, ray, executor: RayExecutor, store: Store, config: RunConfig, slots, progress):
        self.ray, self.executor, self.store, self.config, self.progress = ray, executor, store, config, progress
        workers = min(executor.worker_count(ray, config), len(slots))
        size = executor.chunk_size or _automatic_chunk_size(len(slots), workers, config.concurrency)
        self.pending = _chunks(slots, size, store)
        self.chunks = enumerate(self.pending)  # (index, chunk slots, their stored states), made when handed out
        self.retries: deque = deque()  # chunks whose worker was lost, handed out first
        self.worker_class = ray.remote(max_restarts=0, max_task_retries=0)(_RunWorker)
        self.modules = registering_modules(config)
        self.idle = [self._new_worker() for _ in range(workers)]
        self.in_flight: dict = {}  # object ref -> (worker, chunk index, chunk)
        self.losses: Counter = Counter()
        self.stopped: Optional[str] = None

    def _new_worker(self):
        return self.worker_class.options(**self.executor.actor_options(self.config)).remote(self.modules)

    def run(self) -> None:
        try:
            while True:
                self._hand_out()
                if not self.in_flight:
                    break
                ready, _ = self.ray.wait(list(self.in_flight), num_returns=1)
                self._collect(ready[0])
        finally:
            self.pending.close()
            for worker in self.idle + [w for w, *_ in self.in_flight.values()]:
                self.ray.kill(worker)

    def _next_chunk(self) -> Optional[tuple]:
        if self.retries:
            return self.retries.popleft()
        index, (chunk, states) = next(self.chunks, (None, (None, None)))
        return None if chunk is None else (index, chunk, states)

    def _hand_out(self) -> None:
        while self.idle and self.stopped is None:
            taken = self._next_chunk()
            if taken is None:
                return
            index, chunk, states = taken
            worker = self.idle.pop()
            stored_turns = {episode_id: self.store.turns(episode_id) for episode_id, _status in states.values()}
            ref = worker.play.remote(self.config, chunk, states, stored_turns)
            self.in_flight[ref] = (worker, index, chunk, states)

    def _collect(self, ref) -> None:
        worker, index, chunk, states = self.in_flight.pop(ref)
        try:
            result = self.ray.get(ref)
        except self.ray.exceptions.RayActorError as error:  # the worker's process or node is gone
            self.losses[index] += 1
            if self.losses[index] >= self.executor.max_attempts:
                first = chunk[0]
                raise WorkerLost(
                    f"a chunk of {len(chunk)} episodes (from {first.env_id}, seed {first.seed}) lost its worker "
                    f"{self.losses[index]} times; the last: {error}. What was delivered is stored; "
                    "`cogsim run --resume` continues"
                ) from None
            self.ray.kill(worker)
            self.idle.append(self._new_worker())
            self.retries.append((index, chunk, states))
            return
        deliver_chunk(self.store, result, self.progress)
        self.stopped = self.stopped or result.stopped
        self.idle.append(worker)


class _RunWorker:
    """A Ray actor: plays chunks of a run; its agents (and a vLLM engine) live as long as it does."""

    def __init__(self, modules: list):
        import_registering_modules(modules)

    def play(self, config: RunConfig, slots: list[Slot], states: dict, stored_turns: dict):
        return play_chunk(config, slots, states, stored_turns)


def _chunks(slots: PendingSlots, size: int, store: Store) -> Iterator[tuple[list[Slot], dict]]:
    """The pending slots in chunks of ``size``, each with the stored states of its episodes
    ((task, agent, episode index) -> (episode id, status)), read as the chunks are made."""
    pending = slots.with_states() if isinstance(slots, PendingSlots) else with_states(slots, store.episode_states_in)
    try:
        while True:
            taken = list(itertools.islice(pending, size))
            if not taken:
                return
            yield [slot for slot, _ in taken], {slot.key(): state for slot, state in taken if state is not None}
    finally:
        pending.close()


def _automatic_chunk_size(slots: int, workers: int, concurrency: int) -> int:
    """About four chunks per worker (a lost worker costs little, a slow chunk is not the last),
    never more episodes than the run keeps in flight."""
    return max(1, min(concurrency, math.ceil(slots / (4 * workers))))


def _uses_vllm(config: RunConfig) -> bool:
    return any(parse_agent_spec(a)[0] == "vllm" for a in all_agents(config))
