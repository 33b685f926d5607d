"""The lockstep episode runner.

Up to ``concurrency`` episodes are in flight. Each step gathers the active episodes, groups them
by the agent whose turn it is (``obs["player"]`` picks the seat in duels), makes ONE backend call
per agent for all of them (scripted agents answer from each env's hidden state), steps every env
with its answer, and commits the step's turns in one transaction. Finished episodes free their
env for the next pending one.

Resuming replays the stored turns of an unfinished episode into a fresh env with the same seed
(checking that the env shows the same prompts, and that a scripted agent gives the same answers,
which also restores its random stream), then continues live: the result is the same as an
uninterrupted run.

Backend faults. A turn whose model call failed (connection, timeout, HTTP error, context overflow,
unsupported input, malformed answer) is never given to the env: the episode stops where it is,
stays 'running' in the store with ``fault`` and ``error`` set, and nothing of it is scored. A fault
that says the server is unusable (connection, timeout, HTTP status, images to a text-only model)
also stops the run: no new episode starts, the active ones stay resumable. ``run --resume``
continues exactly these episodes: it replays their stored (real) turns into a fresh env with the
same seed and asks the model for the failed turn again. ``on_overflow="drop-oldest"`` instead
answers a context overflow by leaving out the oldest exchanges of the history, one more at a time,
and records how many per turn.
"""

from __future__ import annotations

import fcntl
import itertools
import os
import time
import traceback
import zlib
from collections import defaultdict, deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import numpy as np

import cogsim
from cogsim._files import open_no_follow
from cogsim.agents import is_scripted, make_agent
from cogsim.agents.base import RUN_STOPPING_FAULTS, Completion, Message, ScriptedAgent
from cogsim.envs import spec as env_spec
from cogsim.harness.config import RunConfig, Task, import_plugins, require_plugins, resumable_changes
from cogsim.agents.history import HistoryPolicy
from cogsim.store.sqlite import DB_NAME, EpisodeRow, Store, TurnRow

FINAL_STATUSES = ("done", "truncated", "error")
Progress = Callable[[int, int, int], None]  # (episodes finished, turns, parse failures) since last call


class ReplayMismatch(RuntimeError):
    """The env or a scripted agent did not reproduce a stored turn: it is not deterministic."""


@dataclass(frozen=True)
class Slot:
    """One planned episode: which task, which agents in which seats, which seed."""

    task: int
    env_id: str
    seats: tuple
    episode_index: int
    seed: int

    @property
    def agent(self) -> str:
        return " vs ".join(self.seats) if len(self.seats) > 1 else self.seats[0]

    def key(self) -> tuple:
        return (self.task, self.agent, self.episode_index)


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
        return [f"{n} episode(s) stopped by a backend fault [{kind}]: {message}" for kind, (n, message) in sorted(self.faults.items())]

    @property
    def turns_per_second(self) -> float:
        return self.new_turns / self.seconds if self.seconds > 0 else 0.0


def plan(config: RunConfig) -> list[Slot]:
    """Every episode of the run, in a fixed order. Episode i of a task has seed ``config.seed + i``
    for every agent, so agents meet the same episodes."""
    slots = []
    for task_index, task in enumerate(config.tasks):
        probe = cogsim.make(task.env_id, **task.options)
        for seats in seat_groups(task.agents or config.agents, probe.num_players, task.env_id):
            for spec in set(seats):
                agent = ScriptedAgent(spec) if is_scripted(spec) else None
                if agent is not None:
                    agent.check(probe)
            slots += [Slot(task_index, task.env_id, seats, i, config.seed + i) for i in range(task.episodes)]
        probe.close()
    return slots


def seat_groups(agents: list, num_players: int, env_id: str) -> list[tuple]:
    """Single-player envs: each agent plays its own episodes. Multi-player envs: exactly as many
    agents as seats take them in order; one agent takes them all (self-play); more agents play a
    tournament of every seating of distinct agents (both orders of each pair in a duel)."""
    agents = list(dict.fromkeys(agents))
    if num_players <= 1:
        return [(a,) for a in agents]
    if len(agents) == 1:
        return [tuple(agents) * num_players]
    if len(agents) == num_players:
        return [tuple(agents)]
    if len(agents) < num_players:
        raise ValueError(f"{env_id} seats {num_players} players: give 1 agent (self-play) or at least {num_players}")
    return list(itertools.permutations(agents, num_players))


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
    from cogsim.harness.executor import LocalExecutor

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
        executor = executor or LocalExecutor(config.workers if all(is_scripted(a) for a in _all_agents(config)) else 1)
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


