"""Cube nets (Cube Bench): the unfolded cube in a fixed pose, a label above each face.

Net layout (faces of 3 x 3 stickers):

              Top
     Left    Front    Right    Back
              Down

Input is Kociemba's facelet string (54 chars, faces U R F D L B, each row-major as seen from
outside in exactly this net orientation). Colour scheme (standard Western): U white, D yellow,
F green, B blue, R red, L orange.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cogsim import cube
from cogsim.render import Canvas, Renderer, checks, scene_kind

FACE_ORDER = "URFDLB"  # Kociemba's order of the facelet string
FACE_COLOURS = {"U": "W", "R": "R", "F": "G", "D": "Y", "L": "O", "B": "B"}  # face letter -> colour letter
COLOUR_RGB = {
    "W": (255, 255, 255),
    "Y": (255, 213, 0),
    "R": (200, 16, 46),
    "O": (255, 112, 0),
    "G": (0, 155, 72),
    "B": (0, 70, 173),
}
FACE_LABELS = {"U": "Top", "L": "Left", "F": "Front", "R": "Right", "B": "Back", "D": "Down"}
BACKGROUND = (128, 128, 128)
PLASTIC = (24, 24, 24)
# Face -> (column, row) of the face in the 4 x 3 net.
NET_POSITIONS = {"U": (1, 0), "L": (0, 1), "F": (1, 1), "R": (2, 1), "B": (3, 1), "D": (1, 2)}


@dataclass(frozen=True)
class NetLayout:
    """Pixel geometry of the net for a sticker pitch (px)."""

    sticker: int = 32

    def __post_init__(self):
        checks.integer("sticker", self.sticker, 8, 256)

    @property
    def gap(self) -> float:
        return 0.3 * self.sticker

    @property
    def label_band(self) -> float:
        return 0.9 * self.sticker

    @property
    def margin(self) -> float:
        return 0.5 * self.sticker

    @property
    def size(self) -> tuple[int, int]:
        face = 3 * self.sticker
        width = 2 * self.margin + 4 * face + 3 * self.gap
        height = 2 * self.margin + 3 * (face + self.label_band) + 2 * self.gap
        return int(round(width)), int(round(height))

    def face_origin(self, face: str) -> tuple[float, float]:
        col, row = NET_POSITIONS[face]
        pitch = 3 * self.sticker + self.gap
        return self.margin + col * pitch, self.margin + row * (pitch + self.label_band) + self.label_band

    def sticker_centres(self) -> np.ndarray:
        """(54, 2) pixel centres (x, y) in facelet-string order."""
        centres = []
        for face in FACE_ORDER:
            x0, y0 = self.face_origin(face)
            for i in range(9):
                row, col = divmod(i, 3)
                centres.append((x0 + (col + 0.5) * self.sticker, y0 + (row + 0.5) * self.sticker))
        return np.array(centres)


@scene_kind("cube_net")
def frames(renderer: Renderer, states, sticker: int = 32) -> np.ndarray:
    """``renderer.cube_net(states)``: one or many facelet strings (54 chars, faces U R F D L B) or
    Cube objects as nets, (N, H, W, 3)."""
    facelets = [facelets_of(state) for state in as_state_list(states)]
    layout = NetLayout(sticker)
    return renderer.draw_2d(facelets, layout.size, lambda canvas, s: draw(canvas, s, layout))


def as_state_list(states) -> list:
    if isinstance(states, str) or hasattr(states, "to_facelets"):
        return [states]
    try:
        return list(states)
    except TypeError:
        raise ValueError(
            f"facelets must be a 54-character string, a Cube, or a sequence of them, got {states!r}"
        ) from None


def facelets_of(state) -> str:
    facelets = state.to_facelets() if hasattr(state, "to_facelets") else state
    if not isinstance(facelets, str) or len(facelets) != 54 or set(facelets) - set(FACE_ORDER):
        raise ValueError(f"facelets must be 54 characters from {FACE_ORDER} (Kociemba's order), got {facelets!r}")
    return facelets


def colours_of(facelets: str) -> str:
    """The colour letters (W/Y/R/O/G/B) of a facelet string, in the same order."""
    return "".join(FACE_COLOURS[f] for f in facelets_of(facelets))


def draw(canvas: Canvas, facelets: str, layout: NetLayout) -> None:
    s = layout.sticker
    canvas.box((0, 0, *layout.size), BACKGROUND)
    for index, face in enumerate(FACE_ORDER):
        x0, y0 = layout.face_origin(face)
        canvas.text(FACE_LABELS[face], x0 + 1.5 * s, y0 - 0.45 * s, 0.36 * s, (255, 255, 255))
        canvas.box((x0 - 0.06 * s, y0 - 0.06 * s, x0 + 3.06 * s, y0 + 3.06 * s), PLASTIC, radius=0.18 * s)
        for i in range(9):
            row, col = divmod(i, 3)
            colour = COLOUR_RGB[FACE_COLOURS[facelets[9 * index + i]]]
            sx, sy = x0 + col * s, y0 + row * s
            canvas.box((sx + 0.07 * s, sy + 0.07 * s, sx + 0.93 * s, sy + 0.93 * s), colour, radius=0.12 * s)


def example_cube_facelets(seed: int, moves: int = 12) -> str:
    """The 54 facelets of a cube scrambled by ``moves`` random face turns."""
    rng = np.random.Generator(np.random.PCG64(seed))
    scramble = " ".join(cube.MOVES[i] for i in rng.integers(0, len(cube.MOVES), moves))
    return cube.Cube.from_moves(scramble).to_facelets()
