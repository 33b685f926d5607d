"""RNG-Bench 3D Maze: navigate an egocentric maze from the top-left cell to the bottom-right goal.

Options (all keyword arguments of ``cogsim.make("maze3d/nav", ...)``):
    size (9): maze side n in [2, 64] (the paper uses 5 to 15); loop_rate (0.15): extra openings as a
    fraction of the walls the spanning tree leaves; modality ("3d" first-person frame | "patch"
    top-down local patch | "text" symbolic view); feedback (True): say what the last action did;
    cot (True): chain of thought allowed, else the answer must be the action line only;
    memory_map (False): the oracle condition, the true hidden state (seen walls, visited cells,
    pose) injected as text every step; minimap (False): add a top-down image of visited cells, pose
    and seen walls (in text modality the same map as text); wall_tags (False): colour-tagged walls; ask_output (False): the model also writes
    its wall map every step, scored by Traj-Match; history ("full" | "last:3" | "last:5" |
    "last:10" | "current"): the conversation window the loop keeps; vision_range (4): cells seen
    ahead; image_size (256); patch_radius (2); max_steps (None: max(80, 4 L*)).
"""

from __future__ import annotations

import numpy as np

from cogsim.envs import register
from cogsim.envs._options import choice as _choice, flag as _flag, integer as _integer
from cogsim.envs.base import TextEnv, observation
from cogsim.maze import _maze, agents, text
from cogsim.maze._maze import COLLIDED, MOVED, REACHED_GOAL, TURNED, MazeBatch, Sight

MODALITIES = ("3d", "patch", "text")
HISTORIES = ("full", "last:3", "last:5", "last:10", "current")
_FEEDBACK = {
    MOVED: "You moved forward one cell.",
    TURNED: "You turned {direction}.",
    COLLIDED: "You walked into a wall and did not move (collision).",
    REACHED_GOAL: "You reached the goal!",
}


