"""What the model sees of a cube: the text state (colour letters per face, in the pose of the net
image) and the cube-net image itself, drawn by ``cogsim.render``."""

from __future__ import annotations

import threading
from typing import Sequence

import numpy as np

from cogsim.cube import Cube
from cogsim.render.cube_net import FACE_COLOURS, FACE_LABELS, FACE_ORDER

# The order faces are listed in the text state: the net read row by row.
DISPLAY_FACES = ("U", "L", "F", "R", "B", "D")
COLOUR_NAMES = {"W": "white", "Y": "yellow", "R": "red", "O": "orange", "G": "green", "B": "blue"}

_renderer_lock = threading.Lock()
_renderer = None


def facelets(state) -> str:
    return state.to_facelets() if isinstance(state, Cube) else str(state)


def face_rows(state, face: str) -> tuple[str, str, str]:
    """The three rows of one face as colour letters, as seen from outside in the net's pose."""
    start = 9 * FACE_ORDER.index(face)
    letters = "".join(FACE_COLOURS[f] for f in facelets(state)[start : start + 9])
    return letters[0:3], letters[3:6], letters[6:9]


def front_rows(state) -> tuple[str, str, str]:
    return face_rows(state, "F")


def grid_text(rows: Sequence[str]) -> str:
    """Rows of colour letters as the answer format writes them: "W G B" per line."""
    return "\n".join(" ".join(row) for row in rows)


def state_text(state) -> str:
    """The authoritative text state: every face of the net, labelled as in the image."""
    blocks = [f"{FACE_LABELS[face]}:\n{grid_text(face_rows(state, face))}" for face in DISPLAY_FACES]
    return "\n".join(blocks)


def centres_text(state) -> str:
    """The centre colour of every face ("U: white" ...), which the move-effect prompt lists."""
    return "\n".join(f"{face}: {COLOUR_NAMES[face_rows(state, face)[1][1]]}" for face in ("U", "R", "F", "D", "L", "B"))


def renderer():
    """One renderer per process (headless EGL), created on first use."""
    global _renderer
    with _renderer_lock:
        if _renderer is None:
            from cogsim.render import Renderer

            _renderer = Renderer()
        return _renderer


def net_image(state, sticker: int) -> np.ndarray:
    """The cube-net image (H, W, 3 uint8) of one state."""
    return renderer().cube_net(facelets(state), sticker=sticker)[0]


def inverse_move(move: str) -> str:
    if move.endswith("'"):
        return move[0]
    if move.endswith("2"):
        return move
    return move + "'"


def inverse_sequence(moves: Sequence[str]) -> list[str]:
    return [inverse_move(m) for m in reversed(moves)]
