"""The distance oracle against independent references: breadth-first search over the sticker
model, meet-in-the-middle for deeper samples, and the known counts of positions per distance."""

import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

import sticker_model
from cogsim import _core, cube
from cogsim.cube import Cube
from table_files import copy_with_one_corrupt_byte

BFS_DEPTH = 5
KNOWN_COUNTS = [1, 18, 243, 3240, 43239, 574908]  # positions at each face-turn distance


@pytest.fixture(scope="module")
def layers():
    return sticker_model.breadth_first_layers(BFS_DEPTH)


@pytest.fixture(scope="module")
def bfs_distance(layers):
    return {state.tobytes(): depth for depth, layer in enumerate(layers) for state in layer}


def _packed(layer: np.ndarray) -> np.ndarray:
    return _core.cube_states_from_facelets([row.tobytes().decode() for row in layer])


def test_breadth_first_counts_match_the_known_figures(layers):
    assert [len(layer) for layer in layers] == KNOWN_COUNTS


def test_every_state_up_to_depth_5_has_its_bfs_distance(cube_oracle, layers):
    for depth, layer in enumerate(layers):
        distances = cube.distance(_packed(layer))
        assert np.all(distances == depth), f"depth {depth}: {np.unique(distances)}"


def _meet_in_the_middle(c: Cube, bfs_distance: dict, radius: int = 3) -> int | None:
    """Exact distance when it is at most BFS_DEPTH + radius, else None (independent of the oracle)."""
    best = None
    frontier = {c.to_facelets(): 0}
    seen = dict(frontier)
    for step in range(radius + 1):
        for facelets, g in frontier.items():
            d = bfs_distance.get(facelets.encode())
            if d is not None and (best is None or g + d < best):
                best = g + d
        if step == radius:
            break
        nxt = {}
        for facelets in frontier:
            state = np.frombuffer(facelets.encode(), dtype=np.uint8)
            for perm in sticker_model.PERMUTATIONS.values():
                child = state[perm].tobytes().decode()
                if child not in seen:
                    seen[child] = step + 1
                    nxt[child] = step + 1
        frontier = nxt
    return best if best is not None and best <= BFS_DEPTH + radius else None


def test_deeper_sample_matches_meet_in_the_middle(cube_oracle, bfs_distance):
    rng = np.random.default_rng(3)
    checked = 0
    for trial in range(40):
        length = int(rng.integers(6, 10))
        moves = " ".join(rng.choice(cube.MOVES, size=length))
        c = Cube.from_moves(moves)
        reference = _meet_in_the_middle(c, bfs_distance)
        d = cube.distance(c)
        if reference is not None:
            assert d == reference, moves
            checked += 1
        else:
            assert d > BFS_DEPTH + 3, moves
    assert checked >= 20


@pytest.mark.parametrize("depth", [0, 1, 3, 6, 7, 9, 11, 12])
def test_solve_returns_an_optimal_solution(cube_oracle, depth):
    for seed in range(3):
        scramble = cube.scramble(depth, seed)
        c = Cube.from_moves(" ".join(scramble))
        solution = cube.solve(c)
        assert len(solution) == depth == cube.distance(c)
        assert c.apply(solution).is_solved()


def test_solve_accepts_move_strings_and_solved():
    assert cube.solve("") == []
    assert cube.solve("R U R' U'") == ["U", "R", "U'", "R'"]


def test_scramble_has_exact_depth_and_is_seeded(cube_oracle):
    for depth in range(0, 13):
        sequence = cube.scramble(depth, seed=depth)
        assert len(sequence) == depth
        assert cube.distance(" ".join(sequence)) == depth
    assert cube.scramble(8, 1) == cube.scramble(8, 1)
    assert cube.scramble(8, 1) != cube.scramble(8, 2)
    batch = cube.scrambles([5, 8, 10], [1, 2, 3])
    assert batch == [cube.scramble(5, 1), cube.scramble(8, 2), cube.scramble(10, 3)]


def test_scramble_rejects_bad_depths():
    for depth in (-1, 21, 2.5, "3", True):
        with pytest.raises(ValueError, match="depth"):
            cube.scramble(depth, 0)


def test_move_effects_agree_with_neighbour_distances(cube_oracle):
    for seed in range(6):
        c = Cube.from_moves(" ".join(cube.scramble(3 + seed, seed)))
        effects = cube.move_effects(c)
        here = cube.distance(c)
        assert list(effects) == list(cube.MOVES)
        for move, effect in effects.items():
            assert effect == np.sign(cube.distance(c.apply(move)) - here)
        progress = cube.progress_moves(c)
        assert progress and all(effects[m] == cube.DECREASE for m in progress)
        assert all(cube.distance(c.apply(m)) == here - 1 for m in progress)


