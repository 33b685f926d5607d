"""What the 3D Maze says: the task prompt, step texts, symbolic views and the memory map."""

from __future__ import annotations

from typing import Optional

import numpy as np

from cogsim.benchmarks.rngbench.maze.game import ACTIONS, DELTAS, HEADINGS, SIDE_BITS, cells_ahead

TAG_NAMES = ("red", "green", "blue", "yellow", "purple", "cyan", "orange", "pink")  # renderer TAG_COLOURS order


def task_prompt(
    size: int,
    budget: int,
    modality: str,
    cot: bool,
    ask_output: bool,
    tagged: bool,
    step: str = "slide",
    vision_range: int = 4,
    minimap: bool = False,
    parser: str = "release",
) -> str:
    """The system prompt, in the release's structure (intro, what each turn shows, actions,
    navigation notes, output format, the config line) in cogsim's own words."""
    if step == "slide":
        forward = (
            "`move_forward`: walk ahead along your heading and keep going until a wall blocks you or you enter a cell "
            "with an opening to your left or right (a junction); you pass every cell on the way. One step, however far you go."
        )
        moves_note = "A move_forward ends at the next wall or junction, so face the right way before you move."
    else:
        forward = "`move_forward`: step one cell ahead along your heading (if no wall is in the way)."
        moves_note = "Every action costs one step, a turn as much as a move, so face the right way before you move."
    view = {
        "3d": [
            "Each turn brings a first-person 3D picture of what lies ahead of you. You see about "
            f"{vision_range} cells ahead; farther away everything fades into darkness."
        ],
        "patch": [
            "Each turn brings a top-down picture of the 3x3 cells around you (north up, no history), "
            "with your position and heading as an arrow."
        ],
        "text": [
            "Each turn brings a text listing of the four compass sides of your cell (north, east, south, west): "
            "OPEN, WALL or OUT-OF-BOUNDS, the goal marked, the side you face marked."
        ],
    }[modality]
    if minimap:
        view.append(
            "A minimap of what you have uncovered so far (cells you stood on and their open neighbours, with their walls) "
            "comes with every turn; use it to avoid dead ends you already know."
        )
    view.append(
        "The text of each turn also gives your cell (row, column, counted from 0 at the top-left), your heading "
        "(N, E, S or W), the goal's cell, the steps taken, the cells explored and the actions available."
    )
    lines = [
        "You are inside a first-person maze. Get from the start to the goal (orange) in as few actions as you can.",
        "",
        "=== What you see ===",
        *view,
        "",
        "=== Actions ===",
        "Pick exactly ONE action per turn:",
        f"  - {forward}",
        "  - `turn_left`: rotate 90 degrees counterclockwise in place (N->W, W->S, S->E, E->N).",
        "  - `turn_right`: rotate 90 degrees clockwise in place (N->E, E->S, S->W, W->N).",
        moves_note,
        "",
        "=== Finding the way ===",
        "- The goal is the BOTTOM-RIGHT cell of the maze; its cell is given every turn.",
        "- Keep a map in your head: no summary of where you have been is given; rely on this conversation.",
        "- Explore systematically (for example keep one hand on the wall, or search depth-first).",
    ]
    if tagged:
        lines.append("- Some walls are painted in colours; use them as landmarks.")
    if ask_output:
        lines += [
            "",
            f"Every answer must also give your map of the maze so far: a line `Map:` followed by {size} lines of {size} "
            "characters, one per cell from row 0 (north) to the last row, west to east: the hex digit of the cell's walls "
            "(north 1 + east 2 + south 4 + west 8), or ? if you do not know the cell.",
        ]
    lines += ["", "=== Answer format (STRICT) ==="]
    if cot:
        lines += [
            "Thought: <short reasoning: where you are, what you see, your plan>",
            "Action: <move_forward|turn_left|turn_right>",
        ]
    else:
        lines += [
            "Action: <move_forward|turn_left|turn_right>",
            "(only this line" + (" besides the map" if ask_output else "") + ", nothing else)",
        ]
    lines += ["", f"Maze Config: {size}×{size} cells | Vision: {vision_range} cells | Max Steps: {budget}"]
    return "\n".join(lines)


ACTION_HINT = "Action: <move_forward|turn_left|turn_right>"


def step_text(
    step: int, row: int, col: int, heading: int, goal, taken: int, explored: int, cells: int, available
) -> str:
    """The release's per-turn info block (fields and layout of runner._build_step_message)."""
    return (
        f"Step {step}.\n"
        f"Your cell position: ({row}, {col}) | Facing: {'NESW'[heading]}\n"
        f"Goal cell position: ({goal[0]}, {goal[1]})\n"
        f"Steps taken: {taken} | Cells explored: {explored}/{cells}\n"
        f"Available actions: {', '.join(available)}\n"
        f"Choose your next action.\nThought: ...\n{ACTION_HINT}"
    )


def retry_text() -> str:
    """What the release says after an answer without a readable action (no step is used)."""
    return f"Invalid action. Please choose exactly one of: {', '.join(ACTIONS)}.\nThought: ...\n{ACTION_HINT}"


def action_result(
    action: int, heading_before: int, heading_after: int, cells: list, position, goal_reached: bool
) -> tuple[bool, str]:
    """(success, message) of one action, in the release's format (MazeGame3D.move)."""
    if action == 1:
        return True, f"Turned left: {'NESW'[heading_before]} → {'NESW'[heading_after]}."
    if action == 2:
        return True, f"Turned right: {'NESW'[heading_before]} → {'NESW'[heading_after]}."
    if not cells:
        return False, "Cannot move forward: wall is directly ahead."
    moved = f"Moved {len(cells)} cell(s) heading {'NESW'[heading_before]}."
    if goal_reached:
        return True, f"{moved} You reached the GOAL!"
    return True, f"{moved} Now at cell ({position[0]}, {position[1]})."


def feedback_text(action: int, success: bool, message: str, position) -> str:
    """The release's prefix for the next turn (runner._make_feedback)."""
    if success:
        return f"Result: {message}\n\n"
    return (
        f"Result: Action '{ACTIONS[action]}' FAILED — {message} Position unchanged: ({position[0]}, {position[1]}).\n\n"
    )


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
