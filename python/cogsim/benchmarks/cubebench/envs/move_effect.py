"""Test 6, move effect: label four candidate moves DECREASE / NO_CHANGE / INCREASE of distance."""

from __future__ import annotations

from typing import Any

import numpy as np

from cogsim.benchmarks.cubebench import parser as parsers
from cogsim.benchmarks.cubebench import prompts, views
from cogsim.benchmarks.cubebench.envs.base import CubeBenchEnv
from cogsim.benchmarks.cubebench.items import LABELS
from cogsim.envs.base import QuickReply, observation


class MoveEffectEnv(CubeBenchEnv):
    """Label each of the four candidate moves A-D: does it DECREASE, do NO_CHANGE to, or INCREASE
    the distance to solved? (Paper: one answer line per option; the text state is ground truth and
    the paper shows no image, so the default modality is text.)"""

    test = "move-effect"
    default_modality = "text"

    def __init__(self, env_id: str = "", **options: Any):
        super().__init__(env_id, **options)
        self.system_prompt = prompts.MOVE_EFFECT_SYSTEM.format(notation=prompts.NOTATION)

    def _reset(self, seed: int, options: dict) -> dict:
        self.item = item = self._load_item(seed)
        text = prompts.MOVE_EFFECT.format(
            centres=views.centres_text(views.recolour(item["facelets"], self.colours)),
            state=self._state_block(item["facelets"]),
            options=prompts.option_lines(LABELS, item["options"]),
        )
        return observation(text, self._images(item["facelets"]), item["options"])

    def _step(self, action: str):
        parsed = self._parse_effects(action)
        gold = self.item["gold_labels"]
        answers = list(parsed.value) if parsed.ok else None
        correct = sum(a == g for a, g in zip(answers, gold)) if answers else 0
        episode = self._episode(
            parse=parsed.status, answers=answers, gold_labels=list(gold), labels_correct=correct, labels_total=len(gold)
        )
        info = {"parse": parsed.status, "parsed": answers, "episode": episode}
        return observation(""), correct / len(gold), True, False, info

    def quick_replies(self) -> tuple[QuickReply, ...]:
        return ()  # an effect per option, typed: no one press answers it

    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        self._check_policy(policy)
        labels = (
            self.item["gold_labels"] if policy == "oracle" else [str(rng.choice(parsers.EFFECT_LABELS)) for _ in LABELS]
        )
        return "\n".join(f"<{letter}> {label} </{letter}>" for letter, label in zip(LABELS, labels))
