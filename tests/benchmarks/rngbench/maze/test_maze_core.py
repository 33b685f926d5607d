"""3D Maze core: generation invariants, shortest paths against a Python reference, batched stepping."""

from __future__ import annotations

import hashlib
from collections import deque

import numpy as np
import pytest

from cogsim.benchmarks.rngbench import maze
from cogsim.benchmarks.rngbench.maze.game import BAD_ACTION, COLLIDED, IGNORED, MOVED, REACHED_GOAL, TURNED

SIZES = (2, 3, 5, 7, 10, 15, 20)
DELTAS = ((-1, 0), (0, 1), (1, 0), (0, -1))
BITS = (1, 2, 4, 8)


def open_interior_walls(walls: np.ndarray) -> int:
    return int(((walls[:, :-1] & 2) == 0).sum() + ((walls[:-1, :] & 4) == 0).sum())


def reference_reachable(walls: np.ndarray) -> int:
    n = walls.shape[0]
    seen, queue = {(0, 0)}, deque([(0, 0)])
    while queue:
        r, c = queue.popleft()
        for side, (dr, dc) in enumerate(DELTAS):
            nxt = (r + dr, c + dc)
            if not walls[r, c] & BITS[side] and 0 <= nxt[0] < n and 0 <= nxt[1] < n and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return len(seen)


def reference_fewest_actions(walls: np.ndarray, pose, goal) -> int:
    """BFS over (row, col, heading) in plain Python, independent of the core."""
    dist = {pose: 0}
    queue = deque([pose])
    while queue:
        r, c, h = queue.popleft()
        if (r, c) == goal:
            return dist[(r, c, h)]
        successors = [(r, c, (h + 3) % 4), (r, c, (h + 1) % 4)]
        if not walls[r, c] & BITS[h]:
            successors.append((r + DELTAS[h][0], c + DELTAS[h][1], h))
        for s in successors:
            if s not in dist:
                dist[s] = dist[(r, c, h)] + 1
                queue.append(s)
    raise AssertionError("goal unreachable")


@pytest.mark.parametrize("size", SIZES)
def test_every_maze_is_connected_closed_and_has_exactly_the_extra_openings(size):
    expected_extra = int(np.floor(0.15 * (size - 1) ** 2 + 0.5))
    for seed in range(25):
        m = maze.generate(size, seed, generator="cogsim", step="cell")
        maze.check_walls(m.walls)  # closed boundary, both faces of every wall agree
        assert reference_reachable(m.walls) == size * size == maze.reachable_cells(m.walls)
        assert m.extra_openings == expected_extra
        assert open_interior_walls(m.walls) == size * size - 1 + expected_extra


def test_extra_openings_by_hand():
    # (n-1)^2 walls survive a spanning tree; 15% of them, rounded half up.
    assert [maze.extra_openings(n) for n in (5, 9, 10, 15)] == [2, 10, 12, 29]
    assert maze.extra_openings(10, 0.0) == 0 and maze.extra_openings(10, 1.0) == 81
    full = maze.generate(6, 1, loop_rate=1.0, generator="cogsim", step="cell")
    assert open_interior_walls(full.walls) == 2 * 6 * 5  # every interior wall open


def test_a_spanning_tree_alone_is_a_perfect_maze():
    for seed in range(10):
        m = maze.generate(8, seed, loop_rate=0.0, generator="cogsim", step="cell")
        assert open_interior_walls(m.walls) == 63 and reference_reachable(m.walls) == 64


def test_generation_is_reproducible_and_independent_of_threads():
    a = maze.generate_batch([9] * 40, range(40), threads=1)
    b = maze.generate_batch([9] * 40, range(40), threads=2)
    for x, y in zip(a, b):
        assert np.array_equal(x.walls, y.walls) and x.optimal_actions == y.optimal_actions
    assert np.array_equal(maze.generate(9, 7, generator="cogsim", step="cell").walls, a[7].walls)
    assert len({a[i].walls.tobytes() for i in range(40)}) == 40


def test_same_seed_same_maze_on_every_machine():
    # SplitMix64 and the generator are specified in the core, so these digests are fixed.
    digest = hashlib.sha256(
        b"".join(maze.generate(n, 12345, generator="cogsim", step="cell").walls.tobytes() for n in (5, 11, 15))
    ).hexdigest()
    assert digest[:16] == GOLDEN_DIGEST


GOLDEN_DIGEST = "bb18bfd9cfcfe57b"


