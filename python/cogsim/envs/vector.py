"""Batched envs: N independent episodes of one env id, stepped together (Gymnasium's VectorEnv API)."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Union

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from cogsim.envs.base import ResetNeeded, TextEnv, shared_frame_passes

AUTORESET_MODES = tuple(mode.value for mode in AutoresetMode)


class TextVectorEnv(gym.vector.VectorEnv):
    """N envs stepped in lockstep. Observations are a tuple of per-env dicts (text does not stack),
    so the spaces are ``Tuple`` spaces of the single env's; rewards and flags are arrays; ``info``
    holds ``per_env``, the list of the envs' info dicts.

    ``autoreset_mode`` is declared in ``metadata`` as Gymnasium expects:
    - "NextStep" (Gymnasium's default): the step after an episode ended resets that env, ignores its
      action and returns its first observation with reward 0;
    - "SameStep": an ended env is reset within the same step; its last observation and info are in
      ``info["final_obs"]`` and ``info["final_info"]`` (None for envs that did not end);
    - "Disabled": ended envs stay ended until ``reset``; stepping one raises ``ResetNeeded``.
    Autoresets continue each env's own random stream, so a run from one seed is reproducible.
    """

    def __init__(
        self,
        env_fns: Sequence[Callable[[], TextEnv]],
        autoreset_mode: Union[str, AutoresetMode] = AutoresetMode.NEXT_STEP,
    ):
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        self.envs = [fn() for fn in env_fns]
        if not self.envs:
            raise ValueError("num_envs must be at least 1")
        self.num_envs = len(self.envs)
        self.single_observation_space = self.envs[0].observation_space
        self.single_action_space = self.envs[0].action_space
        self.observation_space = spaces.Tuple([self.single_observation_space] * self.num_envs)
        self.action_space = spaces.Tuple([self.single_action_space] * self.num_envs)
        self.metadata = {**self.envs[0].metadata, "autoreset_mode": self.autoreset_mode}
        self._frames_shared = all(env.batches_frames for env in self.envs)
        self._ended = np.zeros(self.num_envs, dtype=bool)

    def reset(self, *, seed: Optional[int | Sequence[int]] = None, options: Optional[dict] = None):
        seeds = _seeds(seed, self.num_envs)
        with shared_frame_passes(self._frames_shared):
            results = [env.reset(seed=s, options=options) for env, s in zip(self.envs, seeds)]
        self._ended[:] = False
        return tuple(r[0] for r in results), {"per_env": [r[1] for r in results]}

    def step(self, actions: Sequence[str]):
        if isinstance(actions, str) or len(actions) != self.num_envs:
            raise ValueError(f"expected {self.num_envs} actions (one reply text per env), got {actions!r:.80}")
        with shared_frame_passes(self._frames_shared):
            results = [self._step_one(i, action) for i, action in enumerate(actions)]
        obs, rewards, terminated, truncated, infos, final_obs, final_info = (list(column) for column in zip(*results))
        info: dict[str, Any] = {"per_env": infos}
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            info["final_obs"], info["final_info"] = final_obs, final_info
        flags = (np.array(terminated, dtype=bool), np.array(truncated, dtype=bool))
        return tuple(obs), np.array(rewards, dtype=np.float64), *flags, info

    def _step_one(self, i: int, action: str) -> tuple:
        """Env i's (obs, reward, terminated, truncated, info, final obs, final info) for this step."""
        env = self.envs[i]
        if self._ended[i]:
            if self.autoreset_mode == AutoresetMode.DISABLED:
                raise ResetNeeded(f"env {i} of the vector env has ended (autoreset disabled): call reset() first")
            self._ended[i] = False
            obs, info = env.reset()
            return obs, 0.0, False, False, info, None, None
        obs, reward, terminated, truncated, info = env.step(action)
        final_obs = final_info = None
        if terminated or truncated:
            if self.autoreset_mode == AutoresetMode.SAME_STEP:
                final_obs, final_info = obs, info
                obs, info = env.reset()
            else:
                self._ended[i] = True
        return obs, reward, terminated, truncated, info, final_obs, final_info

    def close(self, **kwargs: Any) -> None:
        for env in getattr(self, "envs", ()):  # gymnasium's __del__ closes a vector env whose __init__ raised too
            env.close()


def _autoreset_mode(mode) -> AutoresetMode:
    try:
        return mode if isinstance(mode, AutoresetMode) else AutoresetMode(mode)
    except ValueError:
        raise ValueError(f"autoreset_mode must be one of {', '.join(AUTORESET_MODES)}, got {mode!r}") from None


def _seeds(seed, n: int) -> list[Optional[int]]:
    if seed is None:
        return [None] * n
    if isinstance(seed, (int, np.integer)):
        return [int(seed) + i for i in range(n)]
    seeds = list(seed)
    if len(seeds) != n:
        raise ValueError(f"expected {n} seeds, got {len(seeds)}")
    return seeds
