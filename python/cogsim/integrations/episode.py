"""One cogsim episode played turn by turn from outside cogsim's runner (an inspect solver, a
verifiers rollout), with the runner's rules: the same env options and seeds, the env's history
policy (or the run's ``history``), scripted agents drawing from the runner's random streams, the
runner's turn limit, and an outcome record in the form the metrics read (``Store.episodes``).
So a scripted agent gives, episode for episode, what ``cogsim run`` gives.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

import cogsim
from cogsim import metrics
from cogsim._untrusted import printable
from cogsim.agents.base import Message, ScriptedAgent, parse_agent_spec
from cogsim.agents.history import HistoryPolicy
from cogsim.envs import spec as env_spec
from cogsim.harness.config import RunConfig, Task
from cogsim.metrics import Estimate, Table

# What a task takes besides the env's own options (cogsim run's flags of the same names).
RUN_ARGS = ("episodes", "seed", "history", "max_images", "max_turns", "opponent", "seat")
DEFAULT_EPISODES = 10  # as cogsim run
DEFAULT_MAX_TURNS = 1000  # as cogsim run --max-turns
# A duel's scripted opponent by default: the first the env knows. The paper duels models with each
# other; forgetful (optimal play with a six-flip memory) is cogsim's reference between random and optimal.
DEFAULT_OPPONENTS = ("forgetful", "random")


@dataclass(frozen=True)
class EpisodeSpec:
    """Everything that decides an episode's course except the answers: env, options, history."""

    env_id: str
    options: dict = field(default_factory=dict)
    history: Optional[str] = None
    max_images: Optional[int] = None
    max_turns: int = DEFAULT_MAX_TURNS


def checked_env(env_id: str, episodes: int, seed: int, spec: EpisodeSpec, label: str):
    """The env made with the options, after the run's settings are checked as cogsim run checks
    them; ValueError naming what is wrong (an unknown option names the allowed ones) otherwise."""
    try:
        RunConfig(
            tasks=[Task(env_id, episodes, dict(spec.options))],
            agents=["oracle"],
            seed=seed,
            history=spec.history,
            max_images=spec.max_images,
            max_turns=spec.max_turns,
        )
        return cogsim.make(env_id, **spec.options)
    except ValueError as error:
        raise ValueError(f"{label}: {error} (the task's own arguments: {', '.join(RUN_ARGS)})") from None


_ENCODER: list = []


def frame_encoder():
    """The process's encoder of the frames episodes played from outside the runner show (made once)."""
    if not _ENCODER:
        from cogsim.render.frames import FrameEncoder  # the renderer's package only when frames are shown

        _ENCODER.append(FrameEncoder())
    return _ENCODER[0]


def reference_opponent(env) -> str:
    return next((p for p in DEFAULT_OPPONENTS if p in env.scripted_policies), "random")


def decoding_defaults(env) -> dict:
    """The env's decoding defaults (``env.metadata["cogsim.decoding"]``), greedy unless they say
    otherwise, as cogsim's own backends decode."""
    return {"temperature": 0.0, **dict((getattr(env, "metadata", None) or {}).get("cogsim.decoding") or {})}


def check_scripted(spec: str, env) -> str:
    """The scripted agent ``spec`` if the env knows it, else ValueError naming the known ones."""
    if parse_agent_spec(spec)[0] != "scripted":
        raise ValueError(f"{spec!r} is not a scripted agent; known: {', '.join(env.scripted_policies)}, noisy-oracle:P")
    ScriptedAgent(spec).check(env)
    return spec


