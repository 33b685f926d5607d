"""Runs and resumes: a run directory's config, its plan, the executor that plays the pending
episodes (cogsim.harness.lockstep in this process or in worker processes), and the summary."""

from __future__ import annotations

import fcntl
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from cogsim._files import open_no_follow
from cogsim.agents import is_scripted
from cogsim.harness.config import RunConfig, all_agents, import_plugins, require_plugins, resumable_changes
from cogsim.harness.executor import LocalExecutor
from cogsim.harness.slots import FINAL_STATUSES, Progress, plan
from cogsim.store.sqlite import DB_NAME, Store


@dataclass
class RunSummary:
    run_dir: Path
    episodes: int
    finished: int
    turns: int
    parse_failures: int
    backend_errors: int
    seconds: float
    new_turns: int = 0  # played by this call
    statuses: dict = field(default_factory=dict)
    faults: dict = field(default_factory=dict)  # fault kind -> (episodes stopped by it, first error)

    @property
    def ok(self) -> bool:
        """Every planned episode finished and none waits on a backend fault."""
        return not self.faults and self.finished == self.episodes

    def fault_lines(self) -> list[str]:
        return [
            f"{n} episode(s) stopped by a backend fault [{kind}]: {message}"
            for kind, (n, message) in sorted(self.faults.items())
        ]

    @property
    def turns_per_second(self) -> float:
        return self.new_turns / self.seconds if self.seconds > 0 else 0.0


def run(
    config: Optional[RunConfig],
    out: str | Path,
    resume: bool = False,
    executor=None,
    progress: Optional[Progress] = None,
    changes: Optional[dict] = None,
) -> RunSummary:
    """Run the episodes of ``config`` into the store at ``out``. With ``resume``, continue the run
    stored there (``config`` None: as stored; else it must equal the stored one up to settings that
    do not change results), or start it if there is none yet and ``config`` is given. ``changes``
    (with ``resume``): such settings to change, e.g. {"concurrency": 1, "agent_options": {"base_url": ...}};
    each change is recorded in the store."""
    out = Path(out)
    started = time.perf_counter()
    given = config is not None  # its --import modules were named by the caller, not read from the store
    if resume and config is None and not (out / DB_NAME).exists():
        raise ValueError(f"--resume: {out} holds no run to resume")
    with Store(out) as store, run_lock(out):
        stored = store.config()
        if stored is None and config is None:
            raise ValueError(f"--resume: {out} holds no run to resume")
        if stored is not None and not resume:
            raise ValueError(f"{out} already holds a run; continue it with --resume {out} or choose another --out")
        if stored is not None and config is None and changes:
            merged = {**stored, **{k: v for k, v in changes.items() if k != "agent_options"}}
            merged["agent_options"] = {**stored.get("agent_options", {}), **changes.get("agent_options", {})}
            config = RunConfig.from_dict(merged)
        allowed = {}
        if stored is not None and config is not None and config.to_dict() != stored:
            allowed, refused = resumable_changes(stored, config.to_dict())
            if refused:
                raise ValueError(
                    f"--resume: {out} holds a run with other settings ({', '.join(refused)} differ); a resume may "
                    "change only how the backend is reached (base_url, api_key, timeouts, retries, concurrency, "
                    "vLLM engine limits)"
                )
        if given:
            import_plugins(config.imports)
        config = config or RunConfig.from_dict(stored)
        require_plugins(config)
        slots = plan(config)
        if stored is None:
            store.init_run(config.to_dict())
        elif allowed:
            store.record_config_change(config.to_dict(), allowed)
        states = store.episode_states()
        pending = [s for s in slots if states.get(s.key(), (None, None))[1] not in FINAL_STATUSES]
        turns_before = store.turn_count()
        executor = executor or LocalExecutor(config.workers if all(is_scripted(a) for a in all_agents(config)) else 1)
        executor.execute(out, config, pending, progress)
    return summarize_run(out, len(slots), time.perf_counter() - started, turns_before)


@contextmanager
def run_lock(out: Path, wait_s: float = 10.0):
    """One process tree per run directory at a time (a resume must not race a run still going)."""
    handle = os.fdopen(open_no_follow(out / "run.lock"), "w")  # a link there is refused, never followed
    deadline = time.monotonic() + wait_s
    try:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise ValueError(f"{out} is being run by another process; wait for it or stop it first") from None
                time.sleep(0.05)
        yield
    finally:
        handle.close()


def summarize_run(out: Path, planned: int, seconds: float, turns_before: int = 0) -> RunSummary:
    with Store(out) as store:
        statuses = store.status_counts()
        turns, failures, errors = store.turn_totals()
        faults = {kind: (count, " ".join(first.split())) for kind, (count, first) in store.pending_faults().items()}
    finished = sum(statuses.get(s, 0) for s in FINAL_STATUSES)
    return RunSummary(out, planned, finished, turns, failures, errors, seconds, turns - turns_before, statuses, faults)


__all__ = ["RunSummary", "run", "run_lock", "summarize_run"]
