"""The process-wide optimal-distance oracle and the queries built on it."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Callable, Optional, Union

import numpy as np

from cogsim import _core
from cogsim._cache import cache_dir as _cache_dir
from cogsim.cube import _memory
from cogsim.cube._cube import MOVES, StateLike, _seed, as_states

SearchLimitError = _core.SearchLimitError
# A table does not fit the memory this process can have (a MemoryError): raised by the checks below
# before a coset table is built or mapped, and by the core when a mapping or a build is refused.
TableMemoryError = _core.TableMemoryError


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

# The coset tables (cpp/cube/coset_table.hpp), built once by `cogsim cube tables build --size ...`:
# "large" (7.3 GiB) is the one for random states; "medium" (1.3 GiB) is for machines with less
# memory; "small" (19 MiB) exists for tests. When one is built (large first), deep queries go to
# the coset search: the small tables answer first within COSET_ESCALATE_NODES nodes (states of up
# to about 12 moves, as fast as before), and the coset search answers the rest.
TABLE_SIZES = ("small", "medium", "large")
TABLE_OPTIONS = ("auto", "off") + TABLE_SIZES
AUTO_TABLE_SIZES = ("large", "medium")
COSET_ESCALATE_NODES = 200_000

_lock = threading.Lock()
_oracle: Optional[_core.CubeOracle] = None
_deep_oracle: Optional[_core.CubeOracle] = None
_coset: Optional[_core.CosetSolver] = None
_coset_loaded = False
_config: dict = {}


def _default_config() -> dict:
    return {
        "cache_dir": str(_cache_dir("cube")),
        "edge_size": int(os.environ.get("COGSIM_CUBE_EDGE_SIZE", "6")),
        "perimeter_depth": int(os.environ.get("COGSIM_CUBE_PERIMETER", "6")),
        "phase1": _phase1_from_env(os.environ.get("COGSIM_CUBE_PHASE1", "auto")),
        "table": _table_option(
            os.environ.get("COGSIM_CUBE_TABLE", "auto").strip().lower() or "auto", "COGSIM_CUBE_TABLE"
        ),
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


def _table_option(value: object, name: str = "table") -> str:
    if isinstance(value, str) and value in TABLE_OPTIONS:
        return value
    raise ValueError(f"{name} must be one of {', '.join(TABLE_OPTIONS)}, got {value!r}")


def _stderr_progress(message: str) -> None:
    print(f"[cogsim cube tables] {message}", file=sys.stderr, flush=True)


def configure(
    *,
    cache_dir: Optional[str] = None,
    edge_size: Optional[int] = None,
    perimeter_depth: Optional[int] = None,
    phase1: Union[bool, str, None] = None,
    table: Optional[str] = None,
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

    table: the coset table for deep queries (random states in seconds; see TABLE_SIZES).
    ``"auto"``, the default, uses the large table if it is built, else the medium one, else none;
    ``"off"`` never uses one; a size uses that table and fails if it is not built. The
    environment variable COGSIM_CUBE_TABLE sets it for the default configuration.
    """
    global _oracle, _deep_oracle, _coset, _coset_loaded, _config
    config = _default_config()
    if cache_dir is not None:
        config["cache_dir"] = str(cache_dir)
    if edge_size is not None:
        config["edge_size"] = edge_size
    if perimeter_depth is not None:
        config["perimeter_depth"] = perimeter_depth
    if phase1 is not None:
        config["phase1"] = _phase1_option(phase1)
    if table is not None:
        config["table"] = _table_option(table)
    config["threads"], config["progress"] = threads, progress
    with _lock:
        built = _build(config, "off" if config["phase1"] == "auto" else config["phase1"])
        _oracle, _deep_oracle, _coset, _coset_loaded, _config = built, None, None, False, config
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
            _require_phase1_memory(_config, AUTO_DEEP_TABLE)
            _deep_oracle = _build(_config, AUTO_DEEP_TABLE)
        return _deep_oracle


def _require_phase1_memory(config: dict, kind: str) -> None:
    """TableMemoryError, before anything is built or mapped, where the phase-1 table of ``kind``
    (1.7 GB sorted) does not fit the memory this process can have (built on first need, it would
    otherwise be killed midway where a cgroup caps memory)."""
    facts = _core.cube_phase1_table(kind)
    doing = "loading" if Path(config["cache_dir"], facts["file"]).exists() else "building"
    _check_memory(
        f"{doing} the {kind} phase-1 table for deep states",
        facts["bytes"],
        "or answer deep states with a coset table (`cogsim cube tables build --size medium`)",
    )


