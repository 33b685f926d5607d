"""The phase-1 heuristic for deep queries (cpp/cube/phase1.hpp): admissible, exact as a phase-1
distance, and never changing an answer. References: breadth-first search over the independent
sticker model, the oracle without the table, and the local structure of a true distance function."""

import numpy as np
import pytest

import sticker_model
from cogsim import _core, cube
from cogsim.cube import Cube
from table_files import copy_with_one_corrupt_byte

PHASE1_MOVES = ["U", "U2", "U'", "D", "D2", "D'", "R2", "L2", "F2", "B2"]  # keep phase 1 solved (UD axis)
# Keep the sorted variant's goal: the UD-slice edges home and in order as well.
SORTED_GOAL_MOVES = ["U", "U2", "U'", "D", "D2", "D'", "R2 U R2", "F2 D2 F2", "L2 U' L2", "B2 D B2"]
MAX_DISTANCE = {"plain": 12, "sorted": 13}  # the deepest entry of each table (its breadth-first build)


@pytest.fixture(scope="module")
def cache_dir(cube_oracle):
    return cube_oracle.info()["cache_dir"]


@pytest.fixture(scope="module", params=["plain", pytest.param("sorted", marks=pytest.mark.slow)])
def deep(request, cache_dir):
    """An oracle with a phase-1 table, built into the test cache on first use: plain ~30 s on
    2 cores; sorted (slow tests only) a few minutes and 1.7 GB."""
    return _core.CubeOracle(cache_dir, 6, 6, 0, None, phase1=request.param)


@pytest.fixture(scope="module")
def phase1_plain(cache_dir):
    return _core.CubeOracle(cache_dir, 6, 6, 0, None, phase1="plain")


@pytest.fixture(scope="module")
def plain(cache_dir):
    return _core.CubeOracle(cache_dir, 6, 6, 0, None)


def _random_states(count: int, first_seed: int = 0) -> np.ndarray:
    return np.concatenate([cube.as_states(Cube.random_state(s))[0] for s in range(first_seed, first_seed + count)])


def test_heuristic_never_exceeds_the_bfs_distance_up_to_depth_5(deep):
    layers = sticker_model.breadth_first_layers(5)
    for depth, layer in enumerate(layers):
        packed = _core.cube_states_from_facelets([row.tobytes().decode() for row in layer])
        bounds = deep.phase1_bounds(packed)
        heuristic = deep.heuristics(packed)
        assert bounds.max() <= depth and heuristic.max() <= depth, f"depth {depth}"
        assert heuristic.min() >= (1 if depth else 0)


def test_heuristic_never_exceeds_the_distance_of_deeper_scrambles(deep, plain):
    sequences = [" ".join(s) for d in range(6, 13) for s in cube.scrambles([d] * 20, list(range(20)))]
    packed, _ = cube.as_states(sequences)
    depths = np.repeat(np.arange(6, 13), 20)
    assert np.all(deep.phase1_bounds(packed).max(axis=1) <= depths)
    assert np.all(deep.heuristics(packed) <= depths)
    # The phase-1 bound only ever adds information to Korf's.
    assert np.all(deep.heuristics(packed) >= plain.heuristics(packed))


def test_phase1_bounds_are_a_true_distance_function(deep):
    """Zero exactly on phase-1 goals, changes by at most 1 per move, and every positive value has a
    neighbour one closer: together these make each view's value its exact phase-1 distance."""
    states = _random_states(400)
    bounds = deep.phase1_bounds(states)
    around = deep.phase1_bounds(_core.cube_neighbours(states)).reshape(len(states), 18, 3)
    assert np.abs(around - bounds[:, None, :]).max() <= 1
    assert np.all(around.min(axis=1) == bounds - 1)
    kind = deep.info()["phase1"]
    assert bounds.max() <= MAX_DISTANCE[kind]
    rng = np.random.default_rng(1)
    goal_moves = SORTED_GOAL_MOVES if kind == "sorted" else PHASE1_MOVES
    goals, _ = cube.as_states([" ".join(rng.choice(goal_moves, size=15)) for _ in range(100)])
    assert np.all(deep.phase1_bounds(goals)[:, 0] == 0)
    if kind == "sorted":  # a half turn of R keeps phase 1 solved but swaps two slice edges
        assert deep.phase1_bounds(cube.as_states("R2")[0]).tolist() == [[1, 1, 0]]
    # Each axis takes its turn: a quarter turn of R leaves the R-L view in its phase-1 group only.
    assert deep.phase1_bounds(cube.as_states("R")[0]).tolist() == [[1, 1, 0]]
    assert deep.phase1_bounds(cube.as_states("F")[0]).tolist() == [[1, 0, 1]]