class MazeNavEnv(TextEnv):
    suite = "maze3d"
    default_history = "full"
    scripted_policies = agents.POLICIES

    def __init__(self, env_id: str = "maze3d/nav", **options):
        super().__init__(env_id, **options)
        self.size = _integer(options, "size", 9, _maze.MIN_SIZE, _maze.MAX_SIZE)
        self.loop_rate = options.get("loop_rate", _maze.DEFAULT_LOOP_RATE)
        if isinstance(self.loop_rate, bool) or not isinstance(self.loop_rate, (int, float)) or not 0 <= self.loop_rate <= 1:
            raise ValueError(f"loop_rate must be a number in [0, 1], got {self.loop_rate!r}")
        self.modality = _choice(options, "modality", "3d", MODALITIES)
        self.feedback = _flag(options, "feedback", True)
        self.cot = _flag(options, "cot", True)
        self.memory_map = _flag(options, "memory_map", False)
        self.minimap = _flag(options, "minimap", False)
        self.wall_tags = _flag(options, "wall_tags", False)
        self.ask_output = _flag(options, "ask_output", False)
        self.default_history = _choice(options, "history", "full", HISTORIES)
        self.vision_range = _integer(options, "vision_range", 4, 1, 64)
        self.image_size = _integer(options, "image_size", 256, 32, 2048)
        self.patch_radius = _integer(options, "patch_radius", 2, 1, 8)
        self.max_steps = _integer(options, "max_steps", None, 1, 100_000)
        self._scene = None

    # -- episode ---------------------------------------------------------------------------------
    def _reset(self, seed: int, options: dict) -> dict:
        self.maze = _maze.generate(self.size, seed, float(self.loop_rate))
        self.walls = self.maze.walls
        self.goal = self.maze.goal
        self.tags = _wall_tags(self.walls, seed) if self.wall_tags else None
        self.walker = MazeBatch.from_mazes([self.maze])
        self.sight = Sight(self.size)
        self.budget = self.max_steps or self.maze.step_budget()
        self.responses = self.parse_failures = 0
        self.traj_scores: list[float] = []
        self._release_scene()
        self._look()
        self.system_prompt = text.task_prompt(self.size, self.budget, self.modality, self.cot, self.ask_output, self.wall_tags)
        return self._observation("The episode begins.")

    @property
    def pose(self) -> tuple[int, int, int]:
        w = self.walker
        return int(w.row[0]), int(w.col[0]), int(w.heading[0])

    def _look(self) -> None:
        row, col, heading = self.pose
        self.sight.look(self.walls, row, col, heading, self.vision_range, self.goal)

    def _step(self, action: str):
        if self.walker.done[0] or self.responses >= self.budget:
            raise RuntimeError("the episode is over; call reset() to start another")
        self.responses += 1
        info: dict = {}
        if self.ask_output:
            self.traj_scores.append(text.traj_match(text.parse_map(action, self.size), self.walls, self.walker.visited_map(0)))
        try:
            code = text.parse_action(action, cot=self.cot, ask_output=self.ask_output)
        except text.ParseError as error:
            self.parse_failures += 1
            info.update(parse="parse_failure", parsed=None)
            message = f"Your answer could not be parsed: {error}."
            outcome = None
        else:
            outcome = int(self.walker.step(np.array([code]))[0])
            self._look()
            info.update(parse="ok", parsed=_maze.ACTIONS[code])
            message = _FEEDBACK[outcome].format(direction="left" if code == _maze.TURN_LEFT else "right")
        success = outcome == REACHED_GOAL
        truncated = not success and self.responses >= self.budget
        reward = 1.0 if success else 0.0
        if success or truncated:
            info["episode"] = self._episode(success)
            self._release_scene()
            return observation(message if self.feedback else ""), reward, success, truncated, info
        return self._observation(message if self.feedback else ""), reward, False, False, info

    def _episode(self, success: bool) -> dict:
        w = self.walker
        cells = self.size * self.size
        return {
            "game": "maze3d",
            "size": self.size,
            "loop_rate": float(self.loop_rate),
            "modality": self.modality,
            "memory_map": self.memory_map,
            "minimap": self.minimap,
            "wall_tags": self.wall_tags,
            "ask_output": self.ask_output,
            "history": self.default_history,
            "cot": self.cot,
            "feedback": self.feedback,
            "success": bool(success),
            "steps": self.responses,
            "optimal_steps": self.maze.optimal_actions,
            "shortest_cells": self.maze.shortest_cells,
            "budget": self.budget,
            "efficiency": self.maze.optimal_actions / self.responses if success else None,
            "collisions": int(w.collisions[0]),
            "visited_cells": int(w.visited_count[0]),
            "cells": cells,
            "explore": int(w.visited_count[0]) / cells,
            "parse_failures": self.parse_failures,
            "traj_match": float(np.mean(self.traj_scores)) if self.traj_scores else None,
        }

    # -- observations ----------------------------------------------------------------------------
    def _observation(self, message: str) -> dict:
        row, col, heading = self.pose
        parts = [message] if message else []
        images = []
        if self.modality == "text":
            parts.append("You see:\n" + text.symbolic_view(self.walls, row, col, heading, self.goal, self.vision_range, self.tags))
        else:
            parts.append("Your view is the first image." if self.modality == "3d" else "The first image shows the cells around you.")
            images.append(self._frame())
        if self.minimap:
            if self.modality == "text":
                parts.append(self._memory_text())
            else:
                parts.append("The last image is your minimap (visited cells, your position and heading, walls you have seen).")
                images.append(self._minimap())
        if self.memory_map:
            parts.append(self._memory_text())
        parts.append(f"Actions left: {self.budget - self.responses}.")
        return observation("\n\n".join(parts), images=images)

    def _memory_text(self) -> str:
        row, col, heading = self.pose
        return text.memory_map(self.walls, self.sight.seen, self.walker.visited_map(0), row, col, heading, self.goal)

    def _map_view(self, with_memory: bool):
        from cogsim.render import MapView

        row, col, heading = self.pose
        if not with_memory:
            return MapView(self.walls, row, col, heading, goal=self.goal)
        goal = self.goal if self.sight.goal_seen else None
        return MapView(self.walls, row, col, heading, visited=self.walker.visited_map(0), seen=self.sight.seen, goal=goal)

    def _frame(self) -> np.ndarray:
        from cogsim.maze.views import shared_renderer
        from cogsim.render import Maze, ViewOptions

        renderer = shared_renderer()
        if self.modality == "patch":
            return renderer.patch(self._map_view(False), radius=self.patch_radius, size=self.image_size)[0]
        if self._scene is None:
            self._scene = renderer.mazes(Maze(self.walls, goal=self.goal, wall_tags=self.tags))
        row, col, heading = self.pose
        return self._scene.views(0, row, col, heading, ViewOptions(self.image_size, self.image_size))[0]

    def _minimap(self) -> np.ndarray:
        from cogsim.maze.views import shared_renderer

        return shared_renderer().minimap(self._map_view(True), size=self.image_size)[0]

    def _release_scene(self) -> None:
        if self._scene is not None:
            self._scene.release()
            self._scene = None

    def close(self) -> None:
        self._release_scene()
        super().close()

    # -- scripted agents -------------------------------------------------------------------------
    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        row, col, heading = self.pose
        if policy == "oracle":
            action = agents.oracle_action(self.walls, row, col, heading, self.goal)
            belief = self.walls
        elif policy == "explorer":
            action = agents.explorer_action(self.walls, self.sight, row, col, heading, self.goal)
            belief = self.sight.belief_walls(self.walls)
        elif policy == "forgetful":
            action = agents.forgetful_action(self.walls, self.sight, row, col, heading, self.goal, self.memory_map)
            belief = self.sight.belief_walls(self.walls, None if self.memory_map else agents.FORGETFUL_SPAN)
        elif policy == "random":
            action = agents.random_action(rng)
            belief = np.full(self.walls.shape, -1)
        else:
            raise ValueError(f"policy must be one of {', '.join(self.scripted_policies)}, got {policy!r}")
        return text.format_action(action, belief if self.ask_output else None)


