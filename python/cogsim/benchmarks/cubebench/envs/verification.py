"""Test 2, verification: does a textual Front-face grid match the image? (Yes/No)"""

from __future__ import annotations

from typing import Any

import numpy as np

from cogsim.benchmarks.cubebench import prompts, views
from cogsim.benchmarks.cubebench.envs.base import CubeBenchEnv, choice_info
from cogsim.envs.base import QuickReply, observation
from cogsim.envs.options import choice

NEGATIVE_KINDS = ("image-move", "text-edit")


class VerificationEnv(CubeBenchEnv):
    """Image plus a textual Front-face grid. Under the newest release's layout the grid comes in a
    claim, affirmative ("is exactly this") or negated ("is NOT this"), and the answer says whether
    the claim is true (Yes/No); otherwise the question is whether the text matches the image.
    ``negatives``: "image-move" (default, the paper: the image shows the cube one face turn later)
    or "text-edit" (cogsim's layout only: the text is edited instead, sticker edits or the face after
    one extra move)."""

    test = "verification"
    test_options = ("negatives",)
    modalities = ("image",)
    default_modality = "image"

    def __init__(self, env_id: str = "", negatives: str = "image-move", **options: Any):
        super().__init__(env_id, negatives=negatives, **options)
        self.negatives = choice({"negatives": negatives}, "negatives", "image-move", NEGATIVE_KINDS)
        self.system_prompt = prompts.VERIFICATION_SYSTEM

    def _reset(self, seed: int, options: dict) -> dict:
        self.item = item = self._load_item(seed)
        shown, image = item["shown_grid"], item["image_facelets"]
        if self.negatives == "text-edit" and item["text_edit"] is not None:
            shown, image = item["text_edit"]["shown_grid"], item["facelets"]
        grid = views.grid_text(self._grid(shown))
        if item.get("layout") == "release":
            self.system_prompt = prompts.CLAIM_SYSTEM
            claim = prompts.CLAIMS[item["polarity"]][item["claim_form"]].format(grid=grid)
            text = prompts.CLAIM.format(layout=prompts.NET_LAYOUT, colours=prompts.COLOUR_KEY, claim=claim)
        else:
            self.system_prompt = prompts.VERIFICATION_SYSTEM
            text = prompts.VERIFICATION.format(layout=prompts.NET_LAYOUT, colours=prompts.COLOUR_KEY, grid=grid)
        return observation(text, self._images(image))

    def _step(self, action: str):
        parsed = self._parse_yes_no(action)
        correct = parsed.ok and parsed.value == self.item["gold"]
        kind = (
            None
            if self.item["gold"] == "Yes"
            else (self.item["text_edit"]["kind"] if self.negatives == "text-edit" else self.item["negative_kind"])
        )
        episode = self._episode(
            parse=parsed.status,
            answer=parsed.value,
            gold=self.item["gold"],
            correct=bool(correct),
            negatives=self.negatives,
            negative_kind=kind,
            polarity=self.item.get("polarity", "affirmative"),
            template=f"{self.item.get('polarity', 'affirmative')}:{self.item.get('claim_form', 0)}",
            states_match=self.item.get("states_match", self.item["gold"] == "Yes"),
        )
        return observation(""), float(correct), True, False, {**choice_info(parsed), "episode": episode}

    def quick_replies(self) -> tuple[QuickReply, ...]:
        return (QuickReply("Y", "Yes", "Answer: Yes"), QuickReply("N", "No", "Answer: No")) if self._running else ()

    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        self._check_policy(policy)
        return f"Answer: {self.item['gold'] if policy == 'oracle' else str(rng.choice(['Yes', 'No']))}"
