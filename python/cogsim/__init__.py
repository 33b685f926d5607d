"""cogsim: fast simulators for reasoning benchmarks of (multimodal) language models."""

from __future__ import annotations

__version__ = "0.2.0"

from cogsim import cube  # noqa: E402
from cogsim import families as _families  # noqa: E402
from cogsim.envs import list_envs, make, make_vec  # noqa: E402

_families.register_with_gymnasium()  # gymnasium.make("cogsim/wilt-full"); imports no family

__all__ = ["__version__", "cube", "make", "make_vec", "list_envs"]
