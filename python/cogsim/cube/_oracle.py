"""The process-wide optimal-distance oracle and the queries built on it."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterable, Sequence
from typing import Callable, Optional, Union

import numpy as np

from cogsim import _core
from cogsim._cache import cache_dir as _cache_dir
from cogsim.cube._cube import MOVES, StateLike, _seed, as_states

SearchLimitError = _core.SearchLimitError

DECREASE, NO_CHANGE, INCREASE = -1, 0, 1

# About half an hour of search on 2 cores: enough for random states with the sorted phase-1 table
# (1.6-2.1 billion nodes each, measured), which the other tables would need hours for.
DEFAULT_MAX_NODES = 20_000_000_000

_lock = threading.Lock()
_oracle: Optional[_core.CubeOracle] = None
_config: dict = {}


def _default_config() -> dict:
    return {
        "cache_dir": str(_cache_dir("cube")),
        "edge_size": int(os.environ.get("COGSIM_CUBE_EDGE_SIZE", "6")),
        "perimeter_depth": int(os.environ.get("COGSIM_CUBE_PERIMETER", "6")),
        "phase1": _phase1_from_env(os.environ.get("COGSIM_CUBE_PHASE1", "off")),
    }


PHASE1_TABLES = ("off", "plain", "sorted")


def _phase1_from_env(text: str) -> str:
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return "plain"
    if value in ("", "0", "false", "no"):
        return "off"
    if value in PHASE1_TABLES:
        return value
    raise ValueError(f"COGSIM_CUBE_PHASE1 must be one of off, plain, sorted (or 0/1), got {text!r}")


def _phase1_option(value: object) -> str:
    if isinstance(value, bool):
        return "plain" if value else "off"
    if isinstance(value, str) and value in PHASE1_TABLES:
        return value
    raise ValueError(f"phase1 must be one of 'off', 'plain', 'sorted' (or a bool), got {value!r}")


def _stderr_progress(message: str) -> None:
    print(f"[cogsim cube tables] {message}", file=sys.stderr, flush=True)


def configure(
    *,
    cache_dir: Optional[str] = None,
    edge_size: Optional[int] = None,
    perimeter_depth: Optional[int] = None,
    phase1: Union[bool, str, None] = None,
    threads: int = 0,
    progress: Optional[Callable[[str], None]] = _stderr_progress,
) -> _core.CubeOracle:
    """Loads (building if needed) the oracle's tables and makes it the process-wide oracle.

    edge_size: edges per edge pattern database (6: 2 x 21 MB, builds in seconds; 7: 2 x 255 MB,
    a few minutes, and deep queries several times faster). perimeter_depth: radius of the exact
    table around solved (6: 8.2 million states, about 130 MB in memory; 7: 109 million states,
    4 GB with its shell filter, a 4-minute build needing 16 GB: depth 7 becomes one lookup).

    phase1: also bound the search by a phase-1 distance seen along all three axes.
    ``"plain"`` (or True): Kociemba's phase 1 (twist x flip x UD-slice, symmetry-reduced,
    139 MB, built in 15-30 s): 15-20x fewer nodes from depth 11 on. ``"sorted"``: the coordinates
    of Kociemba's optimal solver (the UD-slice edges in order too; 3.3 GB, a one-off build of
    several minutes): the setting for deep states and random positions. ``"off"`` (or False), the
    default, keeps the tables small. The environment variable COGSIM_CUBE_PHASE1 (off, plain,
    sorted; 1 means plain) sets it for the default configuration.
    """
    global _oracle, _config
    config = _default_config()
    if cache_dir is not None:
        config["cache_dir"] = str(cache_dir)
    if edge_size is not None:
        config["edge_size"] = edge_size
    if perimeter_depth is not None:
        config["perimeter_depth"] = perimeter_depth
    if phase1 is not None:
        config["phase1"] = _phase1_option(phase1)
    with _lock:
        built = _core.CubeOracle(
            config["cache_dir"], config["edge_size"], config["perimeter_depth"], threads, progress,
            phase1=config["phase1"],
        )
        _oracle, _config = built, config
        return built


def oracle() -> _core.CubeOracle:
    """The process-wide oracle, loaded on first use with the default configuration."""
    if _oracle is None:
        return configure()
    return _oracle


def tables() -> dict:
    """Builds or verifies the cached tables and describes them (names, paths, sizes, build times)."""
    return oracle().info()


def distance(
    states: Union[StateLike, Iterable[StateLike], np.ndarray],
    *,
    max_nodes: int = DEFAULT_MAX_NODES,
    threads: int = 0,
) -> Union[int, np.ndarray]:
    """Optimal face-turn distance. A Cube or move string gives an int; a batch gives an array.

    Raises SearchLimitError when a state needs more than ``max_nodes`` search nodes.
    """
    packed, scalar = as_states(states)
    distances, _ = oracle().distances(packed, _positive(max_nodes, "max_nodes"), threads)
    return int(distances[0]) if scalar else distances.astype(np.int64)


def solve(cube: StateLike, *, max_nodes: int = DEFAULT_MAX_NODES) -> list[str]:
    """One optimal solution: the moves that take ``cube`` to solved."""
    packed, _ = as_states(cube)
    moves = oracle().solve(packed[0].tobytes(), _positive(max_nodes, "max_nodes"))
    return [MOVES[m] for m in moves]


def move_effects(cube: StateLike, *, max_nodes: int = DEFAULT_MAX_NODES) -> dict[str, int]:
    """For each of the 18 moves, how it changes the distance: -1 DECREASE, 0 NO_CHANGE, +1 INCREASE."""
    packed, _ = as_states(cube)
    around = np.concatenate([packed[:1], _core.cube_neighbours(packed[:1])])
    distances, _ = oracle().distances(around, _positive(max_nodes, "max_nodes"), 0)
    here = int(distances[0])
    return {move: int(np.sign(int(d) - here)) for move, d in zip(MOVES, distances[1:])}


def progress_moves(cube: StateLike, *, max_nodes: int = DEFAULT_MAX_NODES) -> list[str]:
    """The moves that bring ``cube`` one step closer to solved (empty when solved)."""
    return [m for m, effect in move_effects(cube, max_nodes=max_nodes).items() if effect == DECREASE]


def scramble(depth: int, seed: int, *, max_nodes: int = DEFAULT_MAX_NODES) -> list[str]:
    """A seeded move sequence of exactly ``depth`` moves whose optimal distance is ``depth``."""
    return scrambles([depth], [seed], max_nodes=max_nodes)[0]


def scrambles(
    depths: Sequence[int], seeds: Sequence[int], *, max_nodes: int = DEFAULT_MAX_NODES, threads: int = 0
) -> list[list[str]]:
    """Batch form of :func:`scramble`: one scramble per (depth, seed) pair."""
    depths = [_depth(d) for d in depths]
    seeds = [_seed(s) for s in seeds]
    result = oracle().scrambles(depths, seeds, _positive(max_nodes, "max_nodes"), threads)
    return [[MOVES[m] for m in seq] for seq in result]


def _positive(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def _depth(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value <= 20:
        raise ValueError(f"scramble depth must be an int in 0..20, got {value!r}")
    return int(value)
