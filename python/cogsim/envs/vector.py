"""Batched envs: N independent episodes of one env id, stepped together by the model loop."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import gymnasium as gym
import numpy as np
from gymnasium.vector.utils import batch_space

from cogsim.envs.base import TextEnv


class TextVectorEnv(gym.vector.VectorEnv):
    """N envs stepped in lockstep. Observations come back as a tuple of per-env dicts (text does not
    stack); rewards and flags as arrays. No autoreset: the runner decides when an episode starts."""

    def __init__(self, env_fns: Sequence[Callable[[], TextEnv]]):
        self.envs = [fn() for fn in env_fns]
        if not self.envs:
            raise ValueError("num_envs must be at least 1")
        self.num_envs = len(self.envs)
        self.single_observation_space = self.envs[0].observation_space
        self.single_action_space = self.envs[0].action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.metadata = dict(self.envs[0].metadata)

    def reset(self, *, seed: Optional[int | Sequence[int]] = None, options: Optional[dict] = None):
        seeds = _seeds(seed, self.num_envs)
        results = [env.reset(seed=s, options=options) for env, s in zip(self.envs, seeds)]
        return tuple(r[0] for r in results), {"per_env": [r[1] for r in results]}

    def step(self, actions: Sequence[str]):
        if len(actions) != self.num_envs:
            raise ValueError(f"expected {self.num_envs} actions, got {len(actions)}")
        results = [env.step(a) for env, a in zip(self.envs, actions)]
        obs = tuple(r[0] for r in results)
        rewards = np.array([r[1] for r in results], dtype=np.float64)
        terminated = np.array([r[2] for r in results], dtype=bool)
        truncated = np.array([r[3] for r in results], dtype=bool)
        return obs, rewards, terminated, truncated, {"per_env": [r[4] for r in results]}

    def close(self, **kwargs: Any) -> None:
        for env in self.envs:
            env.close()


def _seeds(seed, n: int) -> list[Optional[int]]:
    if seed is None:
        return [None] * n
    if isinstance(seed, (int, np.integer)):
        return [int(seed) + i for i in range(n)]
    seeds = list(seed)
    if len(seeds) != n:
        raise ValueError(f"expected {n} seeds, got {len(seeds)}")
    return seeds