def test_phase1_bounds_are_invariant_under_inverse_and_conjugating_rotations(deep):
    # Turning the whole cube by y (U-D axis) maps each move to another: R -> F etc. conjugates.
    y_of = {"U": "U", "D": "D", "R": "F", "F": "L", "L": "B", "B": "R"}
    rng = np.random.default_rng(2)
    for _ in range(50):
        moves = rng.choice(cube.MOVES, size=25)
        rotated = [y_of[m[0]] + m[1:] for m in moves]
        a = deep.phase1_bounds(cube.as_states(" ".join(moves))[0])[0]
        b = deep.phase1_bounds(cube.as_states(" ".join(rotated))[0])[0]
        assert a[0] == b[0]  # the U-D view is symmetric under the rotation about its own axis
        assert sorted(a[1:]) == sorted(b[1:])  # the other two views trade places


def test_phase1_bounds_are_invariant_under_the_left_right_mirror(deep):
    """The table is reduced by the mirror too; the mirrored sequence (R <-> L, every turn reversed)
    must give the same bound on every view: the mirror keeps all three axes, so seen along any of
    them it is one of that view's 16 symmetries."""
    mirror_face = {"U": "U", "D": "D", "R": "L", "L": "R", "F": "F", "B": "B"}
    reverse = {"": "'", "'": "", "2": "2"}
    rng = np.random.default_rng(3)
    sequences = [rng.choice(cube.MOVES, size=int(rng.integers(1, 26))) for _ in range(300)]
    mirrored = [" ".join(mirror_face[m[0]] + reverse[m[1:]] for m in moves) for moves in sequences]
    a = deep.phase1_bounds(cube.as_states([" ".join(m) for m in sequences])[0])
    b = deep.phase1_bounds(cube.as_states(mirrored)[0])
    assert a.tolist() == b.tolist()
    assert len({tuple(row) for row in a}) > 20


def test_sorted_bounds_refine_the_plain_ones(deep, phase1_plain):
    """Tracking the order of the slice edges can only add moves to each view's phase-1 distance."""
    states = _random_states(300, first_seed=1000)
    assert np.all(deep.phase1_bounds(states) >= phase1_plain.phase1_bounds(states))


def test_distances_with_and_without_the_table_agree(deep, plain):
    depths = [d for d in range(1, 13) for _ in range(20)] + [d for d in range(1, 12) for _ in range(10)]
    seeds = list(range(len(depths)))
    sequences = [" ".join(s) for s in cube.scrambles(depths, seeds)]
    rng = np.random.default_rng(5)
    sequences += [" ".join(rng.choice(cube.MOVES, size=int(rng.integers(1, 12)))) for _ in range(100)]
    packed, _ = cube.as_states(sequences)
    with_table, nodes_with = deep.distances(packed, cube.DEFAULT_MAX_NODES, 0)
    without, nodes_without = plain.distances(packed, cube.DEFAULT_MAX_NODES, 0)
    assert len(sequences) >= 400
    assert with_table.tolist() == without.tolist()
    assert with_table[: len(depths)].tolist() == depths
    assert nodes_with.sum() < nodes_without.sum()


def test_solve_with_the_table_is_optimal(deep):
    for depth, seed in [(9, 0), (12, 0), (13, 0), (13, 1)]:
        (scramble,) = deep.scrambles([depth], [seed], cube.DEFAULT_MAX_NODES, 1)
        c = Cube.from_moves(" ".join(cube.MOVES[m] for m in scramble))
        solution = deep.solve(cube.as_states(c)[0][0].tobytes(), cube.DEFAULT_MAX_NODES)
        assert len(solution) == depth
        assert c.apply([cube.MOVES[m] for m in solution]).is_solved()