def test_move_effects_of_solved_are_all_increase():
    assert set(cube.move_effects(Cube.solved()).values()) == {cube.INCREASE}
    assert cube.progress_moves(Cube.solved()) == []


def test_batched_distance_matches_single_queries(cube_oracle):
    sequences = [" ".join(cube.scramble(d, 100 + d)) for d in range(0, 12)]
    batch = cube.distance(sequences, threads=2)
    assert isinstance(batch, np.ndarray) and batch.dtype == np.int64
    assert batch.tolist() == list(range(0, 12))
    assert [cube.distance(s) for s in sequences] == list(range(0, 12))
    mixed = cube.distance([Cube.from_moves(sequences[3]), sequences[4]])
    assert mixed.tolist() == [3, 4]


def test_distance_is_invariant_under_inverse(cube_oracle):
    for seed in range(5):
        c = Cube.from_moves(" ".join(cube.scramble(10, seed)))
        assert cube.distance(c.inverse()) == cube.distance(c)


def test_node_limit_raises_a_clear_error(cube_oracle):
    deep = " ".join(cube.scramble(12, 0))
    with pytest.raises(cube.SearchLimitError, match="max_nodes=50") as error:
        cube.distance(deep, max_nodes=50)
    assert "phase1='sorted'" in str(error.value)
    with pytest.raises(cube.SearchLimitError, match="state 1"):
        cube.distance(["R", deep], max_nodes=50)
    assert isinstance(cube.SearchLimitError("x"), RuntimeError)


def test_bad_queries_give_clear_errors(cube_oracle):
    with pytest.raises(ValueError, match="state 1: invalid move 'Q'"):
        cube.distance(["R", "Q"])
    with pytest.raises(TypeError, match="state 0"):
        cube.distance([5])
    with pytest.raises(TypeError):
        cube.distance(5)
    with pytest.raises(ValueError, match="max_nodes"):
        cube.distance("R", max_nodes=0)
    with pytest.raises(ValueError, match="shape"):
        cube.distance(np.zeros((3, 7), dtype=np.uint8))
    with pytest.raises(ValueError, match="state 0"):
        cube.distance(np.zeros((1, 40), dtype=np.uint8))


def test_tables_are_rebuilt_when_corrupt(cube_oracle, tmp_path):
    victim = copy_with_one_corrupt_byte(cube_oracle, tmp_path, "cube-edges6-from6.v1.table", 1000, 0xFF)
    messages = []
    rebuilt = _core.CubeOracle(str(tmp_path), 6, 2, 0, messages.append)
    assert any("checksum mismatch" in m for m in messages)
    built = {t["name"]: t["built"] for t in rebuilt.info()["tables"]}
    assert built == {"cube-corners": False, "cube-edges6-from0": False, "cube-edges6-from6": True}
    reloaded = _core.CubeOracle(str(tmp_path), 6, 2, 0, None)
    assert not any(t["built"] for t in reloaded.info()["tables"])
    assert victim.read_bytes() == open(cube_oracle.info()["tables"][2]["path"], "rb").read()
    # A small perimeter changes speed, never answers.
    packed, _ = cube.as_states([" ".join(cube.scramble(d, d)) for d in range(10)])
    assert reloaded.distances(packed, 10**9, 1)[0].tolist() == list(range(10))


# A process that starts on an empty cache builds its tables; another that starts beside it (the
# demo's worker processes) waits for each build and loads the table, and builds none itself.
_SHARED_CACHE_CHILD = """
import sys, time
from pathlib import Path
from cogsim import _core
cache, ready, go = sys.argv[1:4]
Path(ready).touch()
while not Path(go).exists():
    time.sleep(0.002)
lines = []
oracle = _core.CubeOracle(cache, 6, 3, 0, lines.append)
packed = _core.cube_states_from_moves(["R U R' U'", "F2 D' L B"])
print("\\n".join(lines))
print("distances", oracle.distances(packed, 10**9, 1)[0].tolist())
"""


