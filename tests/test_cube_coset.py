"""The coset table and its search (cpp/cube/coset_table.hpp, coset_search.hpp), on the small table:
the same build, lookup and search code as the large one, with a coordinate small enough for tests.
References: the pattern-database oracle (an independent search over independent tables), the
local structure of a coset distance function, and the moves of each returned solution."""

import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from cogsim import _core, cube
from cogsim.cli import main
from cogsim.cube import Cube
from cogsim.cube import _oracle as oracle_module

SMALL_BASE = 7  # the small table's base depth: entries are exact from base + 1 to base + 2


@pytest.fixture(scope="session")
def small_path(cube_oracle) -> Path:
    """The small coset table in the test cache, built there on first use (seconds)."""
    path = cube.table_path("small")
    _core.cube_coset_build("small", str(path))
    return path


@pytest.fixture(scope="session")
def small(small_path) -> _core.CosetSolver:
    return _core.CosetSolver("small", str(small_path))


@pytest.fixture
def small_configured(small_path):
    """The process-wide oracle with the small coset table for deep queries; restored afterwards."""
    cube.configure(table="small", progress=None)
    yield
    cube.configure(progress=None)


def _walks(depth: int, count: int, seed: int) -> list[str]:
    """Random move sequences (repeated and cancelling faces allowed), so distances vary below depth."""
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(cube.MOVES, size=depth)) for _ in range(count)]


def _solves(state: str, moves: list, length: int) -> bool:
    names = [cube.MOVES[m] if isinstance(m, (int, np.integer)) else m for m in moves]
    return len(names) == length and Cube.from_moves(state).apply(" ".join(names)).is_solved()


def _agree_with_the_oracle(small, depths, per_depth):
    for depth in depths:
        walks = _walks(depth, per_depth, seed=depth)
        packed, _ = cube.as_states(walks)
        expected, _ = cube.oracle().distances(packed, 10**10, 0)
        distances, _ = small.distances(packed, 10**10)
        solutions, _ = small.solutions(packed, 10**10)
        assert distances.tolist() == expected.tolist(), f"depth {depth}"
        for walk, solution, d in zip(walks, solutions, distances):
            assert _solves(walk, solution, d), f"{walk}: {solution}"


def test_search_agrees_with_the_pattern_database_oracle_up_to_depth_12(small):
    _agree_with_the_oracle(small, range(0, 13), 12)


def test_search_agrees_with_the_pattern_database_oracle_at_depths_13_and_14(small):
    _agree_with_the_oracle(small, (13, 14), 5)


def test_exact_depth_scrambles_and_their_inverses(small):
    scrambles = [" ".join(s) for s in cube.scrambles([10, 11, 12] * 3, list(range(9)))]
    packed, _ = cube.as_states(scrambles)
    inverses, _ = cube.as_states([Cube.from_moves(s).inverse() for s in scrambles])
    assert small.distances(packed, 10**9)[0].tolist() == [10, 11, 12] * 3
    assert small.distances(inverses, 10**9)[0].tolist() == [10, 11, 12] * 3


def test_bound_and_entries_never_exceed_the_distance(small):
    walks = [w for depth in range(1, 11) for w in _walks(depth, 30, seed=100 + depth)]
    packed, _ = cube.as_states(walks)
    distances, _ = cube.oracle().distances(packed, 10**10, 0)
    assert np.all(small.bounds(packed) <= distances)
    assert np.all(small.entries(packed).max(axis=1) <= distances)
    assert small.entries(cube.as_states(Cube.solved())[0]).tolist() == [[0] * 6]


def _check_neighbour(here: int, there: int) -> bool:
    """Whether two stored entries of neighbouring cosets fit distances that differ by at most one.
    Entries from base + 1 to base + 2 are exact, base + 3 means at least that, and an entry of at
    most base is the least distance of its stripe (so at most the coset's own distance)."""
    top = SMALL_BASE + 3
    if here <= SMALL_BASE:  # distance at most base: a neighbour is at most base + 1
        return there <= SMALL_BASE + 1
    if here == top:  # distance base + 3 or more: a neighbour is at least base + 2
        return there >= SMALL_BASE + 2
    if there <= SMALL_BASE:
        return here == SMALL_BASE + 1
    if there == top:
        return here == SMALL_BASE + 2
    return abs(here - there) <= 1


