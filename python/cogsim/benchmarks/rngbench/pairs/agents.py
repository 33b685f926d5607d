"""Scripted Matching Pairs agents beyond the core's perfect-memory policy.

The forgetful agent plays the optimal strategy with a short memory: it recalls only the cards
revealed in its last ``span`` flips (anyone's), unless the memory map (the oracle condition) is in
its prompt, in which case it knows every revealed card. It shows the Memory Gap with scripted
agents and gives duels an opponent between random and optimal.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from cogsim.benchmarks.rngbench.pairs.game import FACE_DOWN

FORGETFUL_SPAN = 6


def remembered_cards(
    flip_log: Sequence[int], seen: np.ndarray, memory_map: bool, span: int = FORGETFUL_SPAN
) -> np.ndarray:
    """Bool per card (row-major): what the forgetful agent knows."""
    if memory_map:
        return seen.ravel().copy()
    known = np.zeros(seen.size, dtype=bool)
    known[list(flip_log[-span:])] = True
    return known


def forgetful_flip(
    identities: np.ndarray, state: np.ndarray, pending: int, known: np.ndarray, rng: np.random.Generator
) -> int:
    """Complete a remembered pair, else flip a card it does not remember (at random)."""
    ids, down = identities.ravel(), state.ravel() == FACE_DOWN
    if pending >= 0:
        partner = next(k for k in np.flatnonzero(ids == ids[pending]) if k != pending)
        if known[partner]:
            return int(partner)
    else:
        remembered = np.flatnonzero(known & down)
        for card in remembered:
            if any(k != card and known[k] and down[k] for k in np.flatnonzero(ids == ids[card])):
                return int(card)
    candidates = np.flatnonzero(down & ~known)
    if len(candidates) == 0:
        candidates = np.flatnonzero(down)
    return int(rng.choice(candidates))