def _table_facts(size: str) -> dict:
    for info in _core.cube_coset_sizes():
        if info["size"] == size:
            return info
    raise ValueError(f"table size must be one of {', '.join(TABLE_SIZES)}, got {size!r}")


def table_path(size: str, cache_dir: Optional[str] = None) -> Path:
    """Where the coset table of ``size`` is (or will be) kept."""
    return Path(cache_dir if cache_dir is not None else _default_config()["cache_dir"], _table_facts(size)["file"])


# A build holds the table and, besides, its move maps and work lists.
_BUILD_MEMORY_MARGIN = 256 << 20


def _available_memory() -> tuple[Optional[int], str]:
    """What this process can still have and what sets it (``_memory.available``)."""
    return _memory.available()


def _require_memory(size: str, needed: int, doing: str) -> None:
    others = ", ".join(f"{t}: {_table_facts(t)['bytes'] / 2**30:.2f} GiB" for t in TABLE_SIZES if t != size)
    _check_memory(f"{doing} the {size} cube table", needed, f"or use a smaller table ({others})")


def _check_memory(doing: str, needed: int, otherwise: str) -> None:
    available, why = _available_memory()
    if available is not None and available < needed:
        raise TableMemoryError(
            f"{doing} needs {needed / 2**30:.1f} GiB of memory, and this process can have "
            f"{available / 2**30:.1f} GiB ({why}); free some memory, raise the limit {otherwise}"
        )


def coset_solver() -> Optional[_core.CosetSolver]:
    """The search over the configured coset table, mapped on first use; None when no table is
    configured or (in the "auto" mode) none is built. Raises TableMemoryError where this process
    can have too little memory for it, and ValueError for a damaged table file."""
    global _coset, _coset_loaded
    oracle()
    with _lock:
        if not _coset_loaded:
            _coset, _coset_loaded = _load_coset(_config), True
        return _coset


def _uses_coset() -> bool:
    """Whether deep queries go to a coset table, known without mapping it: the table is mapped
    (gigabytes of address space) only when a first query needs it."""
    oracle()
    return _coset is not None if _coset_loaded else _coset_table(_config) is not None


def _coset_table(config: dict) -> Optional[tuple[str, Path]]:
    """(size, path) of the coset table deep queries use: the configured size, or in the "auto"
    mode the first of AUTO_TABLE_SIZES that is there; None for none."""
    choice = config["table"]
    if choice == "off":
        return None
    for size in AUTO_TABLE_SIZES if choice == "auto" else (choice,):
        path = table_path(size, config["cache_dir"])
        if choice != "auto" or path.exists():
            return size, path
    return None


def _load_coset(config: dict) -> Optional[_core.CosetSolver]:
    found = _coset_table(config)
    if found is None:
        return None
    size, path = found
    if not path.exists():
        raise ValueError(f"the {size} cube table is not built; build it with `cogsim cube tables build --size {size}`")
    _require_memory(size, _table_facts(size)["bytes"], "loading")
    try:
        return _core.CosetSolver(size, str(path))
    except ValueError as error:
        raise ValueError(f"{error}; rebuild it with `cogsim cube tables build --size {size}`") from None


def build_table(
    size: str = "large",
    *,
    threads: int = 0,
    progress: Optional[Callable[[int, int, str], None]] = None,
) -> dict:
    """Builds the coset table of ``size`` into the cache (a one-off step: the large table takes
    7.3 GiB of memory and tens of minutes on 2 cores), resuming from the checkpoint a killed build
    left. ``progress(done, total, stage)`` hears of the work. Returns the table's description."""
    global _coset_loaded
    path = table_path(size, _config["cache_dir"] if _config else None)
    if not path.exists():
        _require_memory(size, _table_facts(size)["bytes"] + _BUILD_MEMORY_MARGIN, "building")
    outcome = _core.cube_coset_build(size, str(path), threads, progress)
    with _lock:
        _coset_loaded = False  # the next query maps the new table
    return _core.CosetSolver(size, str(path)).info() | outcome


