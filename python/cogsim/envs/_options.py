"""Validation of env options: a bad value raises ValueError naming the option and what is allowed."""

from __future__ import annotations

from typing import Optional

import numpy as np

from cogsim._untrusted import shown


def flag(options: dict, name: str, default: bool) -> bool:
    value = options.get(name, default)
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {shown(value)}")
    return bool(value)


def integer(options: dict, name: str, default, low: int, high: int) -> Optional[int]:
    """An integer in [low, high]; None passes through when it is also the default."""
    value = options.get(name, default)
    if value is None and default is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer in [{low}, {high}], got {shown(value)}")
    return int(value)


def choice(options: dict, name: str, default: str, allowed) -> str:
    value = options.get(name, default)
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(str, allowed))}, got {shown(value)}")
    return value


def known(options: dict, env_id: str, allowed) -> None:
    """ValueError naming any option the env does not take, and the ones it takes."""
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(
            f"unknown option(s) {', '.join(map(repr, unknown))} for {env_id}; allowed: {', '.join(allowed)}"
        )
