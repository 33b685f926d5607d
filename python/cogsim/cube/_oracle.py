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

# In the default mode ("auto"), a query that takes more than this many nodes with the small
# tables (states of 14 moves and more) is answered again with the sorted phase-1 table, which is
# built on first need. Scrambles deeper than AUTO_SCRAMBLE_DEPTH go to it directly.
AUTO_ESCALATE_NODES = 5_000_000
AUTO_SCRAMBLE_DEPTH = 14
AUTO_DEEP_TABLE = "sorted"

_lock = threading.Lock()
_oracle: Optional[_core.CubeOracle] = None
_deep_oracle: Optional[_core.CubeOracle] = None
_config: dict = {}


def _default_config() -> dict:
    return {
        "cache_dir": str(_cache_dir("cube")),
        "edge_size": int(os.environ.get("COGSIM_CUBE_EDGE_SIZE", "6")),
        "perimeter_depth": int(os.environ.get("COGSIM_CUBE_PERIMETER", "6")),
        "phase1": _phase1_from_env(os.environ.get("COGSIM_CUBE_PHASE1", "auto")),
    }


PHASE1_TABLES = ("off", "plain", "sorted")
PHASE1_OPTIONS = ("auto",) + PHASE1_TABLES


def _phase1_from_env(text: str) -> str:
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return "plain"
    if value in ("0", "false", "no"):
        return "off"
    if value == "":
        return "auto"
    if value in PHASE1_OPTIONS:
        return value
    raise ValueError(f"COGSIM_CUBE_PHASE1 must be one of auto, off, plain, sorted (or 0/1), got {text!r}")


def _phase1_option(value: object) -> str:
    if isinstance(value, bool):
        return "plain" if value else "off"
    if isinstance(value, str) and value in PHASE1_OPTIONS:
        return value
    raise ValueError(f"phase1 must be one of 'auto', 'off', 'plain', 'sorted' (or a bool), got {value!r}")


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
    70 MB, built in seconds): 15-20x fewer nodes from depth 11 on. ``"sorted"``: the coordinates
    of Kociemba's optimal solver (the UD-slice edges in order too; 1.7 GB, a one-off build of
    a few minutes): the setting for deep states and random positions. ``"off"`` (or False) keeps
    to the small tables. ``"auto"``, the default, is "off" for every query that those answer
    within AUTO_ESCALATE_NODES nodes (all states of up to 13 moves) and hands the rest to an
    oracle with the sorted table, built or loaded the first time a query needs it. The
    environment variable COGSIM_CUBE_PHASE1 (auto, off, plain, sorted; 1 means plain) sets it for
    the default configuration.
    """
    global _oracle, _deep_oracle, _config
    config = _default_config()
    if cache_dir is not None:
        config["cache_dir"] = str(cache_dir)
    if edge_size is not None:
        config["edge_size"] = edge_size
    if perimeter_depth is not None:
        config["perimeter_depth"] = perimeter_depth
    if phase1 is not None:
        config["phase1"] = _phase1_option(phase1)
    config["threads"], config["progress"] = threads, progress
    with _lock:
        built = _build(config, "off" if config["phase1"] == "auto" else config["phase1"])
        _oracle, _deep_oracle, _config = built, None, config
        return built


def _build(config: dict, phase1: str) -> _core.CubeOracle:
    return _core.CubeOracle(
        config["cache_dir"],
        config["edge_size"],
        config["perimeter_depth"],
        config["threads"],
        config["progress"],
        phase1=phase1,
    )


def oracle() -> _core.CubeOracle:
    """The process-wide oracle, loaded on first use with the default configuration. In the
    "auto" mode this is the oracle of the small tables; deep queries go to :func:`deep_oracle`."""
    if _oracle is None:
        return configure()
    return _oracle


def deep_oracle() -> _core.CubeOracle:
    """The oracle for deep states: the process-wide one, or in the "auto" mode one with the sorted
    phase-1 table, built or loaded on first use (a one-off build of a few minutes, 1.7 GB)."""
    global _deep_oracle
    primary = oracle()
    if _config["phase1"] != "auto":
        return primary
    with _lock:
        if _deep_oracle is None:
            _deep_oracle = _build(_config, AUTO_DEEP_TABLE)
        return _deep_oracle


def _escalates(max_nodes: int) -> bool:
    oracle()
    return _config["phase1"] == "auto" and max_nodes > AUTO_ESCALATE_NODES


def _distances(packed: np.ndarray, max_nodes: int, threads: int) -> np.ndarray:
    if not _escalates(max_nodes):
        return oracle().distances(packed, max_nodes, threads)[0]
    distances, _ = oracle().distances(packed, AUTO_ESCALATE_NODES, threads, on_limit="mark")
    deep = np.flatnonzero(distances < 0)
    if deep.size:
        answers, _ = deep_oracle().distances(packed[deep], max_nodes, threads, on_limit="mark")
        distances[deep] = answers
        if (answers < 0).any():
            raise SearchLimitError(
                f"state {int(deep[np.argmax(answers < 0)])}: search exceeded max_nodes={max_nodes} "
                f"even with the {AUTO_DEEP_TABLE} phase-1 table; raise max_nodes"
            )
    return distances


def tables() -> dict:
    """Builds or verifies the cached tables and describes them (names, paths, sizes, build times).
    In the "auto" mode the sorted phase-1 table is listed once a deep query has loaded it."""
    info = oracle().info()
    info["phase1"] = _config["phase1"]
    if _deep_oracle is not None:
        info["tables"] += [t for t in _deep_oracle.info()["tables"] if "phase1" in t["name"]]
    return info


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
    distances = _distances(packed, _positive(max_nodes, "max_nodes"), threads)
    return int(distances[0]) if scalar else distances.astype(np.int64)


def solve(cube: StateLike, *, max_nodes: int = DEFAULT_MAX_NODES) -> list[str]:
    """One optimal solution: the moves that take ``cube`` to solved."""
    packed, _ = as_states(cube)
    state, max_nodes = packed[0].tobytes(), _positive(max_nodes, "max_nodes")
    if not _escalates(max_nodes):
        return [MOVES[m] for m in oracle().solve(state, max_nodes)]
    try:
        moves = oracle().solve(state, AUTO_ESCALATE_NODES)
    except SearchLimitError:
        moves = deep_oracle().solve(state, max_nodes)
    return [MOVES[m] for m in moves]


def move_effects(cube: StateLike, *, max_nodes: int = DEFAULT_MAX_NODES) -> dict[str, int]:
    """For each of the 18 moves, how it changes the distance: -1 DECREASE, 0 NO_CHANGE, +1 INCREASE."""
    packed, _ = as_states(cube)
    around = np.concatenate([packed[:1], _core.cube_neighbours(packed[:1])])
    distances = _distances(around, _positive(max_nodes, "max_nodes"), 0)
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
    max_nodes = _positive(max_nodes, "max_nodes")
    deep = _escalates(max_nodes) and max(depths, default=0) > AUTO_SCRAMBLE_DEPTH
    result = (deep_oracle() if deep else oracle()).scrambles(depths, seeds, max_nodes, threads)
    return [[MOVES[m] for m in seq] for seq in result]


def _positive(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def _depth(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value <= 20:
        raise ValueError(f"scramble depth must be an int in 0..20, got {value!r}")
    return int(value)
