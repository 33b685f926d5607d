"""An independent Python statement of which KidGym actions are executable, for the core's tests."""

from __future__ import annotations

from collections import deque

from cogsim.benchmarks.kidgym.tasks import (
    BASKET,
    CHEST,
    CHOOSE,
    CONTINUE,
    DECLARE,
    DIAMOND,
    DOOR,
    EMPTY,
    ITEM,
    KEY,
    OBTAIN,
    PICK,
    PIECE,
    PLACE,
    PUT,
    TARGET,
    UNLOCK,
)

MEMORY = {"selection", "memory_maze", "memory_decode", "memory_filling"}


def reachable_cells(state) -> set[tuple[int, int]]:
    kinds = state.cells[:, :, 0]
    start = tuple(state.agent)
    seen, queue = {start}, deque([start])
    while queue:
        r, c = queue.popleft()
        for nr, nc in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)):
            if 0 <= nr < 5 and 0 <= nc < 5 and (nr, nc) not in seen and kinds[nr, nc] == EMPTY:
                seen.add((nr, nc))
                queue.append((nr, nc))
    return seen


def executable_actions(task: str, state) -> set[tuple[int, int, int]]:
    if state.done:
        return set()
    if task in MEMORY and state.phase == 0:
        return {(CONTINUE, 0, 0)}
    reach = reachable_cells(state)
    cells = state.cells
    bag = state.bag
    full = len(bag) >= state.bag_capacity

    def beside(r, c):
        return any((nr, nc) in reach for nr, nc in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)))

    def cells_of(kind):
        return [(r, c) for r in range(5) for c in range(5) if cells[r, c, 0] == kind and beside(r, c)]

    def label(r, c):
        return int(cells[r, c, 3])

    out = set()
    slots = lambda kind: [i for i, (k, *_) in enumerate(bag) if k == kind]  # noqa: E731
    if task == "classification":
        if not full:
            out |= {(PICK, label(r, c), 0) for r, c in cells_of(ITEM)}
        out |= {(PUT, s, label(r, c)) for s in slots(ITEM) for r, c in cells_of(BASKET)}
    elif task in ("maze", "decode_maze", "memory_maze"):
        if not full:
            out |= {(OBTAIN, label(r, c), 0) for r, c in cells_of(KEY)}
        out |= {(OBTAIN, label(r, c), 0) for r, c in cells_of(CHEST if task == "memory_maze" else DIAMOND)}
        out |= {(UNLOCK, s, label(r, c)) for s in slots(KEY) for r, c in cells_of(DOOR)}
    elif task in ("selection", "memory_decode", "decode"):
        if not full:
            out |= {(CHOOSE, label(r, c), 0) for r, c in cells_of(ITEM)}
    elif task in ("sorting", "placement"):
        free_targets = [(r, c) for r, c in cells_of(TARGET) if cells[r, c, 4] == 0]
        out |= {(PLACE, s, label(r, c)) for s in slots(ITEM) for r, c in free_targets}
    elif task == "counting":
        if not full:
            out |= {(PICK, label(r, c), 0) for r, c in cells_of(ITEM)}
        out.add((DECLARE, int(state.goal[0]), 0))
    elif task in ("filling", "puzzle", "memory_filling"):
        free_targets = [(r, c) for r, c in cells_of(TARGET) if cells[r, c, 4] == 0]
        out |= {(PLACE, s, label(r, c)) for s in slots(PIECE) for r, c in free_targets}
    else:
        raise ValueError(task)
    return out
