"""Duel tournaments on Matching Pairs: every pairing plays each board twice, seats swapped.

An agent is a scripted policy name of the env ("oracle", "random") or a callable taking the
observation dict and returning the response text. Episodes come back in the metrics' format, so
``cogsim.metrics.summarize("pairs", episodes)`` gives Win%, W/T/L and Elo tables.
"""

from __future__ import annotations

import itertools
from typing import Callable, Mapping, Sequence, Union

import numpy as np

Agent = Union[str, Callable[[dict], str]]


def _respond(agent: Agent, env, obs: dict, rng: np.random.Generator) -> str:
    return env.scripted_response(agent, rng) if isinstance(agent, str) else agent(obs)


def play_duel(env, seats: Sequence[tuple[str, Agent]], seed: int, rng_seed: int = 0) -> dict:
    """One duel on the board of ``seed``; seats[0] moves first. Returns the episode dict."""
    if len(seats) != 2:
        raise ValueError(f"a duel needs two seats, got {len(seats)}")
    names = [name for name, _ in seats]
    obs, _ = env.reset(seed=seed, options={"players": names})
    rng = np.random.default_rng(rng_seed)
    turns = 0
    while True:
        agent = seats[obs["player"]][1]
        obs, _, terminated, truncated, info = env.step(_respond(agent, env, obs, rng))
        turns += 1
        if terminated or truncated:
            episode = dict(info["episode"])
            episode.update(
                env_id=env.env_id, agent=" vs ".join(names), seed=seed, options=dict(env.options), turns=turns
            )
            return episode


def tournament(agents: Mapping[str, Agent], seeds: Sequence[int], env_id: str = "pairs/duel", **options) -> list[dict]:
    """Round robin: for every pair of agents and every board seed, two duels with the seats swapped."""
    from cogsim.envs import make

    if len(agents) < 2:
        raise ValueError(f"a tournament needs at least two agents, got {len(agents)}")
    env = make(env_id, **options)
    if env.num_players != 2:
        raise ValueError(f"{env_id} is not a two-player env")
    episodes = []
    for (name_a, agent_a), (name_b, agent_b) in itertools.combinations(agents.items(), 2):
        for seed in seeds:
            for seats in (((name_a, agent_a), (name_b, agent_b)), ((name_b, agent_b), (name_a, agent_a))):
                episodes.append(play_duel(env, seats, seed, rng_seed=seed))
    env.close()
    return episodes