def test_configure_and_environment_switch(monkeypatch, cache_dir):
    try:
        configured = cube.configure(cache_dir=cache_dir, phase1=True, progress=None)
        assert configured.info()["phase1"] == "plain"
        assert any(t["name"] == "cube-phase1-sym16" for t in configured.info()["tables"])
        assert cube.distance(" ".join(cube.scramble(13, 4))) == 13  # scrambled and checked with the table
        assert cube.configure(cache_dir=cache_dir, phase1="off", progress=None).info()["phase1"] == "off"
        for value, expected in [("1", "plain"), ("plain", "plain"), ("0", "off"), ("OFF", "off")]:
            monkeypatch.setenv("COGSIM_CUBE_PHASE1", value)
            assert cube.configure(cache_dir=cache_dir, progress=None).info()["phase1"] == expected
        monkeypatch.setenv("COGSIM_CUBE_PHASE1", "maybe")
        with pytest.raises(ValueError, match="COGSIM_CUBE_PHASE1 must be one of auto, off, plain, sorted"):
            cube.configure(cache_dir=cache_dir, progress=None)
        monkeypatch.delenv("COGSIM_CUBE_PHASE1")
        for bad in ("yes", "huge", 1, None.__class__):
            with pytest.raises(ValueError, match="phase1 must be one of 'auto', 'off', 'plain', 'sorted'"):
                cube.configure(cache_dir=cache_dir, phase1=bad, progress=None)
        with pytest.raises(ValueError, match="phase1 must be 'off', 'plain' or 'sorted'"):
            _core.CubeOracle(cache_dir, 6, 6, 0, None, phase1="huge")
    finally:
        monkeypatch.delenv("COGSIM_CUBE_PHASE1", raising=False)
        cube.configure(cache_dir=cache_dir, progress=None)


@pytest.fixture
def auto_mode(monkeypatch, cache_dir):
    """The default "auto" mode with a low escalation point and the plain table standing in for the
    sorted one (same code path; the sorted table is too large for the default test run)."""
    from cogsim.cube import _oracle

    monkeypatch.setattr(_oracle, "AUTO_ESCALATE_NODES", 2_000)
    monkeypatch.setattr(_oracle, "AUTO_DEEP_TABLE", "plain")
    monkeypatch.delenv("COGSIM_CUBE_PHASE1", raising=False)
    cube.configure(cache_dir=cache_dir, progress=None)
    yield _oracle
    cube.configure(cache_dir=cache_dir, progress=None)


def _names(info: dict) -> list[str]:
    return [t["name"] for t in info["tables"]]


def test_auto_mode_answers_shallow_queries_without_the_deep_table(auto_mode):
    assert cube.tables()["phase1"] == "auto"
    sequences = [" ".join(s) for s in cube.scrambles([1, 4, 7, 9], [0, 1, 2, 3])]
    assert cube.distance(sequences).tolist() == [1, 4, 7, 9]
    assert len(cube.solve(sequences[-1])) == 9
    assert not any("phase1" in name for name in _names(cube.tables()))
    deep_scramble = cube.scramble(15, 0)  # deeper than AUTO_SCRAMBLE_DEPTH: the phase-1 oracle
    assert len(deep_scramble) == 15 and "cube-phase1-sym16" in _names(cube.tables())


def test_auto_mode_hands_deep_queries_to_the_phase1_oracle(auto_mode, plain):
    sequences = [" ".join(s) for s in cube.scrambles([3, 12, 5, 13, 11], [7, 8, 9, 10, 11])]
    packed, _ = cube.as_states(sequences)
    _, nodes = plain.distances(packed, cube.DEFAULT_MAX_NODES, 0)
    assert nodes[1] > 2_000 and nodes[0] < 2_000  # a mixed batch: some states escalate, some not
    assert cube.distance(sequences).tolist() == [3, 12, 5, 13, 11]
    assert "cube-phase1-sym16" in _names(cube.tables())
    c = Cube.from_moves(sequences[3])
    solution = cube.solve(c)
    assert len(solution) == 13 and c.apply(solution).is_solved()
    effects = cube.move_effects(c)
    assert sorted(effects.values()).count(cube.DECREASE) >= 1
    assert all(cube.distance(c.apply([m])) == 13 + e for m, e in effects.items())


