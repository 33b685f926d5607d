"""The immutable cube state and conversions from what users pass in."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Union

import numpy as np

from cogsim import _core

MOVES: tuple[str, ...] = tuple(_core.cube_move_names())

_SOLVED = _core.cube_solved()


class Cube:
    """A reachable cube state in cubie form (Kociemba's corner and edge conventions).

    Build one with :meth:`solved`, :meth:`from_moves`, :meth:`from_facelets` or
    :meth:`random_state`; every method returns a new cube.
    """

    __slots__ = ("_state",)

    def __init__(self, state: bytes = _SOLVED):
        if not isinstance(state, (bytes, bytearray)):
            raise TypeError(
                f"Cube() takes a 40-byte packed state, got {type(state).__name__}; "
                "use Cube.from_moves(...) or Cube.from_facelets(...)"
            )
        _core.cube_validate(bytes(state))
        self._state = bytes(state)

    @classmethod
    def _trusted(cls, state: bytes) -> "Cube":
        cube = cls.__new__(cls)
        cube._state = state
        return cube

    @classmethod
    def solved(cls) -> "Cube":
        return cls._trusted(_SOLVED)

    @classmethod
    def from_moves(cls, moves: str) -> "Cube":
        """The state reached from solved by a Singmaster move string such as ``"R U2 F'"``."""
        return cls.solved().apply(moves)

    @classmethod
    def from_facelets(cls, facelets: str) -> "Cube":
        """Parses 54 facelets (faces U R F D L B, each row-major, colours as face letters)."""
        _require_str(facelets, "facelets")
        return cls._trusted(_core.cube_from_facelets(facelets))

    @classmethod
    def random_state(cls, seed: int) -> "Cube":
        """A state drawn uniformly from all legal states; the same seed gives the same state."""
        return cls._trusted(_core.cube_random_state(_seed(seed)))

    @classmethod
    def from_array(cls, array: np.ndarray) -> "Cube":
        """Inverse of :meth:`to_array`; validates the state."""
        return cls(np.ascontiguousarray(array, dtype=np.uint8).tobytes())

    def apply(self, moves: Union[str, Sequence[str]]) -> "Cube":
        """The state after performing ``moves`` (a move string or a list of move names)."""
        if not isinstance(moves, str):
            moves = " ".join(_require_str(m, "move") for m in moves)
        return Cube._trusted(_core.cube_apply(self._state, moves))

    def inverse(self) -> "Cube":
        return Cube._trusted(_core.cube_inverse(self._state))

    def is_solved(self) -> bool:
        return self._state == _SOLVED

    def to_facelets(self) -> str:
        return _core.cube_to_facelets(self._state)

    def to_array(self) -> np.ndarray:
        """The packed state: corner permutation, twists, edge permutation, flips (40 uint8)."""
        return np.frombuffer(self._state, dtype=np.uint8).copy()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Cube) and self._state == other._state

    def __hash__(self) -> int:
        return hash(self._state)

    def __repr__(self) -> str:
        return f"Cube.from_facelets({self.to_facelets()!r})"


StateLike = Union[Cube, str]


def as_states(states: Union[StateLike, Iterable[StateLike], np.ndarray]) -> tuple[np.ndarray, bool]:
    """Packs states into a (N, 40) uint8 array; also says if the input was scalar. A state is a
    Cube, a move string or a 54-letter facelet string; a batch is a sequence of them, a NumPy array
    of such strings, or an already packed (N, 40) uint8 array. Strings are parsed in the core."""
    if isinstance(states, Cube):
        return np.frombuffer(states._state, dtype=np.uint8).reshape(1, 40), True
    if isinstance(states, str):
        return _core.cube_states_from_text([states]), True
    if isinstance(states, np.ndarray):
        return _packed_array(states), False
    items = list(states)
    if items and type(items[0]) is Cube:
        try:  # the common batch: Cubes only, joined in one pass
            joined = b"".join([c._state for c in items])
        except (AttributeError, TypeError):
            joined = b""
        if len(joined) == 40 * len(items):
            return np.frombuffer(joined, dtype=np.uint8).reshape(len(items), 40), False
    if all(isinstance(s, str) for s in items):
        return _core.cube_states_from_text(items), False
    packed = np.empty((len(items), 40), dtype=np.uint8)
    for i, item in enumerate(items):
        if isinstance(item, Cube):
            packed[i] = np.frombuffer(item._state, dtype=np.uint8)
        elif isinstance(item, str):
            packed[i] = _core.cube_states_from_text([item])[0]
        else:
            raise TypeError(f"state {i}: expected a Cube or a move or facelet string, got {type(item).__name__}")
    return packed, False


def _packed_array(states: np.ndarray) -> np.ndarray:
    if states.dtype.kind in "US" and states.ndim == 1:  # facelet or move strings
        texts = states.tolist() if states.dtype.kind == "U" else [b.decode("ascii", "replace") for b in states.tolist()]
        return _core.cube_states_from_text(texts)
    if states.ndim != 2 or states.shape[1] != 40:
        raise ValueError(
            f"a state array must be packed states of shape (N, 40) or a 1-D array of strings, got {states.dtype} "
            f"of shape {states.shape}"
        )
    return np.ascontiguousarray(states, dtype=np.uint8)


def _require_str(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__}")
    return value


def _seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    seed = int(seed)
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed must be in 0..2**64-1, got {seed}")
    return seed