def run_slots(out: str | Path, config: RunConfig, slots: list[Slot], worker: int = 0,
              progress: Optional[Progress] = None) -> None:
    """Play ``slots`` in this process, lockstep, committing every step to the store at ``out``.
    The modules that register the slots' env ids must be imported already (see require_plugins)."""
    require_plugins(config)
    with Store(out, worker=worker) as store:
        store.begin_session()
        _LockstepRunner(store, config, progress).run(slots)


class _Episode:
    """One episode in flight: its env, per-seat conversations and random streams, its stored row."""

    def __init__(self, slot: Slot, env, row: EpisodeRow):
        self.slot = slot
        self.env = env
        self.row = row
        self.turn = 0
        self.conversations = defaultdict(list)  # player -> [(user Message, answer text)]
        self.rngs = [np.random.default_rng([slot.seed, seat, zlib.crc32(a.encode())]) for seat, a in enumerate(slot.seats)]
        self.obs = None
        self.new = row.id is None
        self.finished = False
        self.dropped = defaultdict(int)  # player -> oldest exchanges left out of its prompts (on_overflow)

    @property
    def player(self) -> int:
        return self.obs.get("player", 0)

    def user_message(self) -> Message:
        return Message("user", self.obs["text"], tuple(self.obs.get("images", ())))

    def prompt(self, history: HistoryPolicy) -> list[Message]:
        return history.messages(
            self.env.system_prompt, self.conversations[self.player], self.user_message(), self.dropped[self.player]
        )

    def can_drop(self, history: HistoryPolicy) -> bool:
        return self.dropped[self.player] < history.kept(len(self.conversations[self.player]))


