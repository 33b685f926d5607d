"""What the model sees of a cube: the text state (colour letters per face, in the pose of the net
image) and the cube-net image itself in one of two looks: "release" (the release's matplotlib net,
pixel for pixel: ``look``) or "cogsim" (cogsim's own net, ``cogsim_look``, drawn by ``cogsim.render``)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from cogsim.benchmarks.cubebench.cogsim_look import FACE_COLOURS, FACE_LABELS, FACE_ORDER
from cogsim.benchmarks.cubebench.look import release_frame
from cogsim.cube import Cube

# The order faces are listed in the text state: the net read row by row.
DISPLAY_FACES = ("U", "L", "F", "R", "B", "D")
COLOUR_NAMES = {"W": "white", "Y": "yellow", "R": "red", "O": "orange", "G": "green", "B": "blue"}


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


def net_image(state, sticker: int, renderer=None) -> np.ndarray:
    """The cube-net image (H, W, 3 uint8) of one state (``renderer``: the thread's shared one if None)."""
    if renderer is None:
        from cogsim.render import shared_renderer

        renderer = shared_renderer()
    return renderer.cube_net(facelets(state), sticker=sticker)[0]


LOOKS = ("release", "cogsim")


def release_net_image(state, variant: str = "clean") -> np.ndarray:
    """The net image (620, 840, 3 uint8) of one state as the release draws it, in one of the
    invariance sweep's variants (``look.VARIANTS``)."""
    return release_frame(facelets(state), variant)


def inverse_move(move: str) -> str:
    if move.endswith("'"):
        return move[0]
    if move.endswith("2"):
        return move
    return move + "'"


def inverse_sequence(moves: Sequence[str]) -> list[str]:
    return [inverse_move(m) for m in reversed(moves)]


# -- the release's colour scheme and text net ----------------------------------------------------
# The released harness draws and prints cubes in pycuber's scheme: Up yellow, Left red, Front green,
# Right orange, Back blue, Down white. cogsim's own scheme (Up white, Left orange, Right red, Down
# yellow) is the same scheme turned upside down, so the release's colours are obtained by swapping
# the face letters U<->D and L<->R of a facelet string before it is coloured (or drawn), and colour
# letters of a grid by swapping W<->Y and O<->R.
COLOUR_SCHEMES = ("release", "cogsim")
STATE_FORMATS = ("release", "cogsim")
_RELEASE_FACES = str.maketrans("UDLR", "DURL")
_RELEASE_LETTERS = str.maketrans("WYOR", "YWRO")


def recolour(state, scheme: str = "release") -> str:
    """The facelet string whose cogsim colouring shows ``state`` in ``scheme``'s colours."""
    text = facelets(state)
    return text.translate(_RELEASE_FACES) if scheme == "release" else text


def recolour_grid(rows: Sequence[str], scheme: str = "release") -> list:
    """Colour-letter rows of cogsim's scheme in ``scheme``'s colours."""
    return [row.translate(_RELEASE_LETTERS) if scheme == "release" else row for row in rows]


def release_net_text(state) -> str:
    """The text net as the release prints a cube (pycuber's layout): Up, then Left/Front/Right/Back
    side by side, then Down; every sticker a lowercase colour initial in brackets, Up and Down
    indented by nine spaces, each row ending in a newline. Colours follow the facelets as given
    (pass ``recolour(state)`` for the release's scheme)."""
    faces = {face: [row.lower() for row in face_rows(state, face)] for face in DISPLAY_FACES}

    def cells(row: str) -> str:
        return "".join(f"[{c}]" for c in row)

    lines = [" " * 9 + cells(row) for row in faces["U"]]
    lines += ["".join(cells(faces[f][r]) for f in ("L", "F", "R", "B")) for r in range(3)]
    lines += [" " * 9 + cells(row) for row in faces["D"]]
    return "\n".join(lines) + "\n"


# -- the invariance sweep's image variants (newest release line) ----------------------------------
# recolor: every sticker repainted white<->yellow, orange<->red, green<->blue (the image only): the face
# letters swap U<->D, L<->R, F<->B, which is that repainting in either colour scheme.
_RECOLOUR_FACES = str.maketrans("UDLRFB", "DURLBF")
OCCLUSION_FRACTION = 0.15  # the black band's share of the image height (at least 6 px), centred
BRIGHTNESS = 0.8


def variant_image(state, variant: str, sticker: int, renderer=None) -> np.ndarray:
    """cogsim's net image of ``state`` perturbed as the release's sweep perturbs its own: "clean";
    "occl" (a black band across the middle, 15% of the height); "bright" (every channel x 0.8,
    truncated as PIL's blend does); "recolor" (the repainted cube)."""
    if variant == "recolor":
        return net_image(facelets(state).translate(_RECOLOUR_FACES), sticker, renderer)
    image = net_image(state, sticker, renderer)
    if variant == "clean":
        return image
    if variant == "occl":
        height = image.shape[0]
        band = max(6, int(OCCLUSION_FRACTION * height))
        top = (height - band) // 2
        image = image.copy()
        image[top : top + band] = 0
        return image
    if variant == "bright":
        return (image.astype(np.float32) * BRIGHTNESS).astype(np.uint8)
    raise ValueError(f"variant must be one of clean, occl, bright, recolor, got {variant!r}")
