"""A look never changes the game, in every image benchmark: for the same env id, options and seed,
``look="release"`` and ``look="cogsim"`` give the same texts, choices, players, rewards, endings and
episode outcomes; only the pictures (and their record: look, frames, release files) differ. KidGym's
scenes are compared on every task and level in ``kidgym/test_kidgym_cogsim_look_scenes.py``."""

from __future__ import annotations

import numpy as np
import pytest

import cogsim

PICTURE_FIELDS = {"look", "frames", "release_assets", "pillow", "protocol"}
# The one paragraph of a turn that is about the pictures: cogsim's look of the 3D maze sends the minimap as an
# image of its own (the release draws it into the view) and says which image it is.
PICTURE_LINES = ("Minimap (the last image):",)
CASES = [
    *((f"cube/{test}", {"modality": "image", "depth": 2}) for test in ("reconstruction", "verification")),
    *((f"cube/{test}", {"modality": "image", "depth": 1}) for test in ("optimal-move", "move-effect", "reflection")),
    ("cube/closed-loop", {"modality": "image", "depth": 2}),
    ("cube/recovery", {"modality": "image", "depth": 2}),
    ("cube/invariance", {"modality": "image+text", "depth": 1}),
    ("pairs/single", {"modality": "image", "rows": 2, "cols": 4, "theme": "ascii"}),
    ("pairs/duel", {"modality": "image", "rows": 2, "cols": 2, "theme": "ascii"}),
    ("maze3d/nav", {"modality": "3d", "size": 5}),
    ("maze3d/nav", {"modality": "patch", "size": 5}),
    ("maze3d/nav", {"modality": "3d", "size": 5, "minimap": True}),
    ("kidgym/decode_maze", {"level": 2}),
]


def _game(info: dict) -> dict:
    """What a step's info says about the game, without the pictures' record."""
    out = {k: v for k, v in info.items() if k != "episode"}
    if "episode" in info:
        out["episode"] = {k: v for k, v in info["episode"].items() if k not in PICTURE_FIELDS}
    return out


def _text(text: str) -> str:
    """The turn's text without the paragraph that is about the pictures."""
    return "\n\n".join(part for part in text.split("\n\n") if not part.startswith(PICTURE_LINES))


def play(env_id: str, options: dict, look: str, seed: int, policy: str) -> list:
    env = cogsim.make(env_id, look=look, **options)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    steps = [(_text(obs["text"]), tuple(obs["options"]), obs["player"], bool(obs["images"]))]
    for _ in range(200):
        obs, reward, terminated, truncated, info = env.step(env.scripted_response(policy, rng))
        steps.append(
            (_text(obs["text"]), tuple(obs["options"]), obs["player"], reward, terminated, truncated, _game(info))
        )
        if terminated or truncated:
            break
    env.close()
    return steps


@pytest.mark.parametrize("env_id, options", CASES, ids=[f"{e}-{next(iter(o.values()))}" for e, o in CASES])
def test_release_and_cogsim_looks_play_the_same_game(env_id, options):
    for seed, policy in ((0, "oracle"), (1, "random")):
        release = play(env_id, options, "release", seed, policy)
        own = play(env_id, options, "cogsim", seed, policy)
        assert release[0][3] and own[0][3], "both looks show pictures"
        assert release == own, f"{env_id} seed {seed} {policy}: the looks play different games"
