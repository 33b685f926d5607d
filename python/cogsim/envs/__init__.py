"""Registry of benchmark envs: ``cogsim.make``, ``cogsim.make_vec``, ``cogsim.list_envs``.

Each family registers its env ids from a module in this package (``envs/wilt.py``,
``envs/cube.py``, ...), found by name, so adding a family never edits this file.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable

from cogsim.envs.base import TextEnv, observation
from cogsim.envs.scripted import ScriptedEpisode, play_scripted
from cogsim.envs.vector import TextVectorEnv

__all__ = ["TextEnv", "TextVectorEnv", "ScriptedEpisode", "observation", "play_scripted", "register", "make", "make_vec", "list_envs", "spec"]


@dataclass(frozen=True)
class EnvSpec:
    env_id: str
    entry_point: Callable[..., TextEnv]
    defaults: dict = field(default_factory=dict)
    description: str = ""


_REGISTRY: dict[str, EnvSpec] = {}
_NOT_FAMILY_MODULES = {"base", "vector", "scripted"}
_loaded = False


def register(env_id: str, entry_point: Callable[..., TextEnv], description: str = "", **defaults: Any) -> None:
    if env_id in _REGISTRY and _REGISTRY[env_id].entry_point is not entry_point:
        raise ValueError(f"env id {env_id!r} is already registered")
    _REGISTRY[env_id] = EnvSpec(env_id, entry_point, dict(defaults), description)


def _load_families() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for module in pkgutil.iter_modules(__path__):
        if module.name not in _NOT_FAMILY_MODULES and not module.name.startswith("_"):
            importlib.import_module(f"{__name__}.{module.name}")


def list_envs() -> list[str]:
    _load_families()
    return sorted(_REGISTRY)


def spec(env_id: str) -> EnvSpec:
    _load_families()
    try:
        return _REGISTRY[env_id]
    except KeyError:
        raise ValueError(f"unknown env id {env_id!r}; known: {', '.join(sorted(_REGISTRY))}") from None


def make(env_id: str, **options: Any) -> TextEnv:
    env_spec = spec(env_id)
    return env_spec.entry_point(env_id=env_id, **{**env_spec.defaults, **options})


def make_vec(env_id: str, num_envs: int, **options: Any) -> TextVectorEnv:
    if not isinstance(num_envs, int) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
    spec(env_id)
    return TextVectorEnv([lambda: make(env_id, **options) for _ in range(num_envs)])
