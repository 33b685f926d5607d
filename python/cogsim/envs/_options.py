"""The option checks' earlier, private name: they are ``cogsim.envs.options``."""

from cogsim.envs.options import choice, flag, integer, known

__all__ = ["choice", "flag", "integer", "known"]
