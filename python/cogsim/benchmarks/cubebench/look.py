"""Cube Bench's net as the release draws it (``look="release"``), pixel for pixel, on the CPU.

The release (``sim/cube_simulator.py`` of github.com/dana-23/cube-bench: ``render``, ``_build_canvas``,
``_paint_face``, ``_canvas_to_figure``) paints a numpy canvas (60 px stickers inset by 2 px in black
faces, 40 px gaps, grey 127, pure RGB colours) and shows it with matplotlib at 100 dpi: an 840 x 620
figure in grey 125, ``imshow(interpolation="nearest")``, a label above each face (DejaVu Sans Bold 12,
white, in a black rounded box of alpha 0.6) and ``tight_layout(pad=0)``, which shrinks the axes so
that the labels fit. The canvas is therefore resampled into a 617 x 455 box by nearest neighbour, a
separable index map, and nothing drawn over it touches a sticker. So every frame is one fixed frame
with 54 rectangles filled, one per sticker; ``_core.paint_rect_frames`` paints them.

The fixed frame is rebuilt from facts and from data that ``scripts/build_cubebench_release_net.py``
derived once from matplotlib 3.11.2 and its bundled DejaVu faces (``release_net.json`` beside this module:
the index map and the label pixels), so the pixels do not depend on the matplotlib a machine has.
The sweep's image variants (``render_variant``) are made as the release makes them with Pillow:
"occl" a black band ``ImageDraw.rectangle([0, top, w, top + band])`` (both ends inclusive), "bright"
``ImageEnhance.Brightness(0.8)`` (``Image.blend`` with black: ``(uint8)(0.8f * v)``), "recolor"
the cube repainted (W<->Y, O<->R, G<->B) before it is drawn.
"""

from __future__ import annotations

import base64
import functools
import json
import zlib
from dataclasses import dataclass
from importlib import resources

import numpy as np

from cogsim import _core
from cogsim.benchmarks._moved import names_moved_to
from cogsim.benchmarks.cubebench.cogsim_look import FACE_COLOURS, FACE_LABELS, FACE_ORDER, as_state_list, facelets_of

# The release's canvas (``NetLayout``, ``_build_canvas``, ``_paint_face``: cell_size 60, sticker_border 2,
# face_gap 40) and figure (``_canvas_to_figure``: dpi 100, figure grey 125/255).
CELL = 60
BORDER = 2
GAP = 40
FACE = 3 * CELL
CANVAS_GREY = 127
FIGURE_GREY = 125
DPI = 100
CANVAS_SIZE = (3 * FACE + 2 * GAP, 4 * FACE + 3 * GAP)  # (height, width): 620 x 840
FRAME_SIZE = CANVAS_SIZE  # the figure is the canvas's size in inches at 100 dpi
# Top-left (y, x) of each face in the canvas; the faces in the release's painting order.
FACE_ORIGINS = {
    "U": (0, FACE + GAP),
    "L": (FACE + GAP, 0),
    "F": (FACE + GAP, FACE + GAP),
    "R": (FACE + GAP, 2 * (FACE + GAP)),
    "B": (FACE + GAP, 3 * (FACE + GAP)),
    "D": (2 * (FACE + GAP), FACE + GAP),
}
# The label of each face: text (the release's FACE_LABELS, which are cogsim's), centred above it.
LABEL_STYLE = {"fontsize": 12, "color": "white", "fontweight": "bold", "offset": 6}
LABEL_BOX = {"boxstyle": "round,pad=0.15", "facecolor": "black", "alpha": 0.6, "linewidth": 0}
# The release's palette (``Palette``) by cogsim colour letter.
RELEASE_RGB = {
    "W": (255, 255, 255),
    "Y": (255, 255, 0),
    "O": (255, 128, 0),
    "R": (255, 0, 0),
    "G": (0, 255, 0),
    "B": (0, 0, 255),
}
# The invariance sweep's variants (``render_variant``) and their parameters.
VARIANTS = ("clean", "occl", "bright", "recolor")
OCCLUSION_FRACTION = 0.15
OCCLUSION_MIN_ROWS = 6
BRIGHTNESS = 0.8
# recolor repaints W<->Y, O<->R, G<->B: on a facelet string coloured by FACE_COLOURS, the face
# letters U<->D, R<->L, F<->B.
RECOLOUR_FACES = str.maketrans("UDLRFB", "DURLBF")
DATA_FILE = "release_net.json"