def _escalates(max_nodes: int) -> bool:
    oracle()
    return _config["phase1"] == "auto" and max_nodes > AUTO_ESCALATE_NODES


def _distances(packed: np.ndarray, max_nodes: int, threads: int) -> np.ndarray:
    if _uses_coset() and max_nodes > COSET_ESCALATE_NODES:
        distances, _ = oracle().distances(packed, COSET_ESCALATE_NODES, threads, on_limit="mark")
        deep = np.flatnonzero(distances < 0)
        if deep.size:
            answers, _ = _required_coset_solver().distances(packed[deep], max_nodes, threads, on_limit="mark")
            distances[deep] = answers
            _raise_if_unanswered(deep, answers, max_nodes, "the coset table")
        return distances
    if not _escalates(max_nodes):
        return oracle().distances(packed, max_nodes, threads)[0]
    distances, _ = oracle().distances(packed, AUTO_ESCALATE_NODES, threads, on_limit="mark")
    deep = np.flatnonzero(distances < 0)
    if deep.size:
        answers, _ = deep_oracle().distances(packed[deep], max_nodes, threads, on_limit="mark")
        distances[deep] = answers
        _raise_if_unanswered(deep, answers, max_nodes, f"the {AUTO_DEEP_TABLE} phase-1 table")
    return distances


def _required_coset_solver() -> _core.CosetSolver:
    solver = coset_solver()
    if solver is None:  # the table went away since _uses_coset saw it
        raise ValueError("the cube's coset table is gone from the cache; build it with `cogsim cube tables build`")
    return solver


def _raise_if_unanswered(indices: np.ndarray, answers: np.ndarray, max_nodes: int, what: str) -> None:
    if (answers < 0).any():
        raise SearchLimitError(
            f"state {int(indices[np.argmax(answers < 0)])}: search exceeded max_nodes={max_nodes} "
            f"even with {what}; raise max_nodes"
        )


def tables() -> dict:
    """Builds or verifies the cached tables and describes them (names, paths, sizes, build times).
    In the "auto" mode the sorted phase-1 table is listed once a deep query has loaded it."""
    info = oracle().info()
    info["phase1"] = _config["phase1"]
    if _deep_oracle is not None:
        info["tables"] += [t for t in _deep_oracle.info()["tables"] if "phase1" in t["name"]]
    info["table"] = _config["table"]
    solver = coset_solver()
    info["coset_table"] = solver.info() if solver is not None else None
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


def solve(
    states: Union[StateLike, Iterable[StateLike], np.ndarray],
    *,
    max_nodes: int = DEFAULT_MAX_NODES,
    threads: int = 0,
) -> Union[list[str], list[list[str]]]:
    """One optimal solution: the moves that take the state to solved. A Cube or move string gives
    one list of moves; a batch gives one list per state."""
    packed, scalar = as_states(states)
    solutions = _solutions(packed, _positive(max_nodes, "max_nodes"), threads)
    named = [[MOVES[m] for m in moves] for moves in solutions]
    return named[0] if scalar else named


def _solutions(packed: np.ndarray, max_nodes: int, threads: int) -> list[list[int]]:
    uses_coset = _uses_coset()
    first = min(max_nodes, COSET_ESCALATE_NODES) if uses_coset else max_nodes
    if not uses_coset and _escalates(max_nodes):
        first = AUTO_ESCALATE_NODES
    found = oracle().solutions(packed, first, threads, on_limit="mark") if len(packed) else []
    deep = [i for i, moves in enumerate(found) if moves is None]
    if deep and first == max_nodes:
        raise SearchLimitError(f"state {deep[0]}: search exceeded max_nodes={max_nodes}; raise max_nodes")
    if deep:
        if uses_coset:
            answers, _ = _required_coset_solver().solutions(packed[deep], max_nodes, threads, on_limit="mark")
            what = "the coset table"
        else:
            answers = deep_oracle().solutions(packed[deep], max_nodes, threads, on_limit="mark")
            what = f"the {AUTO_DEEP_TABLE} phase-1 table"
        missing = [i for i, moves in zip(deep, answers) if moves is None]
        if missing:
            raise SearchLimitError(
                f"state {missing[0]}: search exceeded max_nodes={max_nodes} even with {what}; raise max_nodes"
            )
        for i, moves in zip(deep, answers):
            found[i] = moves
    return found


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
