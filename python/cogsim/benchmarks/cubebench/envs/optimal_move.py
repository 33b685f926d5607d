"""Test 3, optimal move: pick the optimal next move among four options."""

from __future__ import annotations

from typing import Any

import numpy as np

from cogsim.benchmarks.cubebench import parser as parsers
from cogsim.benchmarks.cubebench import prompts
from cogsim.benchmarks.cubebench.envs.base import CubeBenchEnv, choice_info, tagged_answer
from cogsim.benchmarks.cubebench.items import LABELS
from cogsim.envs.base import observation


class OptimalMoveEnv(CubeBenchEnv):
    """Four moves, one of which (the teacher's next move) reduces the distance by one."""

    test = "optimal-move"

    def __init__(self, env_id: str = "", **options: Any):
        super().__init__(env_id, **options)
        self.system_prompt = self._draft_system_prompt()

    def _draft_system_prompt(self) -> str:
        return prompts.OPTIMAL_MOVE_SYSTEM.format(distance=self.depth, target=self.depth - 1, notation=prompts.NOTATION)

    def _reset(self, seed: int, options: dict) -> dict:
        self.item = self._load_item(seed)
        return self._question()

    def _question(self) -> dict:
        item = self.item
        text = prompts.OPTIMAL_MOVE.format(
            state=self._state_block(item["facelets"]),
            options=prompts.option_lines(LABELS, item["options"]),
            answer_format=prompts.tag_format(LABELS),
        )
        return observation(text, self._images(item["facelets"]), item["options"])

    def _outcome(self, parsed: parsers.Parsed) -> dict:
        chosen = self.item["options"][LABELS.index(parsed.value)] if parsed.ok else None
        return {
            "parse": parsed.status,
            "answer": parsed.value,
            "gold": self.item["gold"],
            "correct": bool(parsed.ok and parsed.value == self.item["gold"]),
            "chosen_move": chosen,
            "chosen_effect": self.item["effects"][chosen] if chosen else None,
        }

    def _step(self, action: str):
        parsed = self._parse_choice(action, options=self.item["options"])
        episode = self._episode(**self._outcome(parsed))
        return observation(""), float(episode["correct"]), True, False, {**choice_info(parsed), "episode": episode}

    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        self._check_policy(policy)
        return tagged_answer(self.item["gold"] if policy == "oracle" else str(rng.choice(list(LABELS))))
