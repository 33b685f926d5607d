"""Registry of benchmark envs: ``cogsim.make``, ``cogsim.make_vec``, ``cogsim.list_envs``.

The families (``cogsim.families``) declare their env ids; a family's env module registers its env
classes here when it is imported, which happens the first time one of its ids is made. Plugins
imported with ``--import`` may also register ids directly.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from cogsim import families
from cogsim.envs.base import QuickReply, ResetNeeded, TextEnv, observation, option_replies
from cogsim.envs.scripted import ScriptedEpisode, play_scripted
from cogsim.envs.vector import TextVectorEnv
from cogsim.families import FamilyImportError

__all__ = [
    "FamilyImportError",
    "MAX_VEC_ENVS",
    "QuickReply",
    "ResetNeeded",
    "TextEnv",
    "TextVectorEnv",
    "ScriptedEpisode",
    "observation",
    "option_replies",
    "play_scripted",
    "register",
    "file_options",
    "make",
    "make_vec",
    "list_envs",
    "spec",
]


@dataclass(frozen=True)
class EnvSpec:
    env_id: str
    entry_point: Callable[..., TextEnv]
    defaults: dict = field(default_factory=dict)
    description: str = ""


_REGISTRY: dict[str, EnvSpec] = {}
_register_lock = threading.Lock()
MAX_VEC_ENVS = 4096


def register(env_id: str, entry_point: Callable[..., TextEnv], description: str = "", **defaults: Any) -> None:
    with _register_lock:
        if env_id in _REGISTRY and _REGISTRY[env_id].entry_point is not entry_point:
            raise ValueError(f"env id {env_id!r} is already registered")
        _REGISTRY[env_id] = EnvSpec(env_id, entry_point, dict(defaults), description)


def list_envs() -> list[str]:
    """Every env id: those the families declare (nothing is imported) and any registered directly."""
    return sorted(set(families.declared_env_ids()) | set(_REGISTRY))


def spec(env_id: str) -> EnvSpec:
    if env_id not in _REGISTRY:
        family = families.family_of(env_id)
        if family is not None:
            families.import_module(family, family.envs)
            if env_id not in _REGISTRY:
                raise FamilyImportError(
                    f"family {family.name!r} declares {env_id!r} but {family.envs} did not register it"
                )
    try:
        return _REGISTRY[env_id]
    except KeyError:
        raise ValueError(f"unknown env id {env_id!r}; known: {', '.join(list_envs())}") from None


def file_options(env_id: str) -> dict[str, str]:
    """The env's options whose value names a file (``TextEnv.file_options``): name -> "text" or "json"."""
    return dict(getattr(spec(env_id).entry_point, "file_options", {}))


def make(env_id: str, **options: Any) -> TextEnv:
    """A new env; every option but ``render_path`` (what draws its 2D frames: "auto", "gl" or
    "compositor", see ``cogsim.render.render_path``) goes to the env itself."""
    env_spec = spec(env_id)
    options = {**env_spec.defaults, **options}
    render_path = options.pop("render_path", None)
    env = env_spec.entry_point(env_id=env_id, **options)
    if render_path is not None:
        env.set_render_path(render_path)
    return env


def make_vec(env_id: str, num_envs: int, autoreset_mode: str = "NextStep", **options: Any) -> TextVectorEnv:
    """``num_envs`` copies of the env, stepped together; ``autoreset_mode`` is one of Gymnasium's
    ("NextStep", "SameStep", "Disabled"), see :class:`TextVectorEnv`."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or not 1 <= num_envs <= MAX_VEC_ENVS:
        raise ValueError(f"num_envs must be an integer from 1 to {MAX_VEC_ENVS}, got {num_envs!r}")
    spec(env_id)
    return TextVectorEnv([lambda: make(env_id, **options) for _ in range(num_envs)], autoreset_mode)