def release_canvas(facelets: str | None = None) -> np.ndarray:
    """The release's numpy canvas (620, 840, 3) for a facelet string (cogsim colouring, see
    ``look``), or with black stickers when None: what ``_build_canvas`` paints."""
    canvas = np.full((*CANVAS_SIZE, 3), CANVAS_GREY, np.uint8)
    for face, (y0, x0) in FACE_ORIGINS.items():
        canvas[y0 : y0 + FACE, x0 : x0 + FACE] = 0
        if facelets is None:
            continue
        start = 9 * FACE_ORDER.index(face)
        for i, letter in enumerate(facelets[start : start + 9]):
            row, col = divmod(i, 3)
            y, x = y0 + row * CELL, x0 + col * CELL
            canvas[y + BORDER : y + CELL - BORDER, x + BORDER : x + CELL - BORDER] = RELEASE_RGB[FACE_COLOURS[letter]]
    return canvas


def label_anchors() -> dict[str, tuple[float, float]]:
    """Where ``_canvas_to_figure`` anchors each face's label (canvas x, y; centred, bottom)."""
    return {face: (x0 + FACE / 2, y0 - LABEL_STYLE["offset"]) for face, (y0, x0) in FACE_ORIGINS.items()}


def sticker_spans(sources: np.ndarray) -> np.ndarray:
    """(54, 2, 2) per facelet (FACE_ORDER, row-major), the [start, end) of its frame rows and columns,
    given the canvas index every frame row and column of the image box shows (``sources``: rows, cols)."""
    row_source, col_source = sources
    spans = np.zeros((54, 2, 2), np.int32)
    for index in range(54):
        face, (row, col) = FACE_ORDER[index // 9], divmod(index % 9, 3)
        y0, x0 = FACE_ORIGINS[face]
        for axis, (source, start) in enumerate(((row_source, y0 + row * CELL), (col_source, x0 + col * CELL))):
            shown = np.flatnonzero((source >= start + BORDER) & (source < start + CELL - BORDER))
            if shown.size == 0 or shown[-1] - shown[0] + 1 != shown.size:
                raise ValueError(f"the index map does not show sticker {index} as one span")
            spans[index, axis] = shown[0], shown[-1] + 1
    return spans


@dataclass(frozen=True)
class NetLook:
    """What one variant's frames are made of: the fixed frame, the rectangles (slot = facelet index,
    y0, y1, x0, x1) in painting order, and the palette by face letter index (FACE_ORDER)."""

    frame: np.ndarray
    rects: np.ndarray
    palette: np.ndarray

    def paint(self, colour_ids: np.ndarray, threads: int = 0, out: np.ndarray | None = None) -> np.ndarray:
        if out is None:
            out = np.empty((colour_ids.shape[0], *self.frame.shape), np.uint8)
        _core.paint_rect_frames(self.frame, self.rects, self.palette, colour_ids, out, threads)
        return out


class ReleaseNet:
    """The release's net frames, built from the derived data (``from_data``) once per process."""

    def __init__(self, data: dict):
        self.frame, self.sources = _fixed_frame(data)
        spans = sticker_spans(self.sources)
        box_top, box_left = data["image_box"]
        spans[:, 0] += box_top
        spans[:, 1] += box_left
        rects = np.array([(i, *spans[i, 0], *spans[i, 1]) for i in range(54)], np.int32)
        palette = np.array([RELEASE_RGB[FACE_COLOURS[f]] for f in FACE_ORDER], np.uint8)
        recoloured = [FACE_ORDER.index(f.translate(RECOLOUR_FACES)) for f in FACE_ORDER]
        self.looks = {
            "clean": NetLook(self.frame, rects, palette),
            "recolor": NetLook(self.frame, rects, palette[recoloured]),
            "occl": _occluded(self.frame, rects, palette),
            "bright": NetLook(BRIGHTNESS_TABLE[self.frame], rects, BRIGHTNESS_TABLE[palette]),
        }

    def frames(self, states, variant: str = "clean", threads: int = 0, out: np.ndarray | None = None) -> np.ndarray:
        """(N, 620, 840, 3) frames of facelet strings or Cubes (cogsim colouring; see ``look``), into
        ``out`` if given (a writeable uint8 array of that shape: no fresh memory to fault in)."""
        if variant not in self.looks:
            raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
        return self.looks[variant].paint(colour_ids(states), threads, out)


def _fixed_frame(data: dict) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """The frame every state shares (stickers black; they are painted over) and the index map."""
    height, width = data["frame"]
    frame = np.full((height, width, 3), data["background"], np.uint8)
    row_source = np.array(data["row_source"], np.int64)
    col_source = np.array(data["col_source"], np.int64)
    top, left = data["image_box"]
    frame[top : top + row_source.size, left : left + col_source.size] = release_canvas()[np.ix_(row_source, col_source)]
    for label in data["labels"]:
        y, x, h, w = label["top"], label["left"], label["height"], label["width"]
        pixels = np.frombuffer(zlib.decompress(base64.b64decode(label["rgb"])), np.uint8)
        frame[y : y + h, x : x + w] = pixels.reshape(h, w, 3)
    frame.flags.writeable = False
    return frame, (row_source, col_source)


def _occluded(frame: np.ndarray, rects: np.ndarray, palette: np.ndarray) -> NetLook:
    """The "occl" variant: the black band drawn over the finished frame (so over the stickers)."""
    height = frame.shape[0]
    band = max(OCCLUSION_MIN_ROWS, int(OCCLUSION_FRACTION * height))
    top = (height - band) // 2
    bottom = min(height, top + band + 1)  # ImageDraw.rectangle includes its last row
    occluded = frame.copy()
    occluded[top:bottom] = 0
    kept = []
    for slot, y0, y1, x0, x1 in rects.tolist():
        kept += [(slot, y0, min(y1, top), x0, x1), (slot, max(y0, bottom), y1, x0, x1)]
    kept = [rect for rect in kept if rect[1] < rect[2]]
    return NetLook(occluded, np.array(kept, np.int32).reshape(-1, 5), palette)


# ImageEnhance.Brightness(f) is Image.blend(black, image, f): out = (UINT8)(0 + f * v) in C floats.
BRIGHTNESS_TABLE = (np.arange(256, dtype=np.float32) * np.float32(BRIGHTNESS)).astype(np.uint8)
_FACE_INDEX = np.full(256, 255, np.uint8)
_FACE_INDEX[np.frombuffer(FACE_ORDER.encode(), np.uint8)] = np.arange(6, dtype=np.uint8)


def colour_ids(states) -> np.ndarray:
    """(N, 54) uint8: each facelet's face index in FACE_ORDER (the palette's order)."""
    text = "".join(facelets_of(state) for state in as_state_list(states))
    return _FACE_INDEX[np.frombuffer(text.encode("ascii"), np.uint8)].reshape(-1, 54)


def load_data() -> dict:
    return json.loads(resources.files("cogsim.benchmarks.cubebench").joinpath(DATA_FILE).read_text("utf-8"))


@functools.cache
def release_net() -> ReleaseNet:
    """The process's ReleaseNet (built on first use, about 10 ms)."""
    return ReleaseNet(load_data())


def release_frames(states, variant: str = "clean", threads: int = 0, out: np.ndarray | None = None) -> np.ndarray:
    """The release's frames (N, 620, 840, 3) of facelet strings or Cubes in ``variant`` (VARIANTS)."""
    return release_net().frames(states, variant, threads, out)


def release_frame(state, variant: str = "clean") -> np.ndarray:
    """The release's frame (620, 840, 3) of one state."""
    return release_frames([state], variant, threads=1)[0]


__all__ = [
    "FACE_LABELS",
    "FRAME_SIZE",
    "VARIANTS",
    "ReleaseNet",
    "release_canvas",
    "release_frame",
    "release_frames",
]


# The names of cogsim's own look, which this module held before the release's picture took its name.
__getattr__ = names_moved_to(__name__, "cogsim.benchmarks.cubebench.cogsim_look")
