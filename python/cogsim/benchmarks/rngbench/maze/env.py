"""RNG-Bench 3D Maze: navigate an egocentric maze from the top-left cell to the bottom-right goal.

Defaults follow the released harness (InternLM/RNGBench ``2_3d_maze``, its evaluation sweep:
``--maze-type v6 --action-space v5``); see docs/fidelity.md.

Options (all keyword arguments of ``cogsim.make("maze3d/nav", ...)``):
    size (9): maze side n (odd, >= 3, for the release's generators; [2, 64] for "cogsim");
    generator ("v6" the release's sweep maze | "v5" the release's CLI maze, loops and clearings |
    "cogsim" the core's spanning tree plus extra openings): a seed gives the release's maze;
    step ("slide" the release's move_forward, to the next wall or junction | "cell" one cell);
    loop_rate (0.15): for "v5" and "cogsim"; modality ("3d" first-person frame | "patch" top-down
    3x3 patch | "text" the release's text-symbolic listing of the four sides); text_view
    ("release" | "ahead": cogsim's earlier corridor-ahead description); feedback (True): the
    release's "Result: ..." line about the last action; cot (True): Thought + Action, else the
    action line only; parser ("release" lenient | "strict" cogsim's); parse_failure ("retry": the
    release re-asks, up to parse_retries (2) times without using a step, then takes a random
    available action | "step": a failed parse uses a step and does nothing); minimap (False): the
    release's oracle condition, a map of what has been uncovered (cells stood on and their open
    neighbours); memory_map (False): cogsim's text oracle of seen walls; wall_tags (False);
    ask_output (False): the model also writes its wall map, scored by Traj-Match; history ("full" |
    "last:3" | "last:5" | "last:10" | "current"); window ("release": "last:K" trims as the release's
    history_window=K does | "exchanges": K whole earlier exchanges); vision_range (4);
    look ("release": the release's own pictures, pixel for pixel: the 640x420 raycast frame with its
    HUD and, with minimap=True, the minimap drawn into it; the 188x188 3x3 patch; sent as the release
    sends them, ``frame_format()``: JPEG quality 88 and 92 | "cogsim": cogsim's GL look, a separate
    minimap image, sent as PNG);
    show_goal (False: as the release, the 3D view never shows the goal | True: it does);
    image_size (256) and patch_radius (1): look="cogsim" only; max_steps (None: the release's max(4 L*, 80));
    prompt_file (None): a text file to use as the system prompt (e.g. the published one), with the
    plain placeholders {maze_size}, {wall_size}, {vision_range}, {max_steps}, {minimap_size} filled in
    ({{ and }} for literal braces); a run records its content. Unknown options are refused.
"""

from __future__ import annotations

import random
from typing import Optional

import numpy as np

from cogsim.benchmarks.rngbench.maze import agents, game, look, prompts, rules
from cogsim.benchmarks.rngbench.maze import parser as reply_parser
from cogsim.benchmarks.rngbench.maze.game import Sight
from cogsim.envs import register
from cogsim.envs.base import QuickReply, TextEnv, observation
from cogsim.envs.options import choice as _choice
from cogsim.envs.options import flag as _flag
from cogsim.envs.options import integer as _integer
from cogsim.envs.options import known as _known
from cogsim.envs.options import load_template

PROMPT_FIELDS = ("maze_size", "wall_size", "vision_range", "max_steps", "minimap_size")
MODALITIES = ("3d", "patch", "text")
HISTORIES = ("full", "last:3", "last:5", "last:10", "current")
OPTIONS = (
    "generator", "step", "size", "loop_rate", "modality", "text_view", "feedback", "cot", "parser", "parse_failure",
    "parse_retries", "memory_map", "minimap", "wall_tags", "ask_output", "history", "window", "vision_range",
    "image_size", "patch_radius", "max_steps", "prompt_file", "look", "show_goal",
)  # fmt: skip
LOOKS = ("release", "cogsim")
ARROW_KEYS = ("ArrowUp", "ArrowLeft", "ArrowRight")  # a person's keys for game.ACTIONS, in its order
VIEW_LABELS = {
    "3d": "Current 3D View:",
    "patch": "Local 2D map (the 3x3 cells around you, north up, no history):",
}


