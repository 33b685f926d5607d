"""Playing whole episodes with the envs' own scripted policies (tests, benchmarks, baselines)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence, Union

import numpy as np

from cogsim.envs.base import TextEnv


@dataclass
class ScriptedEpisode:
    observations: list = field(default_factory=list)  # the reset observation, then one per step
    infos: list = field(default_factory=list)  # one per step
    rewards: list = field(default_factory=list)
    terminated: bool = False
    truncated: bool = False

    @property
    def turns(self) -> int:
        return len(self.infos)

    @property
    def episode(self) -> dict:
        """The env's per-episode outcomes (``info["episode"]`` of the last step)."""
        return self.infos[-1]["episode"]


def play_scripted(
    env: TextEnv,
    policies: Union[str, Sequence[str]],
    seed: int,
    rng_seed: Optional[int] = None,
    reset_options: Optional[dict] = None,
) -> ScriptedEpisode:
    """One episode answered by scripted policies: one name for every seat, or a name per player
    (indexed by ``obs["player"]``).
    The policies draw from one generator seeded with ``rng_seed`` (default: the episode seed)."""
    seats = [policies] * max(1, env.num_players) if isinstance(policies, str) else list(policies)
    obs, _ = env.reset(seed=seed, options=reset_options)
    rng = np.random.default_rng(seed if rng_seed is None else rng_seed)
    played = ScriptedEpisode(observations=[obs])
    while not (played.terminated or played.truncated):
        text = env.scripted_response(seats[obs["player"]], rng)
        obs, reward, played.terminated, played.truncated, info = env.step(text)
        played.observations.append(obs)
        played.infos.append(info)
        played.rewards.append(reward)
    return played
