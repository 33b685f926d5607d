"""Card boards (Matching Pairs): R x C cards face down, face up or removed, with coordinates.

A theme maps identity ids 0..K-1 to card faces. Faces are chosen by the board's seed
(numpy PCG64), so the same seed always gives the same pictures, and every identity of a theme
is visually distinct from the others (distinct glyphs, rank/suit pairs, pattern/colour pairs,
noise seeds, shape/colour pairs, or colours at least MIN_COLOUR_DISTANCE apart).

face_order="release" (poker only) picks the faces as RNG-Bench's released harness does for its
poker deck (52 cards and two jokers, in the sorted order of its file names): Python's
random.Random(seed).sample of as many faces as the board has pairs, identity i the i-th drawn.
labels="letters" labels rows a, b, c, ... and columns A, B, C, ... (the release's coordinates).
"""

from __future__ import annotations

import colorsys
import itertools
import math
import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence, Union

import numpy as np

from cogsim.render import PATTERNS, SHAPES, Canvas, Renderer, as_batch, checks, same_across, scene_kind

FACE_DOWN, FACE_UP, REMOVED = 0, 1, 2
THEMES = ("ascii", "poker", "textures", "noise", "shapes", "colors")
MAX_SIDE = 16
MIN_COLOUR_DISTANCE = 24.0  # Euclidean RGB distance between any two "colors" identities
_NOISE_CELLS = 6

# Glyphs that are not easily confused with one another (no I/l/1, O/0, ...).
_ASCII_GLYPHS = "ABCDEFGHJKLMNPQRSTUVWXYZabdefghkmnqrt23456789#$%&@*+=?!<>{}~^\u00a7\u00b6\u03a9\u03a3\u03a6\u03a8\u03bb\u03c0\u2605"
_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_SUITS = (("\u2660", (30, 30, 36)), ("\u2665", (204, 22, 36)), ("\u2666", (204, 22, 36)), ("\u2663", (30, 30, 36)))
_PALETTE = (
    (220, 50, 47),
    (38, 139, 210),
    (133, 153, 0),
    (211, 54, 130),
    (181, 137, 0),
    (42, 161, 152),
    (108, 113, 196),
    (203, 75, 22),
    (88, 88, 88),
    (0, 96, 48),
    (140, 70, 20),
    (0, 0, 128),
)
# The release's poker deck in the sorted order of its file names ("10_of_clubs", ..., "red_joker").
_RELEASE_RANKS = (
    "10",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "ace",
    "black_joker",
    "jack",
    "king",
    "queen",
    "red_joker",
)
_RELEASE_SUITS = ("clubs", "diamonds", "hearts", "spades")
_SUIT_INDEX = {"spades": 0, "hearts": 1, "diamonds": 2, "clubs": 3}
_RANK_LABEL = {"ace": "A", "jack": "J", "queen": "Q", "king": "K"}
FACE_ORDERS = ("cogsim", "release")
LABELS = ("numbers", "letters")
FELT = (36, 110, 72)
CARD_BACK = (44, 72, 156)
CARD_FACE = (252, 250, 244)


@dataclass(frozen=True)
class CardBoard:
    identities: np.ndarray  # (R, C) int: identity id per card
    state: np.ndarray  # (R, C) uint8: FACE_DOWN, FACE_UP or REMOVED
    theme: str = "ascii"
    seed: int = 0
    card_width: int = 56
    first_index: int = 1  # coordinate labels start here (labels="numbers")
    face_order: str = "cogsim"  # "release": the released harness's poker faces for this seed
    labels: str = "numbers"  # "letters": rows a, b, ... and columns A, B, ...

    @property
    def shape(self) -> tuple[int, int]:
        return tuple(np.shape(self.identities))  # type: ignore[return-value]

    @property
    def card_height(self) -> int:
        return int(round(self.card_width * 1.3))

    @property
    def _pitch(self) -> tuple[int, int]:
        # Whole pixels, so every card of an identity rasterises identically.
        return int(round(self.card_width * 1.12)), int(round(self.card_height * 1.1))

    @property
    def _origin(self) -> tuple[int, int]:
        return int(round(self.card_width * 0.8)), int(round(self.card_height * 0.45))

    @property
    def frame_size(self) -> tuple[int, int]:
        rows, cols = self.shape
        (px, py), (ox, _) = self._pitch, self._origin
        return ox + cols * px, int(round(self.card_height * 0.55)) + rows * py

    def validate(self) -> "CardBoard":
        checks.choice("theme", self.theme, THEMES)
        checks.integer("card_width", self.card_width, 16, 256)
        checks.integer("first_index", self.first_index, 0, 1)
        checks.integer("seed", self.seed, 0, 2**63 - 1)
        checks.choice("face_order", self.face_order, FACE_ORDERS)
        checks.choice("labels", self.labels, LABELS)
        if self.face_order == "release" and self.theme != "poker":
            raise ValueError(f"face_order='release' is defined for the poker theme only, got theme {self.theme!r}")
        ids, state = np.asarray(self.identities), np.asarray(self.state)
        if ids.ndim != 2 or not (1 <= ids.shape[0] <= MAX_SIDE and 1 <= ids.shape[1] <= MAX_SIDE):
            raise ValueError(f"identities must be an (R, C) array with R, C in [1, {MAX_SIDE}], got shape {ids.shape}")
        if ids.dtype.kind not in "iu":
            raise ValueError(f"identities must be an integer array, got dtype {ids.dtype}")
        if state.shape != ids.shape:
            raise ValueError(f"state must have the shape of identities {ids.shape}, got {state.shape}")
        if not np.isin(state, (FACE_DOWN, FACE_UP, REMOVED)).all():
            raise ValueError("state values must be 0 (face down), 1 (face up) or 2 (removed)")
        capacity = len(RELEASE_POKER_DECK) if self.face_order == "release" else theme_capacity(self.theme)
        if self.face_order == "release" and ids.size // 2 > capacity:
            raise ValueError(
                f"face_order='release' draws one of {capacity} poker faces per pair, got {ids.size // 2} pairs"
            )
        if ids.min() < 0 or ids.max() >= capacity:
            raise ValueError(
                f"identities must be in [0, {capacity - 1}] for theme {self.theme!r}, got [{ids.min()}, {ids.max()}]"
            )
        return self

    def card_rect(self, row: int, col: int) -> tuple[int, int, int, int]:
        (px, py), (ox, oy) = self._pitch, self._origin
        x0, y0 = ox + col * px, oy + row * py
        return x0, y0, x0 + self.card_width, y0 + self.card_height


