"""Text of the 3D Maze: the task prompt, symbolic views, the memory map, and the strict parsers."""

from __future__ import annotations

import re
from typing import Optional

import numpy as np

from cogsim.maze._maze import ACTIONS, DELTAS, HEADINGS, SIDE_BITS, cells_ahead

TAG_NAMES = ("red", "green", "blue", "yellow", "purple", "cyan", "orange", "pink")  # renderer TAG_COLOURS order
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_ACTION_MARKER = re.compile(r"(?:^|[^A-Za-z])\**action\**\s*:", re.IGNORECASE)
_ACTION_WORD = re.compile(r"\s*\**\s*`?([A-Za-z_]+)`?")
_DIRECT = re.compile(r"\**action\**\s*:\s*\**\s*`?([A-Za-z_]+)`?\s*\**\s*", re.IGNORECASE)
_MAP_MARKER = re.compile(r"(?:^|[^A-Za-z])\**map\**\s*:[ \t]*\**[ \t]*", re.IGNORECASE)
_MAP_ROW = re.compile(r"[0-9a-fA-F?]+")


class ParseError(ValueError):
    """A response the strict parser rejects; the message says what was expected."""


def task_prompt(size: int, budget: int, modality: str, cot: bool, ask_output: bool, tagged: bool) -> str:
    view = {
        "3d": "Each turn you see a first-person image of what is in front of you.",
        "patch": "Each turn you see a top-down image of the cells around you (north is up), with your position and heading as a red arrow.",
        "text": "Each turn you get a text description of what you can see straight ahead.",
    }[modality]
    lines = [
        f"You are in a {size}x{size} maze of square cells. You start in the top-left cell (row 1, column 1) facing east; "
        f"the goal, a green tile with a golden gem, is in the bottom-right cell (row {size}, column {size}).",
        view,
        "Actions: move_forward (one cell ahead; walking into a wall is a collision and you stay where you are), "
        "turn_left and turn_right (turn 90 degrees in place).",
        f"You have {budget} actions to reach the goal. Remember what you have seen: earlier views are not shown again.",
    ]
    if tagged:
        lines.append("Some walls are painted in colours; use them as landmarks.")
    if ask_output:
        lines.append(
            f"Every answer must first give your map of the maze so far: a line `Map:` followed by {size} lines of {size} "
            "characters, one per cell from row 1 (north) to the last row, west to east: the hex digit of the cell's walls "
            "(north 1 + east 2 + south 4 + west 8), or ? if you do not know the cell."
        )
    if cot:
        lines.append("You may think step by step first; end your answer with one line `Action: <action>`.")
    else:
        lines.append("Answer with exactly one line `Action: <action>` and nothing else" + (" besides the map." if ask_output else "."))
    return "\n".join(lines)


def _side_text(walls: np.ndarray, tags: Optional[np.ndarray], row: int, col: int, side: int, where: str) -> str:
    if not walls[row, col] & SIDE_BITS[side]:
        return f"open {where}"
    tag = 0 if tags is None else int(tags[row, col, side])
    colour = f" ({TAG_NAMES[tag - 1]})" if tag else ""
    return f"wall{colour} {where}"


def symbolic_view(walls: np.ndarray, row: int, col: int, heading: int, goal, vision_range: int, tags=None) -> str:
    """What is in sight straight ahead, egocentric: per cell, its left, right and front sides."""
    left, right = (heading + 3) % 4, (heading + 1) % 4
    cells = cells_ahead(walls, row, col, heading, vision_range)
    lines = []
    for distance, (r, c) in enumerate(cells):
        name = "Here" if distance == 0 else f"{distance} cell{'s' if distance > 1 else ''} ahead"
        parts = [
            _side_text(walls, tags, r, c, left, "on the left"),
            _side_text(walls, tags, r, c, right, "on the right"),
            _side_text(walls, tags, r, c, heading, "ahead"),
        ]
        goal_text = " The goal is here." if (r, c) == tuple(goal) else ""
        lines.append(f"{name}: {', '.join(parts)}.{goal_text}")
    last_row, last_col = cells[-1]
    if not walls[last_row, last_col] & SIDE_BITS[heading]:
        lines.append("Further ahead is too dark to see.")
    return "\n".join(lines)


