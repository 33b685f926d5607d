"""Test 7, recovery: recover from the first failure under accept-progress control."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from cogsim import cube
from cogsim.benchmarks.cubebench import items as items_mod
from cogsim.benchmarks.cubebench import parser as parsers
from cogsim.benchmarks.cubebench import prompts, views
from cogsim.benchmarks.cubebench.envs.base import CubeBenchEnv, choice_info, tagged_answer
from cogsim.benchmarks.cubebench.envs.closed_loop import step_system_prompt
from cogsim.benchmarks.cubebench.items import LABELS
from cogsim.cube import Cube
from cogsim.envs.base import observation
from cogsim.envs.options import choice

RECOVERY_STARTS = ("closed-loop", "injected")


class RecoveryEnv(CubeBenchEnv):
    """The paper's learning curve: closed-loop steps until the first failure (a non-progress move,
    applied, or a parse failure, nothing applied), then up to ``budget`` further decisions (depth + 3:
    4-7 at depths 1-4) under accept-progress control: the teacher's move is applied and popped; another
    progress move is applied and the teacher replans; any other move is applied and its inverse is
    pushed onto the plan. A parse failure during recovery uses up a decision. Every step offers one
    progress move and three non-progress moves.

    start="closed-loop" (default, the paper) recovers from the model's own first failure; episodes
    without one (solved within the horizon, which is the depth) record failure_step None and do not
    enter the learning-curve statistics. start="injected" starts every model from the item's seeded
    non-progress move instead (identical recovery states for every model, and an oracle check)."""

    test = "recovery"
    test_options = ("start",)

    def __init__(self, env_id: str = "", start: str = "closed-loop", **options: Any):
        super().__init__(env_id, start=start, **options)
        self.start = choice({"start": start}, "start", "closed-loop", RECOVERY_STARTS)
        self.system_prompt = step_system_prompt(False)

    def _reset(self, seed: int, options: dict) -> dict:
        self.item = item = self._load_item(seed)
        self.outcomes, self.distances, self.steps_used = [], [], 0
        if self.start == "injected":
            self._enter_recovery(
                Cube.from_facelets(item["recovery_facelets"]),
                list(item["recovery_teacher"]),
                failure_step=0,
                failure_move=item["failure_move"],
            )
        else:
            self.phase, self.state, self.plan = "probe", Cube.from_facelets(item["facelets"]), list(item["teacher"])
            self.failure_step, self.failure_move = None, None
        return self._step_observation()

    def _enter_recovery(self, state: Cube, plan: list, failure_step: int, failure_move: Optional[str]) -> None:
        self.phase, self.state, self.plan = "recover", state, plan
        self.failure_step, self.failure_move = failure_step, failure_move
        self.distances = [cube.distance(state)]

    def _options(self) -> dict:
        """Seeded by the item and the trajectory so far; the progress option at a balanced slot."""
        step_key = len(self.outcomes)
        rng = items_mod.item_rng(
            "recovery-step", self.depth, self.item["seed"], self.phase, step_key, self.state.to_facelets()
        )
        slot = items_mod.balanced_position(self.item["index"], 4, "recovery", self.depth, self.phase, step_key)
        return items_mod.progress_options(self.state, rng, slot)

    def _step_observation(self) -> dict:
        self.current = self._options()
        facelets = self.state.to_facelets()
        text = prompts.STEP.format(
            distance=cube.distance(self.state),
            state=self._state_block(facelets),
            options=prompts.option_lines(LABELS, self.current["options"]),
            answer_format=prompts.tag_format(LABELS),
        )
        return observation(text, self._images(facelets), self.current["options"])

    def _step(self, action: str):
        parsed = self._parse_choice(action)
        info = choice_info(parsed)
        chosen = self.current["options"][LABELS.index(parsed.value)] if parsed.ok else None
        done = self._probe(chosen, parsed.status) if self.phase == "probe" else self._recover(chosen, parsed.status)
        if done:
            return self._end(info)
        return self._step_observation(), 0.0, False, False, info

    def _probe(self, chosen: Optional[str], status: str) -> bool:
        if chosen is None:  # a parse failure is the first failure; nothing is applied
            self.outcomes.append(status)
            self._enter_recovery(self.state, self.plan, failure_step=len(self.outcomes), failure_move=None)
            return False
        if self.current["effects"][chosen] == "DECREASE":
            self.outcomes.append("probe_progress")
            self.state = self.state.apply(chosen)
            self.plan = self.plan[1:] if chosen == self.plan[0] else cube.solve(self.state)
            return self.state.is_solved() or len(self.outcomes) >= self.item["horizon"]
        self.outcomes.append("probe_failure")
        self._enter_recovery(
            self.state.apply(chosen),
            [views.inverse_move(chosen)] + self.plan,
            failure_step=len(self.outcomes),
            failure_move=chosen,
        )
        return False

    def _recover(self, chosen: Optional[str], status: str) -> bool:
        self.steps_used += 1
        if chosen is None:
            self.outcomes.append(status)
        else:
            self.state = self.state.apply(chosen)
            if chosen == self.plan[0]:
                self.outcomes.append("teacher")
                self.plan = self.plan[1:]
            elif self.current["effects"][chosen] == "DECREASE":
                self.outcomes.append("progress")
                self.plan = cube.solve(self.state)
            else:
                self.outcomes.append("off_path")
                self.plan = [views.inverse_move(chosen)] + self.plan
        self.distances.append(cube.distance(self.state))
        return self.state.is_solved() or self.steps_used >= self.item["budget"]

    def _end(self, info: dict):
        solved = self.phase == "recover" and self.state.is_solved()
        info["episode"] = self._episode(
            start=self.start,
            failure_step=self.failure_step,
            failure_move=self.failure_move,
            budget=self.item["budget"],
            horizon=self.item["horizon"],
            steps_used=self.steps_used,
            solved=solved,
            solved_at=self.steps_used if solved else None,
            distances=[int(d) for d in self.distances],
            outcomes=list(self.outcomes),
            parse_failures=sum(o in (parsers.PARSE_FAILURE, parsers.INVALID) for o in self.outcomes),
        )
        return observation(""), float(solved), True, False, info

    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        self._check_policy(policy)
        return tagged_answer(self.current["gold"] if policy == "oracle" else str(rng.choice(list(LABELS))))
