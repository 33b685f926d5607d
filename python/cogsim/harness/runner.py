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
from cogsim._untrusted import shown
from cogsim.agents import is_scripted
from cogsim.harness import trust
from cogsim.harness.config import (
    RunConfig,
    all_agents,
    import_plugins,
    record_file_options,
    refuse_file_paths,
    require_plugins,
    resumable_changes,
)
from cogsim.harness.executor import LocalExecutor
from cogsim.harness.lockstep import RELEASE_FILES_FAULT
from cogsim.harness.slots import FINAL_STATUSES, PendingSlots, Plan, Progress
from cogsim.release_assets import ReleaseFilesError
from cogsim.store.sqlite import DB_NAME, Store, StoreError

# What stopped an episode, by fault kind, where it is not the backend (lockstep's module docstring)
_FAULT_WORDS = {RELEASE_FILES_FAULT: "damaged or missing release files"}


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
            f"{n} episode(s) stopped by {_FAULT_WORDS.get(kind, 'a backend fault')} [{kind}]: {message}"
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
    each change is recorded in the store.

    A given ``config`` comes from the caller, who is trusted: the files its env options name are read
    now and their content recorded, and the run is signed with the user's run key. A stored config
    is untrusted: it never opens a path, and unless this user's key signed it, its model endpoints
    must be named again (``changes``) before credentials go there (docs/security.md)."""
    out = Path(out)
    started = time.perf_counter()
    given = config is not None  # named by the caller (the command line), not read from the store
    if resume and config is None and not (out / DB_NAME).exists():
        raise ValueError(f"--resume: {out} holds no run to resume")
    if given:
        import_plugins(config.imports)
        config = record_file_options(config)
    with Store(out) as store, run_lock(out):
        stored = store.config()
        if stored is None and config is None:
            raise ValueError(f"--resume: {out} holds no run to resume")
        if stored is not None and not resume:
            raise ValueError(f"{out} already holds a run; continue it with --resume {out} or choose another --out")
        trusted = given or (stored is not None and trust.verify(stored, store.signature()))
        if stored is not None and config is None:
            config = _stored_config(stored, store, changes or {}, trusted)
        allowed = {}
        if stored is not None and config.to_dict() != stored:
            allowed, refused = resumable_changes(stored, config.to_dict())
            if refused:
                raise ValueError(
                    f"--resume: {out} holds a run with other settings ({', '.join(refused)} differ); a resume may "
                    "change only how the backend is reached (base_url, api_key, timeouts, retries, concurrency, "
                    "vLLM engine limits) and what a prompt may carry (--history, --max-images)"
                )
        require_plugins(config)
        slots = _plan(config, store, given)
        record = config.to_dict()
        if stored is None:
            store.init_run(record, trust.sign(record))
        elif allowed:
            store.record_config_change(record, allowed, trust.sign(record) if trusted else None)
        elif given and not trust.verify(stored, store.signature()):
            store.sign(trust.sign(record))  # the caller gave this very config: now it is theirs
        pending = PendingSlots.of(slots, store)
        turns_before = store.turn_count()
        executor = executor or LocalExecutor(config.workers if all(is_scripted(a) for a in all_agents(config)) else 1)
        executor.execute(out, config, pending, progress)
    return summarize_run(out, len(slots), time.perf_counter() - started, turns_before)


def _stored_config(stored: dict, store: Store, changes: dict, trusted: bool) -> RunConfig:
    """The run config a bare resume continues: the stored one (checked: it is untrusted) with this
    invocation's changes. A run not signed by this user may reach only endpoints named again now."""
    merged = {**stored, **{k: v for k, v in changes.items() if k != "agent_options"}}
    named_now = changes.get("agent_options", {})
    if changes:
        merged["agent_options"] = {**(stored.get("agent_options") or {}), **named_now}
    try:
        config = RunConfig.from_dict(merged)
        original = RunConfig.from_dict(stored)
    except ValueError as error:
        raise StoreError(f"{store.path}: the stored run config is not valid: {error}") from None
    require_plugins(config)
    refuse_file_paths(config, str(store.path))
    if not trusted:
        unconfirmed = trust.unconfirmed_endpoints(original, named_now)
        if unconfirmed:
            raise ValueError(_confirm_message(store.run_dir, unconfirmed))
    return config


def _confirm_message(out: Path, unconfirmed: list) -> str:
    listed = "; ".join(f"{what} at {shown(url) if url else 'a backend it names'}" for what, url, _ in unconfirmed)
    if all(renamable for _, _, renamable in unconfirmed):
        how = f"name the endpoint yourself: cogsim run --resume {out} --agent-option base_url=URL"
    else:
        how = f"give the run's whole command again (SUITE... and its options) with --resume {out}"
    return (
        f"{out} was not started by you on this machine (its config has no valid signature of your run key), so "
        f"cogsim sends none of your credentials where it says ({listed}); to resume it, {how}"
    )


def _plan(config: RunConfig, store: Store, given: bool) -> Plan:
    """The run's plan; for a stored config an env that refuses its options is the store's fault."""
    if given:
        return Plan(config)
    try:
        return Plan(config)
    except ReleaseFilesError:
        raise  # the machine's release files, not the store: one line naming `cogsim assets add`
    except (ValueError, TypeError) as error:
        raise StoreError(f"{store.path}: the stored run config does not make its envs: {error}") from None


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
