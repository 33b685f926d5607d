"""Rubik's cube engine: states, the 18 face turns, and an exact optimal-distance oracle.

States are immutable :class:`Cube` values. The oracle (IDA* with pattern databases, see
``cpp/cube/oracle.hpp``) answers optimal face-turn-metric distances; its tables are built once,
cached under ``$COGSIM_CACHE/cube`` and memory-mapped afterwards. Deep queries (random states) go
to the coset search (``cpp/cube/coset_search.hpp``) once its table is built with
:func:`build_table` or ``cogsim cube tables build --size large``.
"""

from __future__ import annotations

from cogsim.cube._cluster import distances_on_ray
from cogsim.cube._cube import MOVES, Cube, as_states
from cogsim.cube._oracle import (
    AUTO_ESCALATE_NODES,
    COSET_ESCALATE_NODES,
    DECREASE,
    DEFAULT_MAX_NODES,
    INCREASE,
    NO_CHANGE,
    PHASE1_OPTIONS,
    PHASE1_TABLES,
    TABLE_OPTIONS,
    TABLE_SIZES,
    SearchLimitError,
    TableMemoryError,
    build_table,
    configure,
    coset_solver,
    deep_oracle,
    distance,
    move_effects,
    oracle,
    progress_moves,
    scramble,
    scrambles,
    solve,
    table_path,
    tables,
)

__all__ = [
    "MOVES",
    "Cube",
    "as_states",
    "AUTO_ESCALATE_NODES",
    "COSET_ESCALATE_NODES",
    "DEFAULT_MAX_NODES",
    "DECREASE",
    "NO_CHANGE",
    "INCREASE",
    "PHASE1_OPTIONS",
    "PHASE1_TABLES",
    "TABLE_OPTIONS",
    "TABLE_SIZES",
    "SearchLimitError",
    "TableMemoryError",
    "build_table",
    "configure",
    "coset_solver",
    "deep_oracle",
    "distance",
    "distances_on_ray",
    "move_effects",
    "oracle",
    "progress_moves",
    "scramble",
    "scrambles",
    "solve",
    "table_path",
    "tables",
]
