"""Planning a run: the episodes (slots) of a config, each with its task, seating and seed."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable

import cogsim
from cogsim.agents import is_scripted
from cogsim.agents.base import ScriptedAgent
from cogsim.harness.config import RunConfig

FINAL_STATUSES = ("done", "truncated", "error")
MAX_PLANNED_EPISODES = 10_000_000
Progress = Callable[[int, int, int], None]  # (episodes finished, turns, parse failures) since last call


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
            if len(slots) + task.episodes > MAX_PLANNED_EPISODES:
                raise ValueError(
                    f"the run plans more than {MAX_PLANNED_EPISODES:,} episodes; split it into smaller runs"
                )
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