class Episode:
    """An env reset with its seed, stepped with one answer text at a time."""

    def __init__(self, spec: EpisodeSpec, seed: int, seats: tuple[str, ...] = ()):
        self.spec = spec
        self.seed = int(seed)
        self.env = cogsim.make(spec.env_id, **spec.options)
        self.obs, _ = self.env.reset(seed=self.seed)
        self._sent: tuple[Any, tuple] = (None, ())  # (the observation, its frames as they are sent)
        self.policy = HistoryPolicy.parse(spec.history or self.env.default_history, spec.max_images)
        self.seats = tuple(seats)  # the agent spec of each seat, for the record and the random streams
        self.past: dict[int, list[tuple[Message, str]]] = {}
        self.rngs: dict[tuple[int, str], np.random.Generator] = {}
        self.turns = 0
        self.total_reward = 0.0
        self.status = "running"
        self.outcome: dict = {}
        self.last_info: dict = {}

    @property
    def player(self) -> int:
        return int(self.obs.get("player", 0))

    @property
    def finished(self) -> bool:
        return self.status != "running"

    @property
    def decoding(self) -> dict:
        return decoding_defaults(self.env)

    def user_message(self) -> Message:
        """This turn's message, its frames as ``cogsim run`` sends them (the env's ``frame_format()``)."""
        if self._sent[0] is not self.obs:
            images = self.obs.get("images", ())
            shown = frame_encoder().frames(images, self.env.frame_format(), after=self._sent[1]) if len(images) else ()
            self._sent = (self.obs, shown)
        return Message("user", self.obs["text"], self._sent[1])

    def prompt(self) -> list[Message]:
        """What the player to move sees: the system prompt, its history by the policy, this turn."""
        return self.policy.messages(self.env.system_prompt, self.past.get(self.player, []), self.user_message())

    def scripted_answer(self, agent: str) -> str:
        """The scripted agent's answer for the player to move, from the stream cogsim run gives that
        seat and agent (so the answers are the same episode for episode)."""
        key = (self.player, agent)
        if key not in self.rngs:
            self.rngs[key] = np.random.default_rng([self.seed, self.player, zlib.crc32(agent.encode())])
        return ScriptedAgent(agent).respond(self.env, self.rngs[key])

    def step(self, answer: str) -> float:
        """Give the player to move's answer to the env; returns the step's reward."""
        if self.finished:
            raise RuntimeError(f"{self.spec.env_id} seed {self.seed}: the episode has ended")
        player, user = self.player, self.user_message()
        self.obs, reward, terminated, truncated, info = self.env.step(answer)
        self.last_info = info
        self.past[player] = self.policy.retained(self.past.get(player, []) + [(user, answer)])
        self.turns += 1
        self.total_reward += float(reward)
        if terminated or truncated:
            self.status, self.outcome = "done", dict(info.get("episode") or {})
        elif self.turns >= self.spec.max_turns:
            self.status, self.outcome = "truncated", {"runner_truncated": True}
        return float(reward)

    def record(self, agent: Optional[str] = None) -> dict[str, Any]:
        """The episode as the metrics read it (the fields of ``Store.episodes`` and the env's outcome)."""
        entry = env_spec(self.spec.env_id)
        seats = list(self.seats) or [agent or "model"]
        return {
            "env_id": self.spec.env_id,
            "options": {**entry.defaults, **self.spec.options},
            "seed": self.seed,
            "agent": agent or " vs ".join(seats),
            "agents": seats,
            "turns": self.turns,
            "episode_index": 0,
            "task": 0,
            "suite": type(self.env).suite or self.spec.env_id.split("/")[0],
            "status": self.status,
            "total_reward": self.total_reward,
            "history": str(self.policy),
            **self.outcome,
        }

    def close(self) -> None:
        self.env.close()


def metric_values(episodes: list[dict], failed: Optional[dict[str, str]] = None) -> dict[str, float]:
    """The family metrics of finished episodes, as cogsim's metric code computes them (the tables
    of the run report), flattened to named numbers: ``"<table>: <column>"``, with the row's
    distinguishing labels in brackets where a table has several rows; an interval estimate adds
    ``... 95% low`` and ``... 95% high``. With ``failed``, a suite whose metric code fails on the
    records (stored ones may be anything) is left out and named there with the error, as the run
    report does; without it, the error propagates."""
    done = [e for e in episodes if e.get("status") == "done"]
    values: dict[str, float] = {}
    for suite in sorted({e["suite"] for e in done}):
        if suite not in metrics.suites():
            continue
        try:
            suite_values: dict[str, float] = {}
            for table in metrics.summarize(suite, [e for e in done if e["suite"] == suite]):
                suite_values.update(table_values(table))
            values.update(suite_values)
        except Exception as error:  # noqa: BLE001 - a suite's metric code on records from a store
            if failed is None:
                raise
            failed[suite] = printable(f"{type(error).__name__}: {error}", 300)
    return values


def table_values(table: Table) -> dict[str, float]:
    """A table's numbers: estimates and floats, and the numbers the tables hold as text ("62.3
    [50.1, 74.5]", "2.0"); the columns of text or integers that tell its rows apart label them."""
    labels = [
        i
        for i in range(len(table.columns))
        if all(_number(row[i]) is None and str(row[i]) not in _MISSING for row in table.rows)
        and len({str(row[i]) for row in table.rows}) > 1
    ]
    values: dict[str, float] = {}
    for row in table.rows:
        where = ", ".join(f"{table.columns[i]}={row[i]}" for i in labels)
        for column, cell in zip(table.columns, row):
            number = _number(cell)
            if number is None:
                continue
            name = f"{table.title}: {column}" + (f" [{where}]" if where else "")
            value, low, high = number
            values[name] = value
            if low is not None and high is not None:
                values[f"{name} 95% low"], values[f"{name} 95% high"] = low, high
    return values


_MISSING = ("", "-", "n/a")  # how the tables show a value they cannot give


def _number(cell: Any) -> Optional[tuple[float, Optional[float], Optional[float]]]:
    """(value, low, high) of a metric cell, or None for a label, a count or a missing value."""
    if isinstance(cell, Estimate):
        if not cell.n or np.isnan(cell.value):
            return None
        return float(cell.value), cell.low, cell.high
    if isinstance(cell, float):
        return None if np.isnan(cell) else (cell, None, None)
    if not isinstance(cell, str):
        return None
    head, bracket, interval = cell.partition(" [")
    value = _float(head)
    if value is None:
        return None
    if not bracket:
        return value, None, None
    low, _, high = interval.removesuffix("]").partition(", ")
    return value, _float(low), _float(high)


def _float(text: str) -> Optional[float]:
    try:
        value = float(text)
    except ValueError:
        return None
    return None if np.isnan(value) else value