def test_entries_are_consistent_with_their_one_move_neighbours(small):
    """A state's view k and its neighbour's view k are neighbouring cosets (the move acts on the
    right); each exact entry also has a neighbour one closer to the goal."""
    rng = np.random.default_rng(7)
    random_states = [Cube.random_state(int(s)) for s in rng.integers(0, 2**31, 300)]
    middling = [Cube.from_moves(w) for depth in (7, 8, 9) for w in _walks(depth, 100, seed=200 + depth)]
    packed, _ = cube.as_states(random_states + middling)
    here = small.entries(packed)[:, :3]
    there = small.entries(_core.cube_neighbours(packed)).reshape(len(packed), 18, 6)[:, :, :3]
    seen = set()
    for i in range(len(packed)):
        for k in range(3):
            h = int(here[i, k])
            neighbours = there[i, :, k].tolist()
            assert all(_check_neighbour(h, t) for t in neighbours), (i, k, h, neighbours)
            if SMALL_BASE + 1 <= h <= SMALL_BASE + 2:
                closer = [t for t in neighbours if (t == h - 1 if h - 1 > SMALL_BASE else t <= SMALL_BASE)]
                assert closer, (i, k, h, neighbours)
            seen.add(h)
    assert {SMALL_BASE + 1, SMALL_BASE + 2, SMALL_BASE + 3} <= seen  # the sample reached every exact code


def test_the_code_counts_are_those_of_the_breadth_first_build(small):
    # Entries at most base 7, exactly 8 and 9, and 10 or more (with the 9,930 x 16 unused slots).
    assert small.code_counts() == [2125088, 15616401, 47497500, 13565491]
    assert sum(small.code_counts()) == 9930 * 16 * 8 * 62


def test_parallel_search_returns_the_serial_solution(small):
    """Depth-14 states take over 200,000 nodes, so their last iterations run as tasks on two
    threads; the solution kept is the one of the first task in order, as the serial search finds."""
    packed, _ = cube.as_states([" ".join(s) for s in cube.scrambles([14, 14], [0, 1])])
    serial, _ = small.solutions(packed, 10**10, 1)  # one thread: each state searched serially
    for i in range(len(packed)):
        parallel, nodes = small.solutions(packed[i : i + 1], 10**10, 2)  # one state, two threads
        assert parallel[0] == serial[i] and len(serial[i]) == 14
        assert nodes[0] > 200_000


def test_node_limit_raises_or_marks(small):
    packed, _ = cube.as_states(["R", " ".join(cube.scramble(12, 3))])
    with pytest.raises(cube.SearchLimitError, match="state 1: search exceeded max_nodes=50"):
        small.distances(packed, 50, 1)
    distances, nodes = small.distances(packed, 50, 1, on_limit="mark")
    assert distances.tolist() == [1, -1] and nodes[1] == 50
    assert small.solutions(packed, 50, 1, on_limit="mark")[0][1] is None
    with pytest.raises(ValueError, match="on_limit"):
        small.distances(packed, 50, 1, on_limit="ignore")


def test_in_memory_build_equals_the_file(small):
    memory = _core.CosetSolver.in_memory("small")
    assert memory.code_counts() == small.code_counts()
    packed, _ = cube.as_states([Cube.random_state(s) for s in range(200)])
    assert np.array_equal(memory.entries(packed), small.entries(packed))


def test_a_stopped_build_resumes_from_its_checkpoint(small_path, tmp_path):
    path = tmp_path / small_path.name
    stages = []

    def stop_after_depth_8(done, total, stage):
        stages.append(stage)
        if stage.startswith("depth 8:"):
            raise KeyboardInterrupt  # as a user's Ctrl-C would, between two levels

    with pytest.raises(KeyboardInterrupt):
        _core.cube_coset_build("small", str(path), 0, stop_after_depth_8, checkpoint_seconds=0)
    assert not path.exists() and (tmp_path / (path.name + ".partial")).exists()
    stages.clear()
    _core.cube_coset_build("small", str(path), 0, lambda d, t, stage: stages.append(stage), checkpoint_seconds=0)
    assert stages[0] == "resuming from a checkpoint after depth 7"
    assert not any(s.startswith("depth 7:") for s in stages)  # levels done before the stop are not redone
    assert path.read_bytes() == small_path.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


@pytest.mark.slow
def test_a_killed_build_restarts_and_gives_the_same_table(small_path, tmp_path):
    path = tmp_path / small_path.name
    script = (
        "import sys\nfrom cogsim import _core\n"
        "_core.cube_coset_build('small', sys.argv[1], 0, None, checkpoint_seconds=0)\n"
    )
    process = subprocess.Popen([sys.executable, "-c", script, str(path)])
    state = tmp_path / (path.name + ".partial.state")
    deadline = time.monotonic() + 300
    while not state.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    _core.cube_coset_build("small", str(path))
    assert path.read_bytes() == small_path.read_bytes()


def test_a_second_builder_is_told_another_is_building(small_path, tmp_path):
    path = tmp_path / small_path.name
    with open(str(path) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with pytest.raises(RuntimeError, match="another process is building"):
            _core.cube_coset_build("small", str(path))


def test_a_damaged_table_file_is_refused_with_advice(small_path, tmp_path):
    damaged = tmp_path / "cube" / small_path.name
    damaged.parent.mkdir()
    data = bytearray(small_path.read_bytes())
    data[4096] ^= 0x10
    damaged.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="checksum mismatch"):
        _core.CosetSolver("small", str(damaged))
    with pytest.raises(ValueError, match="rebuild it with `cogsim cube tables build --size small`"):
        oracle_module._load_coset({"table": "small", "cache_dir": str(damaged.parent)})
    truncated = tmp_path / "truncated.table"
    truncated.write_bytes(small_path.read_bytes()[:1000])
    with pytest.raises(ValueError, match="truncated"):
        _core.CosetSolver("small", str(truncated))


