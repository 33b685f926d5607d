"""Executors: where the planned episodes run. An executor takes (run dir, config, pending slots,
progress callback) and plays every slot through ``run_slots``, which any process that can open
the run directory may call; a cluster executor can ship shards of slots to other machines that
share the directory. The pending slots (``slots.PendingSlots``) are made as they are iterated, so
an executor takes them one at a time or in shards (``slots.shard(i, n)``), never as a list.

``LocalExecutor(workers)``: in this process, or, for scripted agents, in ``workers`` fresh
(spawned) processes: episode-level parallelism, each worker writing its own transactions to the
WAL store, the parent reporting progress by reading it. Workers start clean rather than forked
because a parent may already hold GPU or EGL state (a renderer) that must not be shared; they
register extra envs by importing the run's ``imports``.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Optional, Protocol

from cogsim.harness.config import RunConfig
from cogsim.harness.lockstep import in_worker_process, run_slots
from cogsim.harness.slots import PendingSlots


class Executor(Protocol):
    def execute(self, out: Path, config: RunConfig, slots: PendingSlots, progress) -> None: ...


class LocalExecutor:
    def __init__(self, workers: int = 1):
        self.workers = workers if workers > 0 else (os.cpu_count() or 1)

    def execute(self, out: Path, config: RunConfig, slots: PendingSlots, progress=None) -> None:
        workers = min(self.workers, len(slots))
        if workers <= 1:
            run_slots(out, config, slots, 0, progress)
            return
        shards = [slots.shard(i, workers) for i in range(workers)]
        context = multiprocessing.get_context("spawn")
        setup = (os.getpid(), registering_modules(config), max(1, (os.cpu_count() or 1) // workers))
        with ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker, initargs=setup) as pool:
            futures = [pool.submit(run_slots, str(out), config, shard, index + 1) for index, shard in enumerate(shards)]
            watcher = _StoreWatcher(out) if progress else None
            pending = set(futures)
            while pending:
                _done, pending = wait(pending, timeout=0.5, return_when=FIRST_EXCEPTION)
                if watcher:
                    progress(*watcher.delta())
                for future in _done:
                    future.result()  # re-raise a worker's error here
            if watcher:
                progress(*watcher.delta())
                watcher.close()


def registering_modules(config: RunConfig) -> list[tuple[str, Optional[str]]]:
    """Modules outside cogsim that registered the run's envs (a test, a notebook's helper module):
    a fresh worker imports them to know the env ids. Spawned workers share the parent's sys.path."""
    from cogsim.envs import spec

    modules = {spec(task.env_id).entry_point.__module__ for task in config.tasks}
    return sorted(
        (name, getattr(sys.modules.get(name), "__file__", None))
        for name in modules
        if not name.startswith("cogsim.") and name != "__main__"
    )


def _start_worker(parent_pid: int, modules: list, cores: int) -> None:
    _die_with_parent(parent_pid)
    keep_freed_memory()
    in_worker_process(cores)
    import_registering_modules(modules)


def import_registering_modules(modules: list) -> None:
    """In a fresh worker process: import the modules that ``registering_modules`` named."""
    import importlib

    from cogsim.harness.config import import_plugins

    for name, path in modules:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError:  # loaded from a file (--import path.py): load it the same way
            if path:
                import_plugins([path])


def _die_with_parent(parent_pid: int) -> None:
    """A killed run must not leave workers writing on (a resume would race them): ask Linux to
    SIGKILL this worker when its parent dies."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent_pid:  # the parent died before the request took effect
        os._exit(1)


def keep_freed_memory() -> None:
    """glibc's malloc gives a freed block of a megabyte or so back to the kernel (it was mapped on its
    own, or it ends the heap), so the next one is mapped, faulted in and zeroed again page by page.
    An image env draws such a frame every turn, so a worker keeps what it frees for its next
    allocations (its peak memory is unchanged). Elsewhere (no glibc) nothing changes."""
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    m_trim_threshold, m_mmap_threshold = -1, -3
    mallopt(m_mmap_threshold, 32 << 20)  # blocks below 32 MB come from the heap
    mallopt(m_trim_threshold, 512 << 20)  # and its top is given back only past 512 MB free


class _StoreWatcher:
    """Counts what the workers committed since the last look."""

    def __init__(self, out: Path):
        from cogsim.store.sqlite import Store

        self.store = Store(out)
        self.mark = None
        self.last = self._counts()

    def _counts(self) -> tuple[int, int, int]:
        counts, self.mark = self.store.progress_since(self.mark)  # the store's tail only: a look costs no
        return counts  # more at a million episodes than at the first

    def delta(self) -> tuple[int, int, int]:
        now = self._counts()
        change = tuple(a - b for a, b in zip(now, self.last))
        self.last = now
        return change

    def close(self) -> None:
        self.store.close()