@pytest.mark.parametrize("size", (3, 5, 9, 15))
def test_optimal_actions_match_a_python_bfs_and_the_oracle_walks_them(size):
    mazes = maze.generate_batch([size] * 12, range(100, 112))
    batch = maze.MazeBatch.from_mazes(mazes)
    for i, m in enumerate(mazes):
        assert m.optimal_actions == reference_fewest_actions(m.walls, (0, 0, 1), m.goal)
        plan = maze.shortest_actions(m.walls, 0, 0, 1, m.goal)
        assert len(plan) == m.optimal_actions
        assert plan.count(0) >= m.shortest_cells  # fewest actions may trade moves for turns
    for t in range(max(m.optimal_actions for m in mazes)):
        actions = np.array(
            [
                maze.shortest_actions(m.walls, int(batch.row[i]), int(batch.col[i]), int(batch.heading[i]), m.goal)[0]
                if not batch.done[i]
                else 0
                for i, m in enumerate(mazes)
            ]
        )
        batch.step(actions)
    assert batch.done.all()
    assert batch.steps.tolist() == [m.optimal_actions for m in mazes]
    assert batch.collisions.tolist() == [0] * len(mazes)


def test_stepping_moves_turns_and_counts_collisions():
    walls = np.array([[9, 3], [12, 6]], np.uint8)  # 2x2: open between (0,0)-(0,1) and (0,1)-(1,1)
    maze.check_walls(walls)
    batch = maze.MazeBatch.from_mazes([walls])
    assert batch.step([1]).tolist() == [TURNED] and batch.heading[0] == 0  # east -> north
    assert batch.step([0]).tolist() == [COLLIDED] and (batch.row[0], batch.col[0]) == (0, 0)
    assert batch.step([2]).tolist() == [TURNED] and batch.heading[0] == 1
    assert batch.step([0]).tolist() == [MOVED] and (batch.row[0], batch.col[0]) == (0, 1)
    assert batch.step([7]).tolist() == [BAD_ACTION] and batch.steps[0] == 4
    batch.step([2])  # face south
    assert batch.step([0]).tolist() == [REACHED_GOAL] and batch.done[0] == 1
    assert batch.step([0]).tolist() == [IGNORED]
    assert batch.steps[0] == 6 and batch.collisions[0] == 1 and batch.visited_count[0] == 3


def test_many_rounds_in_one_call_equal_single_rounds():
    mazes = maze.generate_batch([7] * 50, range(50))
    rng = np.random.default_rng(0)
    actions = rng.integers(0, 3, size=(60, 50)).astype(np.uint8)
    one, many = maze.MazeBatch.from_mazes(mazes), maze.MazeBatch.from_mazes(mazes)
    for t in range(60):
        one.step(actions[t])
    outcomes = many.step(actions, threads=2)
    assert outcomes.shape == (60, 50)
    for key in ("row", "col", "heading", "steps", "collisions", "visited_count", "visited", "done"):
        assert np.array_equal(one.arrays[key], many.arrays[key]), key


def test_explorer_never_collides_and_always_arrives():
    from cogsim.benchmarks.rngbench.maze.agents import explorer_action

    for size, seed in [(5, 1), (9, 2), (15, 3), (15, 4)]:
        m = maze.generate(size, seed, generator="cogsim", step="cell")
        batch, sight = maze.MazeBatch.from_mazes([m]), maze.Sight(size)
        for _ in range(20 * size * size):
            pose = int(batch.row[0]), int(batch.col[0]), int(batch.heading[0])
            sight.look(m.walls, *pose, 4, m.goal)
            batch.step([explorer_action(m.walls, sight, *pose, m.goal)])
            if batch.done[0]:
                break
        assert batch.done[0] and batch.collisions[0] == 0
        assert batch.steps[0] >= m.optimal_actions


def test_bad_inputs_raise_value_errors_naming_the_field():
    with pytest.raises(ValueError, match="size"):
        maze.generate(1, 0, generator="cogsim", step="cell")
    with pytest.raises(ValueError, match="seed"):
        maze.generate(5, -1, generator="cogsim", step="cell")
    with pytest.raises(ValueError, match="loop_rate"):
        maze.generate(5, 0, loop_rate=1.5, generator="cogsim", step="cell")
    with pytest.raises(ValueError, match="boundary"):
        maze.MazeBatch.from_mazes([np.zeros((3, 3), np.uint8)])
    with pytest.raises(ValueError, match="consistent"):
        maze.check_walls(np.array([[11, 3], [12, 6]], np.uint8))
    batch = maze.MazeBatch.from_mazes([maze.generate(5, 0, generator="cogsim", step="cell").walls])
    batch.arrays["row"][0] = 9
    with pytest.raises(ValueError, match="pose"):
        batch.step([0])
    with pytest.raises(ValueError, match="actions"):
        maze.MazeBatch.from_mazes([maze.generate(5, 0, generator="cogsim", step="cell")]).step(np.zeros((2, 3)))
