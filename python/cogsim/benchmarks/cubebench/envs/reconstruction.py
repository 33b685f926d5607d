"""Test 1, reconstruction: read the Front face off a cube-net image as a 3x3 grid of colours."""

from __future__ import annotations

from typing import Any

import numpy as np

from cogsim.benchmarks.cubebench import parser as parsers
from cogsim.benchmarks.cubebench import prompts, views
from cogsim.benchmarks.cubebench.envs.base import CubeBenchEnv
from cogsim.envs.base import observation


class ReconstructionEnv(CubeBenchEnv):
    """Image only: write the Front face as a 3x3 grid of colour letters."""

    test = "reconstruction"
    modalities = ("image",)
    default_modality = "image"

    def __init__(self, env_id: str = "", **options: Any):
        super().__init__(env_id, **options)
        self.system_prompt = prompts.RECONSTRUCTION_SYSTEM

    def _reset(self, seed: int, options: dict) -> dict:
        self.item = self._load_item(seed)
        text = prompts.RECONSTRUCTION.format(layout=prompts.NET_LAYOUT, colours=prompts.COLOUR_KEY)
        return observation(text, self._images(self.item["facelets"]))

    def _step(self, action: str):
        parsed = self._parse_grid(action)
        gold = self._grid(self.item["gold_grid"])
        predicted = list(parsed.value) if parsed.ok else None
        stickers = sum(a == b for p, g in zip(predicted, gold) for a, b in zip(p, g)) if predicted else 0
        episode = self._episode(
            parse=parsed.status,
            predicted_grid=predicted,
            gold_grid=gold,
            stickers_correct=stickers,
            matrix_correct=stickers == 9,
        )
        info = {"parse": parsed.status, "parsed": predicted, "episode": episode}
        return observation(""), float(stickers == 9), True, False, info

    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        self._check_policy(policy)
        rows = (
            self._grid(self.item["gold_grid"])
            if policy == "oracle"
            else ["".join(rng.choice(list(parsers.COLOURS), size=3)) for _ in range(3)]
        )
        return (
            "ANSWER:\n"
            + "\n".join(
                f"Row {k}: [{', '.join(views.COLOUR_NAMES[c].capitalize() for c in row)}]"
                for k, row in enumerate(rows, 1)
            )
            + "\nAnswer verified for correctness."
        )
