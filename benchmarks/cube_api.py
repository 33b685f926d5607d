"""The public cube API against the core's batch path, per input form, in one process.

    python benchmarks/cube_api.py [--states 20000] [--moves 6]

For each form a user may pass (Cube objects, move strings, facelet strings, NumPy arrays of them,
packed states), it times ``cube.distance(states)`` and the core path for the same input: the
extension's text parser where the input is text, then ``CubeOracle.distances`` on the packed
states. Shallow states (a few random moves) make the search cheap, so the conversion shows.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from cogsim import _core, cube
from cogsim.cube._oracle import AUTO_ESCALATE_NODES, oracle


def best_of(function, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        function()
        times.append(time.perf_counter() - began)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=20000)
    parser.add_argument("--moves", type=int, default=6, help="random moves per state")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    moves = [" ".join(rng.choice(cube.MOVES, size=args.moves)) for _ in range(args.states)]
    cubes = [cube.Cube.from_moves(m) for m in moves]
    facelets = [c.to_facelets() for c in cubes]
    packed = _core.cube_states_from_text(moves)
    core = oracle()
    cube.distance(packed[:10])  # tables loaded before timing

    def core_search(states: np.ndarray) -> np.ndarray:
        return core.distances(states, AUTO_ESCALATE_NODES, 0, on_limit="mark")[0]

    forms = [
        ("packed (N, 40) array", packed, lambda: core_search(packed)),
        ("list of Cube", cubes, lambda: core_search(packed)),
        ("list of move strings", moves, lambda: core_search(_core.cube_states_from_text(moves))),
        ("list of facelet strings", facelets, lambda: core_search(_core.cube_states_from_text(facelets))),
        ("NumPy array of facelets", np.array(facelets), lambda: core_search(_core.cube_states_from_text(facelets))),
    ]
    search = best_of(lambda: core_search(packed))
    print(f"{args.states} states of {args.moves} random moves; core search alone {1000 * search:.1f} ms\n")
    print("| input | cube.distance (ms) | core path, same input (ms) | API / core path | API / core search |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, states, core_path in forms:
        api = best_of(lambda: cube.distance(states))
        path = best_of(core_path)
        print(f"| {name} | {1000 * api:.1f} | {1000 * path:.1f} | {api / path:.2f} | {api / search:.2f} |")


if __name__ == "__main__":
    main()