def theme_capacity(theme: str) -> int:
    return {
        "ascii": len(_ASCII_GLYPHS),
        "poker": len(_RANKS) * len(_SUITS),
        "textures": len(PATTERNS) * len(_PALETTE),
        "noise": 4096,
        "shapes": len(SHAPES) * len(_PALETTE),
        "colors": len(_similar_colours(0)),
    }[theme]


def _release_deck() -> tuple:
    deck = []
    for rank in _RELEASE_RANKS:
        if rank.endswith("joker"):
            deck.append(("joker", (30, 30, 36) if rank.startswith("black") else (204, 22, 36)))
        else:
            deck.extend(("poker", _RANK_LABEL.get(rank, rank), _SUIT_INDEX[suit]) for suit in _RELEASE_SUITS)
    return tuple(deck)


RELEASE_POKER_DECK = _release_deck()


@lru_cache(maxsize=64)
def release_poker_faces(seed: int, pairs: int) -> tuple:
    """The release's choice of poker faces: random.Random(seed).sample(deck, pairs); identity i
    draws the i-th face (the sample depends on how many faces are drawn)."""
    return tuple(random.Random(seed).sample(RELEASE_POKER_DECK, pairs))


@lru_cache(maxsize=64)
def faces(theme: str, seed: int) -> tuple:
    """Every face of ``theme`` for ``seed``, in identity order: identity i draws faces[i]."""
    rng = np.random.Generator(np.random.PCG64(seed))
    if theme == "ascii":
        return tuple(("glyph", _ASCII_GLYPHS[i]) for i in rng.permutation(len(_ASCII_GLYPHS)))
    if theme == "poker":
        deck = list(itertools.product(_RANKS, range(len(_SUITS))))
        return tuple(("poker", *deck[i]) for i in rng.permutation(len(deck)))
    if theme == "textures":
        combos = list(itertools.product(range(len(PATTERNS)), range(len(_PALETTE))))
        return tuple(("pattern", *combos[i]) for i in rng.permutation(len(combos)))
    if theme == "noise":
        seeds = rng.choice(1 << 24, size=theme_capacity("noise"), replace=False)
        return tuple(("noise", int(s)) for s in seeds)
    if theme == "shapes":
        combos = list(itertools.product(range(len(SHAPES)), range(len(_PALETTE))))
        return tuple(("shape", *combos[i]) for i in rng.permutation(len(combos)))
    colours = _similar_colours(seed)
    return tuple(("colour", colours[i]) for i in rng.permutation(len(colours)))


@lru_cache(maxsize=64)
def _similar_colours(seed: int) -> tuple:
    """Colours of one hue family (chosen by seed), pairwise at least MIN_COLOUR_DISTANCE apart."""
    hue = np.random.Generator(np.random.PCG64(seed)).random()
    chosen: list[tuple[int, int, int]] = []
    for dh, s, v in itertools.product((-0.05, -0.017, 0.017, 0.05), (0.35, 0.55, 0.75, 0.95), (0.45, 0.6, 0.75, 0.9)):
        rgb = tuple(int(round(255 * c)) for c in colorsys.hsv_to_rgb((hue + dh) % 1.0, s, v))
        if all(math.dist(rgb, other) >= MIN_COLOUR_DISTANCE for other in chosen):
            chosen.append(rgb)
    return tuple(chosen[:48])