class MazeNavEnv(TextEnv):
    suite = "maze3d"
    default_history = "full"
    batches_frames = True
    scripted_policies = agents.POLICIES

    file_options = {"prompt_file": "text"}

    def __init__(self, env_id: str = "maze3d/nav", **options):
        _known(options, env_id, OPTIONS)
        super().__init__(env_id, **options)
        self.generator = _choice(options, "generator", "v6", rules.GENERATORS)
        self.step_mode = _choice(options, "step", "slide", rules.STEPS)
        self.size = _integer(options, "size", 9, game.MIN_SIZE, game.MAX_SIZE)
        if self.generator != "cogsim":
            rules.check_release_size(self.size)
        self.loop_rate = options.get("loop_rate", game.DEFAULT_LOOP_RATE)
        if (
            isinstance(self.loop_rate, bool)
            or not isinstance(self.loop_rate, (int, float))
            or not 0 <= self.loop_rate <= 1
        ):
            raise ValueError(f"loop_rate must be a number in [0, 1], got {self.loop_rate!r}")
        self.modality = _choice(options, "modality", "3d", MODALITIES)
        self.text_view = _choice(options, "text_view", "release", ("release", "ahead"))
        self.feedback = _flag(options, "feedback", True)
        self.cot = _flag(options, "cot", True)
        self.parser = _choice(options, "parser", "release", reply_parser.PARSERS)
        self.parse_failure = _choice(options, "parse_failure", "retry", ("retry", "step"))
        self.parse_retries = _integer(options, "parse_retries", 2, 0, 100)
        self.memory_map = _flag(options, "memory_map", False)
        self.minimap = _flag(options, "minimap", False)
        self.wall_tags = _flag(options, "wall_tags", False)
        self.ask_output = _flag(options, "ask_output", False)
        self.history = _choice(options, "history", "full", HISTORIES)
        self.window = _choice(options, "window", "release", ("release", "exchanges"))
        if self.history.startswith("last:") and self.window == "release":
            self.default_history = "window:" + self.history.partition(":")[2]
        else:
            self.default_history = self.history
        self.vision_range = _integer(options, "vision_range", 4, 1, 64)
        self.image_size = _integer(options, "image_size", 256, 32, 2048)
        self.patch_radius = _integer(options, "patch_radius", 1, 1, 8)
        self.max_steps = _integer(options, "max_steps", None, 1, 100_000)
        self.look = _choice(options, "look", "release", LOOKS)
        self.show_goal = _flag(options, "show_goal", False)
        if self.look == "release":
            _check_release_look(options, self.modality, self.minimap, self.wall_tags)
        prompt_file = options.get("prompt_file")
        self.prompt_template = (
            load_template(prompt_file, PROMPT_FIELDS, "prompt_file") if prompt_file is not None else None
        )
        self._scene = None

    # -- episode ---------------------------------------------------------------------------------
    def _reset(self, seed: int, options: dict) -> dict:
        self.maze = game.generate(self.size, seed, float(self.loop_rate), self.generator, self.step_mode)
        self.walls = self.maze.walls
        self.goal = self.maze.goal
        self.tags = _wall_tags(self.walls, seed) if self.wall_tags else None
        self.row, self.col, self.heading = 0, 0, game.START_HEADING
        self.visited = np.zeros((self.size, self.size), bool)
        self.visited[0, 0] = True
        self.sight = Sight(self.size)
        self.budget = self.max_steps or self.maze.step_budget()
        self.actions_taken = self.collisions = self.turns = self.fallbacks = 0
        self.responses = self.parse_failures = self.failed_in_a_row = 0
        self.fallback_rng = random.Random(0)  # the release's runner: fallback_rng_seed=0, one per episode
        self.reached = False
        self.prefix = ""
        self.traj_scores: list[float] = []
        self._release_scene()
        self._block_world = look.BlockWorld.of(self.walls)
        self._look()
        self.system_prompt = self._system_prompt()
        return self._observation()

    def _system_prompt(self) -> str:
        if self.prompt_template is not None:
            return self.prompt_template.fill(
                maze_size=self.size,
                wall_size=2 * self.size + 1,
                vision_range=self.vision_range,
                max_steps=self.budget,
                minimap_size=140,
            )
        return prompts.task_prompt(
            self.size,
            self.budget,
            self.modality,
            self.cot,
            self.ask_output,
            self.wall_tags,
            self.step_mode,
            self.vision_range,
            self.minimap,
            self.parser,
        )

    @property
    def pose(self) -> tuple[int, int, int]:
        return self.row, self.col, self.heading

    def _look(self) -> None:
        self.sight.look(self.walls, self.row, self.col, self.heading, self.vision_range, self.goal)

    def available_actions(self) -> list[str]:
        return rules.available_actions(self.walls, self.row, self.col, self.heading)

    def _act(self, code: int) -> tuple[bool, str]:
        """Apply one action (the release's MazeGame3D.move in action space v5)."""
        before = self.heading
        self.actions_taken += 1
        cells: list = []
        if code == game.FORWARD:
            cells = rules.advance(self.walls, self.row, self.col, self.heading, self.goal, self.step_mode)
            for r, c in cells:
                self.row, self.col = r, c
                self.visited[r, c] = True
                self._look()  # the walker sees each cell it passes
            if not cells:
                self.collisions += 1
        else:
            self.turns += 1
            self.heading = (self.heading + (3 if code == game.TURN_LEFT else 1)) % 4
            self._look()
        self.reached = (self.row, self.col) == tuple(self.goal)
        return prompts.action_result(code, before, self.heading, cells, (self.row, self.col), self.reached)

    def _step(self, action: str):
        if self.reached or self.actions_taken >= self.budget:
            raise RuntimeError("the episode is over; call reset() to start another")
        self.responses += 1
        info: dict = {}
        if self.ask_output:
            self.traj_scores.append(
                reply_parser.traj_match(reply_parser.parse_map(action, self.size), self.walls, self.visited)
            )
        try:
            code = reply_parser.parse_action(action, cot=self.cot, ask_output=self.ask_output, parser=self.parser)
        except reply_parser.ParseError as error:
            self.parse_failures += 1
            self.failed_in_a_row += 1
            info.update(parse="parse_failure", parsed=None)
            if self.parse_failure == "retry":
                if self.failed_in_a_row <= self.parse_retries:
                    info["retry"] = self.failed_in_a_row
                    return observation(prompts.retry_text()), 0.0, False, False, info
                available = self.available_actions()
                code = game.ACTIONS.index(self.fallback_rng.choice(available))
                self.fallbacks += 1
                info["fallback"] = game.ACTIONS[code]
            else:
                self.failed_in_a_row = 0
                self.actions_taken += 1
                message = f"Your answer could not be parsed: {error}."
                return self._after(info, f"Result: {message}\n\n")
        else:
            info.update(parse="ok", parsed=game.ACTIONS[code])
        self.failed_in_a_row = 0
        success, message = self._act(code)
        info["action_ok"] = success
        return self._after(info, prompts.feedback_text(code, success, message, (self.row, self.col)))

    def _after(self, info: dict, prefix: str):
        self.prefix = prefix if self.feedback else ""
        success = self.reached
        truncated = not success and self.actions_taken >= self.budget
        reward = 1.0 if success else 0.0
        if success or truncated:
            info["episode"] = self._episode(success)
            self._release_scene()
            if success:
                closing = f"Game over! You reached the goal in {self.actions_taken} steps! Optimal was {self.maze.optimal_actions} actions."
            else:
                closing = f"Game terminated: max steps ({self.budget}) reached without finding the goal."
            return observation(self.prefix + closing), reward, success, truncated, info
        return self._observation(), reward, False, False, info

    def _episode(self, success: bool) -> dict:
        cells = self.size * self.size
        visited = int(self.visited.sum())
        return {
            "game": "maze3d",
            "size": self.size,
            "generator": self.generator,
            "step": self.step_mode,
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
            "steps": self.actions_taken,
            "responses": self.responses,
            "optimal_steps": self.maze.optimal_actions,
            "shortest_cells": self.maze.shortest_cells,
            "budget": self.budget,
            "efficiency": self.maze.optimal_actions / max(self.actions_taken, 1) if success else None,
            "collisions": self.collisions,
            "turns": self.turns,
            "visited_cells": visited,
            "cells": cells,
            "explore": visited / cells,
            "parse_failures": self.parse_failures,
            "fallbacks": self.fallbacks,
            "traj_match": float(np.mean(self.traj_scores)) if self.traj_scores else None,
            **self._frames_record(),
        }

    def shows_pictures(self) -> bool:
        return self.modality != "text"

    def _frames_record(self) -> dict:
        """The pictures the episode showed (``pictures_record``), and whether the 3D view drew the goal
        (cogsim's option; the release never does)."""
        record = self.pictures_record()
        if self.modality == "3d":
            record["show_goal"] = self.show_goal
        return record

    # -- observations ----------------------------------------------------------------------------
    def _observation(self) -> dict:
        """The release's turn: the last action's result, the view, the info block."""
        row, col, heading = self.pose
        parts = [self.prefix.rstrip("\n")] if self.prefix else []
        images = []
        if self.modality == "text":
            if self.text_view == "release":
                parts.append(rules.local_text(self.walls, row, col, heading, self.goal))
            else:
                parts.append(
                    "You see:\n"
                    + prompts.symbolic_view(self.walls, row, col, heading, self.goal, self.vision_range, self.tags)
                )
        else:
            parts.append(VIEW_LABELS[self.modality])
            images.append(self._frame())
        if self.minimap:
            if self.modality == "text":
                parts.append(self._minimap_text())
            elif self.look == "release":
                pass  # the release draws its minimap into the frame
            else:
                parts.append(
                    "Minimap (the last image): the cells uncovered so far, their walls, your position and heading."
                )
                images.append(self._minimap())
        if self.memory_map:
            parts.append(self._memory_text())
        parts.append(
            prompts.step_text(
                self.actions_taken + 1,
                row,
                col,
                heading,
                self.goal,
                self.actions_taken,
                int(self.visited.sum()),
                self.size * self.size,
                self.available_actions(),
            )
        )
        return observation("\n\n".join(parts), images=images)

    def _memory_text(self) -> str:
        row, col, heading = self.pose
        return prompts.memory_map(self.walls, self.sight.seen, self.visited, row, col, heading, self.goal)

    def _minimap_text(self) -> str:
        """The release's minimap as text: uncovered cells (stood on, or an open neighbour of one) and their sides."""
        row, col, heading = self.pose
        drawing = prompts.memory_map(
            self.walls, rules.revealed_sides(self.walls, self.visited), self.visited, row, col, heading, self.goal
        )
        return drawing.replace("Memory map", "Minimap", 1)

    def _map_view(self, with_memory: bool):
        from cogsim.benchmarks.rngbench.maze.cogsim_look import MapView

        row, col, heading = self.pose
        if not with_memory:
            return MapView(self.walls, row, col, heading, goal=self.goal)
        revealed = rules.revealed_cells(self.walls, self.visited)
        goal = self.goal if revealed[tuple(self.goal)] else None
        return MapView(
            self.walls,
            row,
            col,
            heading,
            visited=self.visited,
            seen=rules.revealed_sides(self.walls, self.visited),
            goal=goal,
        )

    def _frame(self) -> np.ndarray:
        if self.look == "release":
            return self._release_frame()
        from cogsim.benchmarks.rngbench.maze.cogsim_look import Maze, ViewOptions

        renderer = self.renderer()
        if self.modality == "patch":
            return renderer.patch(self._map_view(False), radius=self.patch_radius, size=self.image_size)[0]
        if self._scene is None:
            goal = self.goal if self.show_goal else None
            self._scene = renderer.mazes(Maze(self.walls, goal=goal, wall_tags=self.tags))
        row, col, heading = self.pose
        return self._scene.views(0, row, col, heading, ViewOptions(self.image_size, self.image_size))[0]

    def _release_frame(self) -> np.ndarray:
        row, col, heading = self.pose
        state = look.MazeState(
            self._block_world, row, col, heading, self.visited, self.actions_taken, self.vision_range
        )
        if self.modality == "patch":
            return look.patches([state])[0]
        return look.frames([state], minimap=self.minimap, show_goal=self.show_goal)[0]

    def frame_format(self) -> dict:
        """How the frames are sent: as the release sends them (JPEG quality 88, the patch 92) in its look,
        PNG in cogsim's."""
        if self.look == "release" and self.modality != "text":
            return dict(look.FRAME_FORMATS[self.modality])
        return {"format": "png"}

    def frames_drawn_by(self) -> Optional[dict]:
        if self.modality == "text":
            return None
        if self.look == "release":
            return {"look": "release", "path": "cpu", "gl_renderer": None}
        return super().frames_drawn_by()

    def _minimap(self) -> np.ndarray:
        return self.renderer().minimap(self._map_view(True), size=self.image_size)[0]

    def _release_scene(self) -> None:
        if self._scene is not None:
            self._scene.release()
            self._scene = None

    def close(self) -> None:
        self._release_scene()
        super().close()

    def quick_replies(self) -> tuple[QuickReply, ...]:
        """The available moves on the arrow keys (up: forward; left and right: turns), each as its
        ``Action:`` line; none where the answer must carry a map too (``ask_output``)."""
        if self.ask_output or not hasattr(self, "budget") or self.reached or self.actions_taken >= self.budget:
            return ()
        available = self.available_actions()
        return tuple(
            QuickReply(key, name.replace("_", " "), reply_parser.format_action(game.ACTIONS.index(name)))
            for key, name in zip(ARROW_KEYS, game.ACTIONS)
            if name in available
        )

    # -- scripted agents -------------------------------------------------------------------------
    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        row, col, heading = self.pose
        step = self.step_mode
        if policy == "oracle":
            action = agents.oracle_action(self.walls, row, col, heading, self.goal, step)
            belief = self.walls
        elif policy == "explorer":
            action = agents.explorer_action(self.walls, self.sight, row, col, heading, self.goal, step)
            belief = self.sight.belief_walls(self.walls)
        elif policy == "forgetful":
            sides = rules.revealed_sides(self.walls, self.visited) if self.minimap else None
            belief = agents.forgetful_belief(self.walls, self.sight, self.memory_map, sides)
            action = agents.forgetful_action(
                self.walls, self.sight, row, col, heading, self.goal, self.memory_map, step, sides
            )
        elif policy == "random":
            action = agents.random_action(rng)
            belief = np.full(self.walls.shape, -1)
        else:
            raise ValueError(f"policy must be one of {', '.join(self.scripted_policies)}, got {policy!r}")
        return reply_parser.format_action(action, belief if self.ask_output else None)


