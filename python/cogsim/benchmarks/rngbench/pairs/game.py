"""Matching Pairs boards and games from the core: deals, batched flips, the perfect-memory policy.

Cards are indexed row-major (card = row * cols + col). A response flips one card; two flips make a
turn. Card states: FACE_DOWN 0, FACE_UP 1 (the first card of the current turn), REMOVED 2.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from cogsim import _core

FACE_DOWN, FACE_UP, REMOVED = 0, 1, 2
INVALID, FIRST_FLIP, MATCH, MISMATCH, GAME_OVER = range(5)
MAX_SIDE = 16


def check_shape(rows, cols) -> tuple[int, int]:
    for name, value in (("rows", rows), ("cols", cols)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= MAX_SIDE:
            raise ValueError(f"{name} must be an integer in [1, {MAX_SIDE}], got {value!r}")
    if (rows * cols) % 2:
        raise ValueError(f"rows * cols must be even (every card has a partner), got {rows}x{cols}")
    return int(rows), int(cols)


DEALS = ("release", "cogsim")


def deal(rows: int, cols: int, seed: int, method: str = "release") -> np.ndarray:
    """(rows, cols) int16 identities 0..P-1, each exactly twice.

    method="release" (default): the released harness's deal: the list [0, 0, 1, 1, ..., P-1, P-1]
    shuffled in place by Python's ``random.Random(seed).shuffle`` and laid out row-major, so a seed
    gives the same board as the release (identity i is the release's i-th symbol).
    method="cogsim": cogsim's own SplitMix64 shuffle in the core."""
    rows, cols = check_shape(rows, cols)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an integer in [0, 2**64), got {seed!r}")
    if method == "cogsim":
        return _core.pairs_deal(rows, cols, int(seed))
    if method != "release":
        raise ValueError(f"deal must be one of {', '.join(DEALS)}, got {method!r}")
    flat = [identity for identity in range(rows * cols // 2) for _ in range(2)]
    random.Random(int(seed)).shuffle(flat)
    return np.array(flat, np.int16).reshape(rows, cols)


@dataclass
class PairsBatch:
    """B games (single player or duels), updated in place by the core."""

    arrays: dict
    shapes: list

    @classmethod
    def from_boards(cls, boards: Sequence[np.ndarray], players: int = 1) -> "PairsBatch":
        if players not in (1, 2):
            raise ValueError(f"players must be 1 or 2, got {players!r}")
        boards = [np.asarray(b) for b in boards]
        if not boards:
            raise ValueError("a batch needs at least one board")
        for b in boards:
            if b.ndim != 2 or b.dtype.kind not in "iu":
                raise ValueError(f"boards must be (rows, cols) integer arrays, got shape {b.shape} dtype {b.dtype}")
            check_shape(*b.shape)
            counts = np.bincount(b.ravel().astype(np.int64))
            if b.min() < 0 or len(counts) != b.size // 2 or (counts != 2).any():
                raise ValueError("a board must hold identities 0..P-1 exactly twice each")
        cards = np.array([b.size for b in boards], np.int32)
        count = len(boards)
        arrays = {
            "identities": np.concatenate([b.ravel() for b in boards]).astype(np.int16),
            "partner": np.concatenate([_partners(b.ravel()) for b in boards]).astype(np.int32),
            "offset": np.concatenate(([0], np.cumsum(cards)[:-1])).astype(np.int64),
            "cards": cards,
            "players": np.full(count, players, np.int32),
            "state": np.zeros(int(cards.sum()), np.uint8),
            "seen": np.zeros(int(cards.sum()), np.uint8),
            "pending": np.full(count, -1, np.int32),
            "player": np.zeros(count, np.int32),
            "scores": np.zeros(2 * count, np.int32),
            "remaining": cards // 2,
        }
        return cls(arrays, [b.shape for b in boards])

    def __len__(self) -> int:
        return len(self.arrays["pending"])

    def flip(self, cards, threads: int = 0) -> np.ndarray:
        """Flips cards[i] (row-major index) in game i; returns outcome codes."""
        return _core.pairs_flip(self.arrays, np.asarray(cards, np.int32), threads)

    def optimal(self, threads: int = 0) -> np.ndarray:
        """The perfect-memory policy's next flip per game (-1 for finished games)."""
        return _core.pairs_optimal(self.arrays, threads)

    def play_optimal(self, threads: int = 0) -> np.ndarray:
        """Plays every game to the end with the perfect-memory policy; returns responses used."""
        return _core.pairs_play_optimal(self.arrays, threads)

    def _slice(self, name: str, index: int) -> np.ndarray:
        offset, cards = int(self.arrays["offset"][index]), int(self.arrays["cards"][index])
        return self.arrays[name][offset : offset + cards].reshape(self.shapes[index])

    def identities(self, index: int = 0) -> np.ndarray:
        return self._slice("identities", index)

    def state(self, index: int = 0) -> np.ndarray:
        return self._slice("state", index)

    def seen(self, index: int = 0) -> np.ndarray:
        return self._slice("seen", index).astype(bool)

    def scores(self, index: int = 0) -> tuple[int, int]:
        return int(self.arrays["scores"][2 * index]), int(self.arrays["scores"][2 * index + 1])

    def pending(self, index: int = 0) -> int:
        return int(self.arrays["pending"][index])

    def player(self, index: int = 0) -> int:
        return int(self.arrays["player"][index])

    def remaining(self, index: int = 0) -> int:
        return int(self.arrays["remaining"][index])


def _partners(identities: np.ndarray) -> np.ndarray:
    """partner[k]: the other card with identity identities[k]."""
    order = np.argsort(identities, kind="stable")
    partner = np.empty(len(identities), np.int64)
    partner[order[0::2]], partner[order[1::2]] = order[1::2], order[0::2]
    return partner


def optimal_responses(board: np.ndarray) -> int:
    """Responses the perfect-memory policy needs to clear ``board`` alone."""
    return int(PairsBatch.from_boards([board]).play_optimal(threads=1)[0])


def known_cards(identities: np.ndarray, state: np.ndarray, seen: np.ndarray) -> dict[int, list[tuple[int, int]]]:
    """Perfect memory: identity -> positions of every card seen so far that is still on the board."""
    known: dict[int, list[tuple[int, int]]] = {}
    for r, c in zip(*np.nonzero(seen & (state != REMOVED))):
        known.setdefault(int(identities[r, c]), []).append((int(r), int(c)))
    return dict(sorted(known.items(), key=lambda item: item[1]))