class _LockstepRunner:
    def __init__(self, store: Store, config: RunConfig, progress: Optional[Progress]):
        self.store = store
        self.config = config
        self.progress = progress or (lambda episodes, turns, failures: None)
        self.agents = {}
        self.free_envs = defaultdict(list)
        self.stopped: Optional[str] = None  # a run-stopping backend fault: no new episodes, no more steps

    def run(self, slots: list[Slot]) -> None:
        pending = deque(slots)
        active: list[_Episode] = []
        stored = self.store.episode_states()
        try:
            while (pending or active) and self.stopped is None:
                started, failed = [], []
                while pending and len(active) < self.config.concurrency:
                    episode = self._start(pending.popleft(), stored)
                    if episode.new:
                        started.append(episode.row)
                    (failed if episode.finished else active).append(episode)
                turns, finished = self._step(active)
                self.store.write_step(started, turns, [e.row for e in failed + finished])
                for episode in finished:
                    if episode.row.status not in ("error", "running"):  # an env that raised may be in any state
                        self.free_envs[episode.slot.task].append(episode.env)
                    elif episode.env is not None:
                        episode.env.close()
                active = [e for e in active if not e.finished]
                failures = sum(t.parse == "parse_failure" for t in turns)
                ended = sum(e.row.status != "running" for e in failed + finished)
                self.progress(ended, len(turns), failures)
        finally:
            for agent in self.agents.values():
                if hasattr(agent, "close"):
                    agent.close()
            for env in [e for pool in self.free_envs.values() for e in pool] + [e.env for e in active if e.env]:
                env.close()

    # -- starting and replaying ------------------------------------------------------------------------
    def _agent(self, spec: str):
        if spec not in self.agents:
            options = dict(self.config.agent_options)
            if is_scripted(spec):
                self.agents[spec] = make_agent(spec)
            else:
                self.agents[spec] = make_agent(spec, **options)
                self.store.record_backend(spec, self.agents[spec].describe())
        return self.agents[spec]

    def _env(self, slot: Slot):
        pool = self.free_envs[slot.task]
        if pool:
            return pool.pop()
        return cogsim.make(slot.env_id, **self.config.tasks[slot.task].options)

    def _history(self, env) -> HistoryPolicy:
        return HistoryPolicy.parse(self.config.history or env.default_history, self.config.max_images)

    def _start(self, slot: Slot, stored: dict) -> _Episode:
        episode_id, _status = stored.get(slot.key(), (None, None))
        entry = env_spec(slot.env_id)
        row = EpisodeRow(
            slot.task, slot.env_id, slot.env_id.split("/")[0], slot.agent,
            slot.seats, slot.episode_index, slot.seed, {**entry.defaults, **self.config.tasks[slot.task].options},
            None, self.config.history or "", id=episode_id,
        )
        row.loop = {"on_overflow": self.config.on_overflow}
        episode = _Episode(slot, None, row)
        try:
            episode.env = self._env(slot)
            episode.obs, _ = episode.env.reset(seed=slot.seed)
        except Exception:
            self._fail(episode, f"env reset failed:\n{traceback.format_exc(limit=4)}")
            return episode
        env = episode.env
        row.suite = type(env).suite or row.suite  # entry points may be factories: ask the env itself
        row.system_prompt, row.history = env.system_prompt, str(self._history(env))
        decoding = _env_decoding(env)
        if decoding:
            row.loop["decoding"] = decoding
        if episode_id is not None:
            self._replay(episode, self.store.turns(episode_id))
        return episode

    def _replay(self, episode: _Episode, turns) -> None:
        for stored in turns:
            if stored.prompt != episode.obs["text"]:
                raise ReplayMismatch(
                    f"{episode.slot.env_id} seed {episode.slot.seed} turn {stored.turn}: the env showed a different "
                    "prompt than the stored one; resume needs a deterministic env"
                )
            agent = self._agent(episode.slot.seats[episode.player])
            if isinstance(agent, ScriptedAgent):
                again = agent.respond(episode.env, episode.rngs[episode.player])
                if again != stored.response:
                    raise ReplayMismatch(
                        f"{episode.slot.env_id} seed {episode.slot.seed} turn {stored.turn}: scripted agent "
                        f"{agent.spec!r} answered differently on replay"
                    )
            episode.dropped[episode.player] = stored.history_dropped
            self._advance(episode, stored.response)
        if episode.finished:  # cannot happen with atomic steps; a stored final turn means a stored finish
            raise ReplayMismatch(f"episode {episode.row.id} ended during replay but is stored as running")

    # -- one lockstep step ------------------------------------------------------------------------------
    def _step(self, active: list[_Episode]) -> tuple[list[TurnRow], list[_Episode]]:
        by_agent = defaultdict(list)
        for episode in active:
            seat = episode.player
            if seat >= len(episode.slot.seats) or seat < 0:
                self._fail(episode, f"observation names player {seat}, but the episode has {len(episode.slot.seats)} seats")
                continue
            by_agent[episode.slot.seats[seat]].append(episode)
        turns = []
        for spec, episodes in by_agent.items():
            for episode, completion in zip(episodes, self._answers(spec, episodes)):
                turn = self._play(episode, spec, completion)
                if turn is not None:
                    turns.append(turn)
        return turns, [e for e in active if e.finished]

    def _answers(self, spec: str, episodes: list[_Episode]) -> list[Optional[Completion]]:
        agent = self._agent(spec)
        if not isinstance(agent, ScriptedAgent):
            completions = self._ask(agent, spec, episodes)
            if self.config.on_overflow == "drop-oldest":
                while True:  # answer overflows with one more old exchange left out, while any is left
                    retry = [
                        i for i, (e, c) in enumerate(zip(episodes, completions))
                        if c.fault == "context_overflow" and e.can_drop(self._history(e.env))
                    ]
                    if not retry:
                        break
                    for i in retry:
                        episodes[i].dropped[episodes[i].player] += 1
                    for i, completion in zip(retry, self._ask(agent, spec, [episodes[i] for i in retry])):
                        completions[i] = completion
            return completions
        answers = []
        for episode in episodes:
            began = time.perf_counter()
            try:
                text = agent.respond(episode.env, episode.rngs[episode.player])
            except Exception:
                self._fail(episode, f"scripted agent {spec!r} failed:\n{traceback.format_exc(limit=4)}")
                answers.append(None)
                continue
            answers.append(Completion(text, latency_s=time.perf_counter() - began))
        return answers

    def _ask(self, agent, spec: str, episodes: list[_Episode]) -> list[Completion]:
        prompts = [e.prompt(self._history(e.env)) for e in episodes]
        decoding = [_env_decoding(e.env) for e in episodes]
        completions = agent.complete(prompts, decoding) if any(decoding) else agent.complete(prompts)
        if len(completions) != len(prompts):
            raise RuntimeError(f"agent {spec!r} returned {len(completions)} answers for {len(prompts)} prompts")
        return completions

    def _fault(self, episode: _Episode, spec: str, completion: Completion) -> None:
        """The backend call of this turn failed: stop the episode unscored and resumable; stop the
        run when the fault says the server itself is unusable."""
        error = completion.error or "backend call failed"
        if completion.fault == "unsupported_input":
            suites = self._suites_with_images()
            error = (
                f"{spec} does not accept images ({error}); the run stopped. Suites of this run that send images: "
                f"{', '.join(suites) or '(none found)'}; run them with a vision model or in text modality."
            )
        episode.row.fault, episode.row.error = completion.fault, f"turn {episode.turn}: {error}"
        episode.finished = True
        if completion.fault in RUN_STOPPING_FAULTS and self.stopped is None:
            self.stopped = episode.row.error

    def _suites_with_images(self) -> list[str]:
        found = []
        for task in self.config.tasks:
            try:
                env = cogsim.make(task.env_id, **task.options)
                obs, _ = env.reset(seed=self.config.seed)
                if len(obs.get("images", ())):
                    found.append(task.env_id)
                env.close()
            except Exception:  # noqa: BLE001 - only a hint for the message
                continue
        return found

    def _play(self, episode: _Episode, spec: str, completion: Optional[Completion]) -> Optional[TurnRow]:
        if completion is None:
            return None
        if completion.text is None:
            self._fault(episode, spec, completion)
            return None
        response = completion.text
        dropped = episode.dropped[episode.player]
        obs, player, turn = episode.obs, episode.player, episode.turn
        try:
            reward, info, terminated, truncated = self._advance(episode, response)
        except Exception:
            self._fail(episode, f"env step failed:\n{traceback.format_exc(limit=4)}")
            return None
        return TurnRow(
            episode.row, turn, player, spec, obs["text"], [self.store.put_image(f) for f in obs.get("images", ())],
            list(obs.get("options", ())), response, info.get("parsed"), str(info.get("parse", "ok")), reward,
            terminated, truncated or episode.row.status == "truncated",
            completion.latency_s, completion.prompt_tokens, completion.completion_tokens, completion.error,
            completion.attempts, completion.finish_reason, dropped,
        )

    def _advance(self, episode: _Episode, response: str) -> tuple[float, dict, bool, bool]:
        """Step the env with an answer; bookkeeping shared by live play and replay."""
        user = episode.user_message()
        player = episode.player
        obs, reward, terminated, truncated, info = episode.env.step(response)
        reward = float(reward)
        past = episode.conversations[player]
        past.append((user, response))
        episode.conversations[player] = self._history(episode.env).retained(past)  # memory bounded by the policy
        episode.turn += 1
        episode.obs = obs
        row = episode.row
        row.num_turns = episode.turn
        row.total_reward += reward
        if terminated or truncated:
            row.status, row.outcome = "done", dict(info.get("episode") or {})
            episode.finished = True
        elif episode.turn >= self.config.max_turns:
            row.status, row.outcome = "truncated", {"runner_truncated": True}
            episode.finished = True
        return reward, info, bool(terminated), bool(truncated)

    def _fail(self, episode: _Episode, error: str) -> None:
        episode.row.status, episode.row.error = "error", error
        episode.finished = True


def _env_decoding(env) -> dict:
    """The env's decoding defaults (``env.metadata["cogsim.decoding"]``), e.g. {"max_tokens": 65536}."""
    decoding = (getattr(env, "metadata", None) or {}).get("cogsim.decoding")
    if decoding is None:
        return {}
    if not isinstance(decoding, dict):
        raise ValueError(f"{type(env).__name__}.metadata['cogsim.decoding'] must be a dict, got {type(decoding).__name__}")
    return dict(decoding)


def _all_agents(config: RunConfig) -> list:
    return list(config.agents) + [a for t in config.tasks for a in (t.agents or [])]


__all__ = ["RunConfig", "Task", "Slot", "RunSummary", "plan", "run", "run_slots", "seat_groups", "ReplayMismatch"]