def _check_release_look(options: dict, modality: str, minimap: bool, wall_tags: bool) -> None:
    """Options that only cogsim's look can honour, refused with look="release"."""
    if "image_size" in options:
        raise ValueError("image_size is for look='cogsim': the release's frames are 640x420 (3d) and 188x188 (patch)")
    if options.get("patch_radius", 1) != 1:
        raise ValueError("patch_radius other than 1 needs look='cogsim': the release's patch shows the 3x3 cells")
    if wall_tags and modality != "text":
        raise ValueError("wall_tags=True with an image modality needs look='cogsim': the release draws no wall tags")
    if minimap and modality == "patch":
        raise ValueError(
            "minimap=True with modality='patch' needs look='cogsim': the release draws its minimap only into the 3D frame"
        )


def _wall_tags(walls: np.ndarray, seed: int) -> np.ndarray:
    """A colour tag (1..8) on about a third of the walls, the same on both faces of a wall."""
    n = walls.shape[0]
    rng = np.random.Generator(np.random.PCG64(seed ^ 0x7A65))
    tags = np.zeros((n, n, 4), np.uint8)
    for r in range(n):
        for c in range(n):
            for side in range(4):
                if not walls[r, c] & game.SIDE_BITS[side]:
                    continue
                dr, dc = game.DELTAS[side]
                nr, nc = r + dr, c + dc
                if side in (1, 2) and 0 <= nr < n and 0 <= nc < n:
                    continue  # an interior wall is tagged once, from the cell south or east of it
                tag = rng.integers(1, 9) if rng.random() < 1 / 3 else 0
                tags[r, c, side] = tag
                if 0 <= nr < n and 0 <= nc < n:
                    tags[nr, nc, (side + 2) % 4] = tag
    return tags


register(
    "maze3d/nav",
    MazeNavEnv,
    description="RNG-Bench 3D Maze: egocentric navigation to the far corner (SR, Efficiency, Explore, Walls, GS)",
)

DEMO_SUITES = [
    {
        "env_id": "maze3d/nav",
        "options": {"size": 5, "modality": "text"},
        "episodes": 4,
        "agents": ["oracle", "explorer", "random"],
    },
    {
        "env_id": "maze3d/nav",
        "options": {"size": 5, "minimap": True},
        "episodes": 1,
        "agents": ["oracle"],
    },
]
