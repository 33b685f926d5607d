"""The release's invariance sweep: one item beside clean, occluded, darkened and recoloured images."""

from __future__ import annotations

from typing import Any

import numpy as np

from cogsim.benchmarks.cubebench import items as items_mod
from cogsim.benchmarks.cubebench import prompts, views
from cogsim.benchmarks.cubebench.envs.base import CubeBenchEnv, choice_info, tagged_answer
from cogsim.benchmarks.cubebench.items import LABELS
from cogsim.envs.base import observation


class InvarianceEnv(CubeBenchEnv):
    """The newest release's invariance sweep: one optimal-move item (the teacher's next move among
    four), asked four times with the same text state and question, each time beside another image
    of the state: clean, occluded by a black band, darkened (x 0.8) and recoloured (white<->yellow,
    orange<->red, green<->blue; the text stays authoritative). One turn per variant, each on its
    own (no history); the release decodes at most 64 new tokens. The episode records every
    variant's answer; the metrics give accuracy per variant and its change from clean."""

    test = "invariance"
    modalities = ("image+text",)
    default_modality = "image+text"

    def __init__(self, env_id: str = "", **options: Any):
        super().__init__(env_id, **options)
        self.system_prompt = prompts.INVARIANCE_SYSTEM

    def _reset(self, seed: int, options: dict) -> dict:
        self.item = self._load_item(seed)
        self.answers: list = []
        return self._variant_observation()

    def _variant(self) -> str:
        return items_mod.INVARIANCE_VARIANTS[len(self.answers)]

    def _variant_observation(self) -> dict:
        item = self.item
        text = prompts.INVARIANCE.format(
            state=self._state_text(item["facelets"]),
            depth=self.depth,
            options=prompts.lettered_options(LABELS, item["options"]),
        )
        image = views.variant_image(views.recolour(item["facelets"], self.colours), self._variant(), self.sticker)
        return observation(text, (image,), item["options"])

    def _step(self, action: str):
        parsed = self._parse_choice(action)
        correct = bool(parsed.ok and parsed.value == self.item["gold"])
        self.answers.append(
            {"variant": self._variant(), "parse": parsed.status, "answer": parsed.value, "correct": correct}
        )
        info = choice_info(parsed)
        if len(self.answers) < len(items_mod.INVARIANCE_VARIANTS):
            return self._variant_observation(), float(correct), False, False, info
        info["episode"] = self._episode(
            gold=self.item["gold"],
            variants=[a["variant"] for a in self.answers],
            answers=[a["answer"] for a in self.answers],
            parses=[a["parse"] for a in self.answers],
            correct=[a["correct"] for a in self.answers],
        )
        return observation(""), float(correct), True, False, info

    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        self._check_policy(policy)
        return tagged_answer(self.item["gold"] if policy == "oracle" else str(rng.choice(list(LABELS))))