def test_processes_sharing_an_empty_cache_build_each_table_once(cube_oracle, tmp_path):
    corners = next(t["path"] for t in cube_oracle.info()["tables"] if t["name"] == "cube-corners")
    shutil.copy(corners, tmp_path)  # the slowest table, so the test builds only the others
    go = tmp_path / "go"
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _SHARED_CACHE_CHILD, str(tmp_path), str(tmp_path / f"ready{i}"), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(2)
    ]
    deadline = time.monotonic() + 60
    while not all((tmp_path / f"ready{i}").exists() for i in range(2)) and time.monotonic() < deadline:
        time.sleep(0.01)
    go.touch()
    outputs = [child.communicate(timeout=120) for child in children]
    assert [child.returncode for child in children] == [0, 0], [err for _, err in outputs]
    lines = [line for out, _ in outputs for line in out.splitlines()]
    built = sorted(line.split(":")[0] for line in lines if line.endswith("building it"))
    assert built == ["cube-edges6-from0", "cube-edges6-from6", "cube-perimeter3-edges6", "cube-shell4-edges6"]
    assert any(line.endswith("another process is building it, waiting for it") for line in lines)
    assert [line for line in lines if line.startswith("distances")] == ["distances [4, 4]"] * 2


def test_truncated_table_is_rebuilt(cube_oracle, tmp_path):
    for table in cube_oracle.info()["tables"]:
        shutil.copy(table["path"], tmp_path)
    victim = tmp_path / "cube-edges6-from0.v1.table"
    victim.write_bytes(victim.read_bytes()[:5000])
    messages = []
    _core.CubeOracle(str(tmp_path), 6, 0, 0, messages.append)
    assert any("truncated" in m for m in messages)


def test_pattern_database_histograms_match_known_distributions(cube_oracle):
    histograms = cube_oracle.histograms()
    # Korf (1997): corner configurations at each distance from solved.
    corners = [1, 18, 243, 2874, 28000, 205416, 1168516, 5402628, 20776176, 45391616, 15139616, 64736]
    assert histograms["cube-corners"][: len(corners)] == corners
    assert sum(histograms["cube-edges6-from0"]) == 42577920


def test_invalid_oracle_configuration():
    with pytest.raises(ValueError, match="edge_size"):
        _core.CubeOracle("", 5, 6, 0, None)
    with pytest.raises(ValueError, match="perimeter_depth"):
        _core.CubeOracle("", 6, 9, 0, None)


def _solve_in_subprocess(states: list[str], threads: int) -> list[list[str]]:
    script = (
        "import json, sys\n"
        "from cogsim import cube\n"
        "print(json.dumps([cube.solve(s) for s in json.loads(sys.argv[1])]))\n"
    )
    env = dict(os.environ, COGSIM_THREADS=str(threads))
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(states)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return json.loads(done.stdout)


def test_parallel_deep_search_finds_the_serial_solution(cube_oracle):
    """Depth-13 queries take over a million nodes, so their last iterations are split over the
    cores; the solution must be the one the single-threaded search finds."""
    states = [" ".join(cube.scramble(13, seed)) for seed in (0, 1)]
    assert _solve_in_subprocess(states, 2) == _solve_in_subprocess(states, 1)
    for state, solution in zip(states, _solve_in_subprocess(states, 2)):
        assert len(solution) == 13 and Cube.from_moves(state).apply(solution).is_solved()


def test_node_limit_holds_in_a_parallel_iteration(cube_oracle):
    deep = " ".join(cube.scramble(13, 0))
    with pytest.raises(cube.SearchLimitError, match="max_nodes=400000"):
        cube.distance(deep, max_nodes=400_000)  # the first 200,000 nodes run serially, the rest split


def test_every_batch_form_gives_the_same_distances(cube_oracle):
    rng = np.random.default_rng(4)
    moves = [" ".join(rng.choice(cube.MOVES, size=int(n))) for n in rng.integers(0, 7, size=3000)]
    cubes = [cube.Cube.from_moves(m) for m in moves]
    facelets = [c.to_facelets() for c in cubes]
    expected = cube.distance(np.stack([np.frombuffer(c._state, np.uint8) for c in cubes]))
    forms = {
        "cubes": cubes,
        "moves": moves,
        "facelets": facelets,
        "mixed": [(cubes, moves, facelets)[i % 3][i] for i in range(len(cubes))],
        "unicode array": np.array(facelets),
        "bytes array": np.array([m.encode() for m in moves]),
        "tuple": tuple(cubes),
    }
    for name, states in forms.items():
        assert np.array_equal(cube.distance(states), expected), name


def test_a_bad_item_of_a_large_batch_is_named_by_its_index(cube_oracle):
    texts = ["R U"] * 5000
    texts[3001], texts[4000] = "R Q", "UUUU"
    with pytest.raises(ValueError, match="state 3001: invalid move 'Q'"):  # the first bad one, in order
        cube.distance(texts)
    with pytest.raises(ValueError, match="1-D array of strings"):
        cube.distance(np.zeros((3, 41), np.uint8))