@scene_kind("cards")
def frames(renderer: Renderer, boards: Union[CardBoard, Sequence[CardBoard]]) -> np.ndarray:
    """``renderer.cards(boards)``: frames (N, H, W, 3) of one or many boards of one size."""
    boards = [board.validate() for board in as_batch(boards, CardBoard)]
    size = same_across("board size (rows, cols, card_width)", boards, lambda b: b.frame_size)
    return renderer.draw_2d(boards, size, draw)


def draw(canvas: Canvas, board: CardBoard) -> None:
    width, height = board.frame_size
    canvas.box((0, 0, width, height), FELT)
    rows, cols = board.shape
    w, h = board.card_width, board.card_height
    label = 0.22 * w
    letters = board.labels == "letters"
    for col in range(cols):
        x0, y0, x1, _ = board.card_rect(0, col)
        text = chr(ord("A") + col) if letters else str(col + board.first_index)
        canvas.text(text, (x0 + x1) / 2, y0 - 0.2 * h, label, (230, 240, 230))
    for row in range(rows):
        x0, y0, _, y1 = board.card_rect(row, 0)
        text = chr(ord("a") + row) if letters else str(row + board.first_index)
        canvas.text(text, x0 - 0.4 * w, (y0 + y1) / 2, label, (230, 240, 230))
    if board.face_order == "release":
        theme_faces = release_poker_faces(board.seed, rows * cols // 2)
    else:
        theme_faces = faces(board.theme, board.seed)
    ids, state = np.asarray(board.identities), np.asarray(board.state)
    for row, col in itertools.product(range(rows), range(cols)):
        rect = board.card_rect(row, col)
        if state[row, col] == REMOVED:
            canvas.box(rect, (0, 0, 0, 0), border=(120, 170, 140), width=max(1.0, 0.03 * w), radius=0.1 * w)
        elif state[row, col] == FACE_DOWN:
            _card_back(canvas, rect, w)
        else:
            canvas.box(rect, CARD_FACE, border=(90, 90, 90), width=max(1.0, 0.025 * w), radius=0.1 * w)
            _face(canvas, theme_faces[int(ids[row, col])], rect, w)


def _card_back(canvas: Canvas, rect, w: float) -> None:
    canvas.box(rect, (250, 250, 250), border=(200, 200, 200), width=1, radius=0.1 * w)
    x0, y0, x1, y1 = rect
    inner = (x0 + 0.1 * w, y0 + 0.1 * w, x1 - 0.1 * w, y1 - 0.1 * w)
    canvas.pattern("checker", inner, CARD_BACK, (72, 104, 188), repeats=6, angle=math.pi / 4)


def _face(canvas: Canvas, face: tuple, rect, w: float) -> None:
    x0, y0, x1, y1 = rect
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    inner = (x0 + 0.12 * w, y0 + 0.12 * w, x1 - 0.12 * w, y1 - 0.12 * w)
    square = (cx - 0.38 * w, cy - 0.38 * w, cx + 0.38 * w, cy + 0.38 * w)
    kind = face[0]
    if kind == "glyph":
        canvas.fit_text(face[1], cx, cy, 0.45 * w, 0.7 * w, (24, 24, 32))
    elif kind == "poker":
        rank, suit = face[1], _SUITS[face[2]]
        canvas.fit_text(rank, cx, cy - 0.24 * w, 0.32 * w, 0.72 * w, suit[1])
        canvas.text(suit[0], cx, cy + 0.24 * w, 0.34 * w, suit[1])
    elif kind == "joker":
        canvas.fit_text("JOKER", cx, cy - 0.24 * w, 0.22 * w, 0.72 * w, face[1])
        canvas.text("\u2605", cx, cy + 0.24 * w, 0.34 * w, face[1])
    elif kind == "pattern":
        canvas.pattern(PATTERNS[face[1]], inner, _PALETTE[face[2]], CARD_FACE, repeats=4, angle=0.0)
    elif kind == "noise":
        # Whole-pixel blocks: block edges never fall on a pixel centre, so pairs match exactly.
        block = int((inner[2] - inner[0]) // _NOISE_CELLS)
        bx, by = int(cx - block * _NOISE_CELLS / 2), int(cy - block * _NOISE_CELLS / 2)
        rect = (bx, by, bx + block * _NOISE_CELLS, by + block * _NOISE_CELLS)
        canvas.noise(rect, face[1], _NOISE_CELLS, (20, 20, 20), (245, 245, 245))
    elif kind == "shape":
        canvas.shape(SHAPES[face[1]], square, _PALETTE[face[2]])
    else:
        canvas.box(inner, face[1], radius=0.06 * w)


def example_cards(seed: int, rows: int = 4, cols: int = 6, theme: str = "ascii", card_width: int = 56) -> CardBoard:
    rng = np.random.Generator(np.random.PCG64(seed))
    identities = rng.permutation(np.repeat(np.arange(rows * cols // 2), 2)).reshape(rows, cols)
    state = rng.choice([FACE_DOWN, FACE_UP, REMOVED], size=(rows, cols), p=[0.5, 0.3, 0.2])
    return CardBoard(identities, state.astype(np.uint8), theme=theme, seed=seed, card_width=card_width)