def test_short_memory_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(oracle_module, "_available_memory", lambda: (3 << 30, "this machine has 3.0 GiB available"))
    monkeypatch.setitem(oracle_module._config, "cache_dir", str(tmp_path))
    with pytest.raises(cube.TableMemoryError, match=r"building the large cube table needs 7\.5 GiB .* has 3\.0 GiB"):
        cube.build_table("large")
    assert isinstance(cube.TableMemoryError("x"), MemoryError)
    (tmp_path / cube.table_path("large", str(tmp_path)).name).write_bytes(b"")
    with pytest.raises(cube.TableMemoryError, match="loading the large cube table needs 7.3 GiB"):
        oracle_module._load_coset({"table": "auto", "cache_dir": str(tmp_path)})


def test_bad_sizes_and_missing_tables_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="'small', 'medium' or 'large'"):
        _core.CosetSolver("huge", str(tmp_path / "x"))
    with pytest.raises(ValueError, match="table size must be one of small, medium, large"):
        cube.table_path("huge")
    with pytest.raises(ValueError, match="table must be one of auto, off, small, medium, large"):
        cube.configure(table="huge", progress=None)
    with pytest.raises(ValueError, match="missing"):
        _core.CosetSolver("small", str(tmp_path / "none.table"))
    with pytest.raises(ValueError, match="the medium cube table is not built"):
        oracle_module._load_coset({"table": "medium", "cache_dir": str(tmp_path)})
    assert oracle_module._load_coset({"table": "auto", "cache_dir": str(tmp_path)}) is None


def test_distance_and_solve_use_the_table_for_deep_states(small_configured):
    assert cube.tables()["coset_table"]["size"] == "small"
    shallow = [" ".join(cube.scramble(d, d)) for d in (0, 3, 7)]
    deep = [" ".join(s) for s in cube.scrambles([13, 14], [5, 6])]
    assert cube.distance(shallow + deep).tolist() == [0, 3, 7, 13, 14]
    solutions = cube.solve(shallow + deep)
    assert all(_solves(s, moves, d) for s, moves, d in zip(shallow + deep, solutions, [0, 3, 7, 13, 14]))
    assert _solves(deep[0], cube.solve(deep[0]), 13)
    assert cube.solve(Cube.solved()) == []
    with pytest.raises(cube.SearchLimitError, match="state 1: search exceeded max_nodes=300000 even with the coset"):
        cube.distance([shallow[1], deep[1]], max_nodes=300_000)


def test_cli_builds_the_table_and_writes_solutions(small_configured, small_path, tmp_path, capsys, monkeypatch):
    assert main(["cube", "tables", "build", "--size", "small", "--no-progress"]) == 0
    assert f"already built and verified: {small_path}" in capsys.readouterr().out
    states = tmp_path / "states.txt"
    deep = " ".join(cube.scramble(13, 9))
    states.write_text(f"R U R' U'\n\n{deep}\n")
    out = tmp_path / "solutions.txt"
    assert main(["cube", "distances", str(states), "--solve", "--out", str(out), "--no-progress"]) == 0
    lines = out.read_text().split("\n")
    assert lines[1] == "" and lines[3] == ""
    assert _solves("R U R' U'", lines[0].split(), 4) and _solves(deep, lines[2].split(), 13)
    assert main(["cube", "distances", str(states), "--solve", "--ray", "auto", "--no-progress"]) == 2
    assert "cannot be combined with --ray" in capsys.readouterr().err
    monkeypatch.setattr(oracle_module, "_available_memory", lambda: (1 << 30, "this machine has 1.0 GiB available"))
    monkeypatch.setitem(oracle_module._config, "cache_dir", str(tmp_path))
    assert main(["cube", "tables", "build", "--size", "large", "--no-progress"]) == 2
    assert "needs 7.5 GiB of memory" in capsys.readouterr().err


def test_the_portable_search_gives_the_same_solutions(small_path, small):
    """The search compiled for the baseline target (what a CPU without SSSE3 runs, and what the
    sanitizer build runs) against the one this machine picks."""
    portable = _core.CosetSolver("small", str(small_path))
    portable.use_portable_search()
    assert not portable.info()["vectorised"]
    packed, _ = cube.as_states([w for depth in (5, 9, 12) for w in _walks(depth, 10, seed=300 + depth)])
    expected, expected_nodes = small.solutions(packed, 10**9, 1)
    found, nodes = portable.solutions(packed, 10**9, 1)
    assert found == expected and nodes.tolist() == expected_nodes.tolist()
