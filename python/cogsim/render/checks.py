"""Checks of a scene's fields for a look (``GridScene.validate``...): each failure is a ValueError naming
the field and what is allowed."""

from cogsim.render._check import choice, colour, integer, number, text

__all__ = ["choice", "colour", "integer", "number", "text"]
