"""Registry of benchmark envs: ``cogsim.make``, ``cogsim.make_vec``, ``cogsim.list_envs``.

Each family registers its env ids from a module in this package (``envs/wilt.py``,
``envs/cube.py``, ...), found by name, so adding a family never edits this file.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from cogsim.envs.base import TextEnv, observation
from cogsim.envs.scripted import ScriptedEpisode, play_scripted
from cogsim.envs.vector import TextVectorEnv

__all__ = ["FamilyImportError", "MAX_VEC_ENVS", "TextEnv", "TextVectorEnv", "ScriptedEpisode", "observation", "play_scripted", "register", "make", "make_vec", "list_envs", "spec"]


@dataclass(frozen=True)
class EnvSpec:
    env_id: str
    entry_point: Callable[..., TextEnv]
    defaults: dict = field(default_factory=dict)
    description: str = ""


_REGISTRY: dict[str, EnvSpec] = {}
_NOT_FAMILY_MODULES = {"base", "vector", "scripted"}
_loaded = False
_load_lock = threading.RLock()  # re-entrant: a family module registers while it is imported
MAX_VEC_ENVS = 4096


class FamilyImportError(ImportError):
    """An env family module failed to import, so the registry would be incomplete."""


def register(env_id: str, entry_point: Callable[..., TextEnv], description: str = "", **defaults: Any) -> None:
    if env_id in _REGISTRY and _REGISTRY[env_id].entry_point is not entry_point:
        raise ValueError(f"env id {env_id!r} is already registered")
    _REGISTRY[env_id] = EnvSpec(env_id, entry_point, dict(defaults), description)


def _load_families() -> None:
    """Import every family module once. Threads that arrive while another imports wait for it, and
    the registry counts as loaded only when every family imported: a failure names the family."""
    global _loaded
    if _loaded:
        return
    with _load_lock:
        if _loaded:
            return
        for module in pkgutil.iter_modules(__path__):
            if module.name not in _NOT_FAMILY_MODULES and not module.name.startswith("_"):
                _import_family(module.name)
        _loaded = True


def _import_family(name: str) -> None:
    try:
        importlib.import_module(f"{__name__}.{name}")
    except Exception as error:
        raise FamilyImportError(
            f"env family {name!r} (cogsim.envs.{name}) failed to import, so its env ids are missing: "
            f"{type(error).__name__}: {error}"
        ) from error


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
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or not 1 <= num_envs <= MAX_VEC_ENVS:
        raise ValueError(f"num_envs must be an integer from 1 to {MAX_VEC_ENVS}, got {num_envs!r}")
    spec(env_id)
    return TextVectorEnv([lambda: make(env_id, **options) for _ in range(num_envs)])