def memory_map(walls: np.ndarray, seen: np.ndarray, visited: np.ndarray, row: int, col: int, heading: int, goal) -> str:
    """The oracle memory: seen walls ('-', '|'), unseen sides ('?'), visited cells ('.'), the agent
    (^ > v <) and the goal (G), drawn on a (2n+1)-character grid, with the pose in words."""
    n = walls.shape[0]
    grid = [["+" if r % 2 == 0 and c % 2 == 0 else "?" for c in range(2 * n + 1)] for r in range(2 * n + 1)]
    for r in range(n):
        for c in range(n):
            cy, cx = 2 * r + 1, 2 * c + 1
            grid[cy][cx] = "." if visited[r, c] else " "
            for side in range(4):
                dy, dx = DELTAS[side]
                if seen[r, c, side] and grid[cy + dy][cx + dx] == "?":
                    wall = walls[r, c] & SIDE_BITS[side]
                    grid[cy + dy][cx + dx] = ("-" if side % 2 == 0 else "|") if wall else " "
    gr, gc = goal
    grid[2 * gr + 1][2 * gc + 1] = "G"
    grid[2 * row + 1][2 * col + 1] = "^>v<"[heading]
    drawing = "\n".join("".join(line) for line in grid)
    return (
        f"Memory map (row 1 at the top; '-' and '|' seen walls, '?' unseen sides, '.' visited cells, G the goal):\n"
        f"{drawing}\nYou are at row {row + 1}, column {col + 1}, facing {HEADINGS[heading]}."
    )


def format_action(action: int, wall_map: Optional[np.ndarray] = None) -> str:
    text = f"Action: {ACTIONS[action]}"
    if wall_map is not None:
        text = format_map(wall_map) + "\n" + text
    return text


def format_map(wall_map: np.ndarray) -> str:
    rows = ["".join("?" if v < 0 else format(int(v), "x") for v in line) for line in np.asarray(wall_map)]
    return "Map:\n" + "\n".join(rows)


def _strip(text: str) -> str:
    return _THINK.sub("", text)


def parse_action(text: str, cot: bool = True, ask_output: bool = False) -> int:
    """The action code of a response. CoT: the word after the last `Action:`; direct: the response
    must be only that line (plus the map block in ask-output mode). Raises ParseError."""
    body = _strip(text)
    if not cot:
        if ask_output:
            body = _remove_map(body)
        match = _DIRECT.fullmatch(body.strip())
        if not match:
            raise ParseError("direct mode expects exactly one line `Action: <move_forward|turn_left|turn_right>`")
        word = match.group(1)
    else:
        markers = list(_ACTION_MARKER.finditer(body))
        if not markers:
            raise ParseError("no `Action:` line; end the answer with `Action: <move_forward|turn_left|turn_right>`")
        match = _ACTION_WORD.match(body, markers[-1].end())
        if not match:
            raise ParseError("`Action:` must be followed by move_forward, turn_left or turn_right")
        word = match.group(1)
    word = word.lower()
    if word not in ACTIONS:
        raise ParseError(f"unknown action {word!r}; allowed: {', '.join(ACTIONS)}")
    return ACTIONS.index(word)


def _remove_map(body: str) -> str:
    markers = list(_MAP_MARKER.finditer(body))
    if not markers:
        return body
    start = markers[-1].start()
    rest = body[markers[-1].end() :].splitlines(keepends=True)
    consumed = 0
    for line in rest:
        if line.strip() and not _MAP_ROW.fullmatch(line.strip()):
            break
        consumed += len(line)
    return body[:start] + body[markers[-1].end() + consumed :]


def parse_map(text: str, size: int) -> Optional[np.ndarray]:
    """The (n, n) wall map after the last `Map:` (-1 for '?'), or None when absent or malformed."""
    body = _strip(text)
    markers = list(_MAP_MARKER.finditer(body))
    if not markers:
        return None
    rows = [line.strip() for line in body[markers[-1].end() :].splitlines() if line.strip()][:size]
    if len(rows) != size or not all(len(line) == size and _MAP_ROW.fullmatch(line) for line in rows):
        return None
    return np.array([[-1 if ch == "?" else int(ch, 16) for ch in line] for line in rows], dtype=np.int16)


def traj_match(reported: Optional[np.ndarray], walls: np.ndarray, visited: np.ndarray) -> float:
    """Fraction of the sides of visited cells whose wall or opening the reported map states
    correctly ('?' and a missing map count as wrong)."""
    cells = np.argwhere(visited)
    if reported is None or len(cells) == 0:
        return 0.0
    correct = 0
    for r, c in cells:
        value = int(reported[r, c])
        if value >= 0:
            correct += sum((value & bit) == (int(walls[r, c]) & bit) for bit in SIDE_BITS)
    return correct / (4 * len(cells))
