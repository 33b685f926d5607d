"""Env options, checked at ``cogsim.make``: what every env, built in or a plugin's, uses to read its
options. A bad value raises ValueError naming the option and what is allowed (``shown`` quotes the
value escaped and cut short, whatever it is).

- Checks: :func:`flag`, :func:`integer`, :func:`choice`, and :func:`known` for the option names an env
  takes.
- Options that name a file (an env's ``file_options``: ``{"prompt_file": "text"}``): a run records the
  file's content, never its path, and hands the env that record on resume; :func:`file_text` reads
  either (a path the user gave, or the recorded content), within a size limit. :class:`Template` and
  :func:`load_template` read a prompt template from such an option and check its placeholders.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from cogsim._template import Template, load_template
from cogsim._untrusted import content_text as file_text
from cogsim._untrusted import shown

__all__ = ["Template", "choice", "file_text", "flag", "integer", "known", "load_template", "shown"]


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
            f"unknown option(s) {', '.join(map(shown, unknown))} for {env_id}; allowed: {', '.join(allowed)}"
        )
