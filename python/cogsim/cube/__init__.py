"""Rubik's cube engine: states, the 18 face turns, and an exact optimal-distance oracle.

States are immutable :class:`Cube` values. The oracle (IDA* with pattern databases, see
``cpp/cube/oracle.hpp``) answers optimal face-turn-metric distances; its tables are built once,
cached under ``$COGSIM_CACHE/cube`` and memory-mapped afterwards.
"""

from __future__ import annotations

from cogsim.cube._cluster import distances_on_ray
from cogsim.cube._cube import MOVES, Cube, as_states
from cogsim.cube._oracle import (
    AUTO_ESCALATE_NODES,
    DECREASE,
    DEFAULT_MAX_NODES,
    INCREASE,
    NO_CHANGE,
    PHASE1_OPTIONS,
    PHASE1_TABLES,
    SearchLimitError,
    configure,
    deep_oracle,
    distance,
    move_effects,
    oracle,
    progress_moves,
    scramble,
    scrambles,
    solve,
    tables,
)

__all__ = [
    "MOVES",
    "Cube",
    "as_states",
    "AUTO_ESCALATE_NODES",
    "DEFAULT_MAX_NODES",
    "DECREASE",
    "NO_CHANGE",
    "INCREASE",
    "PHASE1_OPTIONS",
    "PHASE1_TABLES",
    "SearchLimitError",
    "configure",
    "deep_oracle",
    "distance",
    "distances_on_ray",
    "move_effects",
    "oracle",
    "progress_moves",
    "scramble",
    "scrambles",
    "solve",
    "tables",
]
