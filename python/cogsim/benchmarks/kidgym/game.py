"""The KidGym game: one task played with the release's mechanics (the core's engine), whatever draws it:
episodes, their goal and action texts (the release's templates, ``cogsim.benchmarks.kidgym.tasks``,
filled with the release's names as it fills them: "chicken_leg", "toy_bear") and scenes.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from cogsim import _core
from cogsim.benchmarks.kidgym import catalog as rc
from cogsim.benchmarks.kidgym.scene import scene
from cogsim.benchmarks.kidgym.tasks import TaskSpec, action_words, goal_words

ROLES = tuple(_core.kidgym_roles())
KEY, PIECE = ROLES.index("key"), ROLES.index("piece")
ACTIONS = ("release", "executable")


def counting_item(pile_asset: int) -> str:
    """The Counting item a pile image shows ("apple_1" -> "apple")."""
    return rc.asset_name(pile_asset).rsplit("_", 1)[0]


def goal_text(spec: TaskSpec, state, texts: str = "release") -> str:
    facts, level = state.facts, state.level
    words: dict = {}
    if spec.name == "classification":
        words = {
            "item_1": rc.asset_name(facts[0]),
            "item_2": rc.asset_name(facts[1]),
            "colour_1": rc.asset_name(facts[2]),
            "colour_2": rc.asset_name(facts[3]),
        }
    elif spec.name == "counting":
        words = {"number": facts[0], "item": counting_item(facts[1])}
    elif spec.name == "sorting":
        rule, ranking = rc.sorting_rules()[facts[0]]
        words = {"rule": rule, "ranking": ranking}
    elif spec.name == "placement":
        words = {
            "orientation": rc.ORIENTATIONS[facts[0]],
            "rotation": rc.CLOCK_DIRECTIONS[facts[1]] if level == 3 else None,
            "centre": rc.asset_name(facts[2]),
            "item": rc.asset_name(facts[3]),
        }
    return goal_words(spec.name, level, bool(state.started), texts, **words)


def action_text(spec: TaskSpec, state, option: tuple[int, int, int]) -> str:
    """The release's text of an option (verb, slot, target)."""
    verb, slot, target = option
    name = spec.name
    if name == "counting":
        return action_words(name, (verb, target, 0), item=counting_item(state.facts[1]))
    if name == "selection":
        return action_words(name, (verb, target, 0), kind=rc.CATEGORIES[state.facts[0]])
    if name == "placement":
        return action_words(name, (verb, slot, target), item=rc.asset_name(state.facts[3]))
    if verb in (1, 3, 6):  # put, unlock, place: a slot and a target
        return action_words(name, (verb, slot, target))
    return action_words(name, (verb, target, 0))


def backpack_text(state) -> str:
    """The backpack in words (the release's names)."""
    parts = []
    for slot, row in enumerate(state.bag.tolist()):
        asset, role = row[0], row[4]
        name = rc.asset_name(asset)
        if role == KEY:
            name = f"{name} key"
        elif role == PIECE:
            name = f"piece {name}"
        parts.append(f"{'ABCD'[slot]}) {name}")
    return ", ".join(parts) if parts else "empty"


class Game:
    """Episodes of one task and level."""

    def __init__(self, spec: TaskSpec, level: int, max_steps: int = 0, actions: str = "release"):
        if actions not in ACTIONS:
            raise ValueError(f"actions must be one of {', '.join(ACTIONS)}, got {actions!r}")
        self.spec, self.level, self.max_steps = spec, level, max_steps
        self.executable = actions == "executable"

    def generate(self, seed: int):
        return _core.kidgym_generate(
            self.spec.core_id, self.level, [seed], rc.core_catalog(), self.max_steps, self.executable, 1
        )[0]

    def texts(self, state) -> list[str]:
        return [action_text(self.spec, state, option) for option in state.options()]

    def goal(self, state, texts: str = "release") -> str:
        return goal_text(self.spec, state, texts)

    def scene(self, state) -> dict:
        return scene(self.spec.name, state)

    @staticmethod
    def oracle(state) -> Optional[int]:
        return state.oracle_option()

    @staticmethod
    def random(state, rng: np.random.Generator) -> int:
        return int(rng.integers(len(state.options())))


ReleasePlay = Game  # its name before the release's mechanics became the only ones


def simulate(
    spec: TaskSpec,
    level: int,
    seeds,
    policy: str = "random",
    policy_seed: int = 0,
    max_steps: int = 0,
    actions: str = "release",
    threads: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Whole episodes played in the core by "oracle" or "random": (success, steps) arrays."""
    if actions not in ACTIONS:
        raise ValueError(f"actions must be one of {', '.join(ACTIONS)}, got {actions!r}")
    return _core.kidgym_play(
        spec.core_id, level, [int(s) for s in seeds], rc.core_catalog(), policy, policy_seed, max_steps,
        actions == "executable", threads,
    )  # fmt: skip