def _wall_tags(walls: np.ndarray, seed: int) -> np.ndarray:
    """A colour tag (1..8) on about a third of the walls, the same on both faces of a wall."""
    n = walls.shape[0]
    rng = np.random.Generator(np.random.PCG64(seed ^ 0x7A65))
    tags = np.zeros((n, n, 4), np.uint8)
    for r in range(n):
        for c in range(n):
            for side in range(4):
                if not walls[r, c] & _maze.SIDE_BITS[side]:
                    continue
                dr, dc = _maze.DELTAS[side]
                nr, nc = r + dr, c + dc
                if side in (1, 2) and 0 <= nr < n and 0 <= nc < n:
                    continue  # an interior wall is tagged once, from the cell south or east of it
                tag = rng.integers(1, 9) if rng.random() < 1 / 3 else 0
                tags[r, c, side] = tag
                if 0 <= nr < n and 0 <= nc < n:
                    tags[nr, nc, (side + 2) % 4] = tag
    return tags


register("maze3d/nav", MazeNavEnv, description="RNG-Bench 3D Maze: egocentric navigation to the far corner (SR, Efficiency, Explore, Walls, GS)")

DEMO_SUITES = [
    {"env_id": "maze3d/nav", "options": {"size": 5, "modality": "text"}, "episodes": 4, "agents": ["oracle", "explorer", "random"]},
    {"env_id": "maze3d/nav", "options": {"size": 5, "image_size": 128, "minimap": True}, "episodes": 1, "agents": ["oracle"]},
]