def test_auto_mode_keeps_the_callers_node_limit(auto_mode):
    state = Cube.random_state(3)
    with pytest.raises(cube.SearchLimitError, match="max_nodes=1000"):
        cube.distance(state, max_nodes=1_000)  # under the escalation point: no deep table at all
    assert not any("phase1" in name for name in _names(cube.tables()))
    with pytest.raises(cube.SearchLimitError, match="state 1: .*max_nodes=50000 even with the plain phase-1 table"):
        cube.distance([Cube.from_moves("R U"), state], max_nodes=50_000)
    with pytest.raises(cube.SearchLimitError):
        cube.solve(state, max_nodes=50_000)


def test_phase1_bounds_need_the_table(plain):
    with pytest.raises(ValueError, match="phase1"):
        plain.phase1_bounds(cube.as_states("R")[0])


@pytest.mark.slow
def test_corrupt_phase1_table_is_rebuilt(phase1_plain, tmp_path):
    victim = copy_with_one_corrupt_byte(phase1_plain, tmp_path, "cube-phase1-sym16.v1.table", 12345, 0x5A)
    messages = []
    rebuilt = _core.CubeOracle(str(tmp_path), 6, 2, 0, messages.append, phase1=True)
    assert any("cube-phase1-sym16: cached table checksum mismatch" in m for m in messages)
    assert any("cube-phase1-sym16: depth 12" in m for m in messages)
    assert {t["name"]: t["built"] for t in rebuilt.info()["tables"]}["cube-phase1-sym16"] is True
    original = next(t["path"] for t in phase1_plain.info()["tables"] if t["name"] == "cube-phase1-sym16")
    assert victim.read_bytes() == open(original, "rb").read()


@pytest.mark.slow
def test_depth_15_scrambles(deep):
    scrambles = deep.scrambles([15, 15], [0, 1], 10**11, 0)
    packed, _ = cube.as_states([" ".join(cube.MOVES[m] for m in s) for s in scrambles])
    distances, _ = deep.distances(packed, 10**11, 0)
    assert distances.tolist() == [15, 15]


@pytest.mark.slow
def test_random_states_are_answered_with_the_sorted_table(monkeypatch, cache_dir):
    """Random positions (almost all 16-20 moves from solved), through the default "auto" mode,
    which hands them to the sorted table: 1-4 minutes each on 2 cores."""
    monkeypatch.delenv("COGSIM_CUBE_PHASE1", raising=False)
    try:
        cube.configure(cache_dir=cache_dir, progress=None)
        for seed in (0, 2):
            c = Cube.random_state(seed)
            solution = cube.solve(c, max_nodes=10**12)
            assert len(solution) == 18 and c.apply(solution).is_solved()  # 18: measured, as for most positions
        assert "cube-phase1-sorted-sym16" in [t["name"] for t in cube.tables()["tables"]]
    finally:
        cube.configure(cache_dir=cache_dir, progress=None)


def test_phase1_option_leaves_the_other_tables_unchanged(phase1_plain, tmp_path):
    """The perimeter and shell builds of an oracle with the table match those of one without."""
    built = {}
    for phase1 in (False, True):
        directory = tmp_path / str(phase1)
        directory.mkdir()
        for table in phase1_plain.info()["tables"]:
            if phase1 or "phase1" not in table["name"]:
                (directory / table["path"].rsplit("/", 1)[1]).symlink_to(table["path"])
        _core.CubeOracle(str(directory), 6, 3, 0, None, phase1=phase1)
        tables = [p for p in directory.glob("*.table") if not p.is_symlink()]  # (each build also leaves its .lock)
        built[phase1] = {p.name: p.read_bytes() for p in tables}
    assert sorted(built[True]) == ["cube-perimeter3-edges6.v1.table", "cube-shell4-edges6.v1.table"]
    assert built[True] == built[False]


def test_cli_phase1_flag(capsys, cache_dir):
    from cogsim.cli import main

    try:
        assert main(["cube", "distance", "--phase1", "R U F' D2 L B2 U' R2 F D' L2 B U2"]) == 0
        assert capsys.readouterr().out.strip() == "13"
        assert cube.oracle().info()["phase1"] == "plain"
        assert main(["cube", "solve", "--phase1", "R U F' D2 L B2 U' R2"]) == 0
        assert len(capsys.readouterr().out.split()) == 8
        with pytest.raises(SystemExit):
            main(["cube", "distance", "--phase1", "--phase1-sorted", "R U"])
        assert "not allowed with argument" in capsys.readouterr().err
    finally:
        cube.configure(cache_dir=cache_dir, progress=None)
