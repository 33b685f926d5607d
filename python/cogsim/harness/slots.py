"""Planning a run: the episodes (slots) of a config, each with its task, seating and seed."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Optional

import cogsim
from cogsim.agents import is_scripted
from cogsim.agents.base import ScriptedAgent
from cogsim.harness.config import RunConfig

FINAL_STATUSES = ("done", "truncated", "error")
MAX_PLANNED_EPISODES = 10_000_000
Progress = Callable[[int, int, int], None]  # (episodes finished, turns, parse failures) since last call


def seated_agent(seats: tuple) -> str:
    """The agent name a seating is stored under: one agent's spec, or the seats' joined by " vs "."""
    return " vs ".join(seats) if len(seats) > 1 else seats[0]


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
        return seated_agent(self.seats)

    def key(self) -> tuple:
        return (self.task, self.agent, self.episode_index)


@dataclass(frozen=True)
class SeatGroup:
    """The episodes one seating of agents plays of one task: plan positions ``first`` onwards."""

    task: int
    env_id: str
    seats: tuple
    episodes: int
    first: int

    @property
    def agent(self) -> str:
        return seated_agent(self.seats)


class Plan:
    """Every episode of the run, in a fixed order, made one at a time when iterated (a run of any
    size is never held whole). Episode i of a task has seed ``config.seed + i`` for every agent, so
    agents meet the same episodes. Making a plan checks that each task's env is made with its options
    and that every scripted agent can play it."""

    def __init__(self, config: RunConfig):
        self.config = config
        self.groups: list[SeatGroup] = []
        planned = 0
        for task_index, task in enumerate(config.tasks):
            probe = cogsim.make(task.env_id, **task.options)
            for seats in seat_groups(task.agents or config.agents, probe.num_players, task.env_id):
                for spec in set(seats):
                    agent = ScriptedAgent(spec) if is_scripted(spec) else None
                    if agent is not None:
                        agent.check(probe)
                if planned + task.episodes > MAX_PLANNED_EPISODES:
                    raise ValueError(
                        f"the run plans more than {MAX_PLANNED_EPISODES:,} episodes; split it into smaller runs"
                    )
                self.groups.append(SeatGroup(task_index, task.env_id, seats, task.episodes, planned))
                planned += task.episodes
            probe.close()
        self.size = planned

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[Slot]:
        return self.slots()

    def slots(self, start: int = 0, step: int = 1) -> Iterator[Slot]:
        """The slots at plan positions start, start + step, ... in order."""
        seed = self.config.seed
        for group in self.groups:
            first = group.first + (start - group.first) % step  # the group's first position in the shard
            for index in range(first - group.first, group.episodes, step):
                yield Slot(group.task, group.env_id, group.seats, index, seed + index)


def plan(config: RunConfig) -> list[Slot]:
    """Every episode of the run as a list (``Plan`` makes them one at a time)."""
    return list(Plan(config))


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


STATES_PER_LOOKUP = 1024  # slots whose stored states are read in one query


def with_states(slots: Iterable[Slot], lookup) -> Iterator[tuple[Slot, Optional[tuple[int, str]]]]:
    """(slot, (episode id, status) or None if not stored) for each of ``slots`` not finished yet, in
    order; ``lookup(task, agent, start, stop)`` answers for a range of episode indices (as
    ``Store.episode_states_in``), asked once per group of at most ``STATES_PER_LOOKUP`` slots,
    when the first of them is needed: memory bounded by that, not by the number of slots."""
    slots = iter(slots)
    while True:
        chunk = list(itertools.islice(slots, STATES_PER_LOOKUP))
        if not chunk:
            return
        ranges: dict[tuple, list[int]] = {}
        for slot in chunk:
            low_high = ranges.setdefault((slot.task, slot.agent), [slot.episode_index, slot.episode_index])
            low_high[0], low_high[1] = min(low_high[0], slot.episode_index), max(low_high[1], slot.episode_index)
        states = {
            (task, agent, index): state
            for (task, agent), (low, high) in ranges.items()
            for index, state in lookup(task, agent, low, high + 1).items()
        }
        for slot in chunk:
            state = states.get(slot.key())
            if state is None or state[1] not in FINAL_STATUSES:
                yield slot, state


class PendingSlots:
    """The slots of a plan that a run directory's store has not finished, made when iterated: the
    stored states are read a chunk at a time (``with_states``), so a run or resume of any size holds
    no list of its episodes. ``len`` is the number pending when it was made. ``shard(i, n)`` (also
    ``pending[i::n]``) is the pending slots at plan positions i, i + n, ...: disjoint shards whose
    union is the whole, each iterable in another process that opens the run directory (an executor's
    workers); a shard does not change as other shards' episodes finish."""

    def __init__(self, run_dir, plan: Plan, count: Optional[int], agents: list, start: int = 0, step: int = 1):
        self.run_dir, self.plan, self.count, self.agents = run_dir, plan, count, agents
        self.start, self.step = start, step

    @classmethod
    def of(cls, plan: Plan, store) -> "PendingSlots":
        """The pending slots of ``plan`` in ``store`` (counted per seating of agents, in SQL)."""
        count, agents = 0, {}
        for group in plan.groups:
            left = group.episodes - store.finished_count(group.task, group.agent, group.episodes, FINAL_STATUSES)
            count += left
            if left:
                agents.update(dict.fromkeys(group.seats))
        return cls(store.run_dir, plan, count, list(agents))

    def __len__(self) -> int:
        if self.count is None:
            self.count = sum(1 for _ in self)
        return self.count

    def shard(self, index: int, shards: int) -> "PendingSlots":
        if self.step != 1 or not 0 <= index < shards:
            raise ValueError(f"shard {index} of {shards}: a shard is taken from the whole, 0 <= index < shards")
        return PendingSlots(self.run_dir, self.plan, None if shards > 1 else self.count, self.agents, index, shards)

    def __getitem__(self, key):
        if isinstance(key, slice) and key.stop is None and (key.step or 1) > (key.start or 0) >= 0:
            return self.shard(key.start or 0, key.step or 1)
        raise TypeError("pending slots are taken in shards: pending[i::n] with 0 <= i < n, or iterated")

    def __iter__(self) -> Iterator[Slot]:
        return (slot for slot, _state in self.with_states())

    def with_states(self) -> Iterator[tuple[Slot, Optional[tuple[int, str]]]]:
        """As ``with_states``, read from the run directory's store through a connection of its own."""
        from cogsim.store.sqlite import Store

        with Store(self.run_dir) as store:
            yield from with_states(self.plan.slots(self.start, self.step), store.episode_states_in)
