"""Matching Pairs boards drawn as RNG-Bench's release draws them (the pairs envs' ``look="release"``).

The release (``1_matching_pairs_new``) draws a board with ``env/renderer.py`` (``ImageCardRenderer``)
from the card images of ``env/card_assets.py`` (``CardAssets``), and sends it as a JPEG of quality 85
(``common/image_store.py``: ``save(format="JPEG", quality=85, optimize=True)``). Its facts, as drawn
here:

- a card is a ``cell`` x ``cell`` picture (64 by default: ``--cell-size``): a face is the theme's image
  file, ``convert("RGBA").resize((cell, cell))`` (Pillow's default filter for RGBA, bicubic); the back
  is a blue checkerboard with a light border and an empty slot a light dashed outline, both drawn with
  Pillow; each is flattened onto white through its alpha before it is pasted, so every card is opaque;
- faces: the theme folder's image files sorted by name, ``random.Random(seed).sample`` of as many as
  the board has pairs, identity i the i-th drawn;
- the board: green felt (50, 120, 50), cards ``gap`` = 4 px apart after a label margin of 24 px,
  column letters A, B, ... and row letters a, b, ... in white DejaVuSans-Bold 16; 708 x 708 for
  10 x 10 cards, 708 x 572 for 8 x 10;
- a card is shown face up while it is revealed (even if the pair was just matched), as an empty slot
  once matched, else face down;
- the oracle condition (``common/oracle_memory.py``): the live board and a memory aid (every card
  revealed so far that is still on the board, face up) side by side on light grey (245), titled in
  DejaVuSans-Bold 14, with a grey divider;
- with no theme (cogsim's "ascii") the release draws its text board instead (``ImageRenderer``): the
  bracketed text in DejaVuSansMono 36 on white.

The release loads its fonts from the system; cogsim uses matplotlib's bundled DejaVu files, which
the goldens were drawn with (docs/fidelity.md). The images come from the user's installed copy of
the release (``cogsim.release_assets``, benchmark "rngbench"), never from this package.

Everything that does not change within an episode (felt and labels per board size, the flattened
backs, slots and faces) is drawn once with Pillow, as the release draws it; a frame is then those
opaque pictures pasted in the core (``_core.paste_tiles``), which changes no pixel.
"""

from __future__ import annotations

import importlib.util
import random
import string
import sys
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont, features

from cogsim import _core, release_assets
from cogsim.benchmarks._moved import names_moved_to

BENCHMARK = "rngbench"
MAX_FACE_SIDE = 1024  # the release's largest card face is 222 x 323 px
ASSETS = "1_matching_pairs_new/assets"
# cogsim's theme names (envs.pairs.THEMES values) -> the release's asset folders.
THEME_FOLDERS = {
    "poker": "poker",
    "noise": "noise",
    "textures": "textures",
    "shapes": "abstract",
    "colors": "similar_colors",
}
TEXT_THEME = "ascii"  # drawn as the release's text board, no files needed
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".webp")
CELL = 64
GAP = 4
LABEL_SIZE = 16
LABEL_MARGIN = LABEL_SIZE + 8
FELT = (50, 120, 50)
BACK, BACK_CHECK, BACK_BORDER = (30, 80, 160), (40, 100, 180), (200, 200, 255)
SLOT, SLOT_DASH = (240, 240, 240, 128), (180, 180, 180)
ORACLE_PAD, ORACLE_GAP, ORACLE_BAR, ORACLE_TITLE_SIZE = 10, 30, 26, 14
ORACLE_BACKGROUND, ORACLE_DIVIDER = (245, 245, 245), (205, 205, 205)
ORACLE_TITLES = (("Live board", (40, 40, 40)), ("Memory aid (revealed cards)", (40, 60, 120)))
TEXT_FONT_SIZE, TEXT_PADDING = 36, 40
# How the release sends a board (the env's frame_format()): JPEG, quality 85, optimized Huffman tables
# (``common/image_store.py``, ImageStore.save_pil).
FRAME_FORMAT = {"format": "jpeg", "quality": 85, "optimize": True}
_SYMBOLS = string.digits + string.ascii_uppercase + string.ascii_lowercase
FACE_DOWN, FACE_UP, REMOVED = 0, 1, 2


def font_file(name: str) -> str:
    """A DejaVu face bundled with matplotlib (a dependency): the same file on every machine."""
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or spec.origin is None:
        raise ValueError("the release look needs matplotlib's bundled DejaVu fonts: pip install matplotlib")
    return str(Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf" / name)


def check_text_layout() -> None:
    """AssetsMissing unless Pillow lays text out with Raqm here. Pillow picks Raqm where the FriBiDi
    library is installed and its basic layout elsewhere, and the two kern the labels apart (a label
    board 3 to 5 pixels wider or narrower): the release draws whichever its machine has, cogsim draws
    Raqm's, as the goldens were drawn by the release's code, so every machine sends the same bytes."""
    if not features.check("raqm"):
        raise release_assets.AssetsMissing(
            "Matching Pairs' release pictures lay their labels out with Pillow's Raqm engine, which needs the "
            "FriBiDi library: run `apt-get install libfribidi0` (Debian/Ubuntu; scripts/setup.sh does as root), "
            "or choose look='cogsim'"
        )


@lru_cache(maxsize=8)
def _font(name: str, size: int) -> ImageFont.FreeTypeFont:
    check_text_layout()
    return ImageFont.truetype(font_file(name), size, layout_engine=ImageFont.Layout.RAQM)


def needs_files(theme: str) -> bool:
    return theme != TEXT_THEME


def theme_files(theme: str) -> list[str]:
    """The release's face files of a theme (paths in the release), sorted by name as CardAssets sorts them."""
    return list(_theme_files(theme, release_assets.manifest(BENCHMARK)))


@lru_cache(maxsize=32)
def _theme_files(theme: str, manifest: release_assets.Manifest) -> tuple[str, ...]:
    folder = f"{ASSETS}/{THEME_FOLDERS[theme]}/"
    names = [
        path
        for path in manifest.files
        if path.startswith(folder)
        and "/" not in path[len(folder) :]
        and path.lower().endswith(IMAGE_SUFFIXES)
        and not path.endswith("/back.png")
    ]
    return tuple(sorted(names, key=lambda path: path[len(folder) :]))


def capacity(theme: str) -> int:
    """Distinct faces the release has for a theme (pairs a board may have)."""
    return len(theme_files(theme)) if needs_files(theme) else 10**6


def release_faces(theme: str, seed: int, pairs: int) -> list[str]:
    """CardAssets.select: ``random.Random(seed).sample`` of the sorted files; identity i draws the i-th."""
    files = theme_files(theme)
    if pairs > len(files):
        raise ValueError(f"the release's {theme!r} theme has {len(files)} faces, the board needs {pairs} pairs")
    return random.Random(seed).sample(files, pairs)


# -- cards, drawn once ---------------------------------------------------------------------------
def _flattened(card: Image.Image) -> np.ndarray:
    """The card as ImageCardRenderer pastes it: an RGBA card composited onto white through its alpha."""
    background = Image.new("RGB", card.size, (255, 255, 255))
    background.paste(card, mask=card.split()[3])
    return np.asarray(background)


def face_tile(path: str, cell: int = CELL) -> np.ndarray:
    """A face as the release pastes it, read once per process (keyed by the file's hash too)."""
    return _face_tile(path, release_assets.manifest(BENCHMARK).files[path]["sha256"], cell)


@lru_cache(maxsize=1024)
def _face_tile(path: str, sha256: str, cell: int) -> np.ndarray:
    data = release_assets.read(BENCHMARK, path)
    with release_assets.opened_picture(BENCHMARK, path, data, MAX_FACE_SIDE) as image:
        return _flattened(image.convert("RGBA").resize((cell, cell)))


@lru_cache(maxsize=16)
def back_tile(cell: int = CELL) -> np.ndarray:
    card = Image.new("RGBA", (cell, cell), BACK)
    draw = ImageDraw.Draw(card)
    square = max(cell // 8, 4)
    for i in range(0, cell, square * 2):
        for j in range(0, cell, square * 2):
            draw.rectangle([i, j, i + square, j + square], fill=BACK_CHECK)
            draw.rectangle([i + square, j + square, i + square * 2, j + square * 2], fill=BACK_CHECK)
    draw.rectangle([1, 1, cell - 2, cell - 2], outline=BACK_BORDER, width=2)
    return _flattened(card)


@lru_cache(maxsize=16)
def slot_tile(cell: int = CELL) -> np.ndarray:
    card = Image.new("RGBA", (cell, cell), SLOT)
    draw = ImageDraw.Draw(card)
    dash = max(cell // 10, 3)
    for x in range(0, cell, dash * 2):
        draw.line([(x, 0), (min(x + dash, cell), 0)], fill=SLOT_DASH, width=1)
        draw.line([(x, cell - 1), (min(x + dash, cell), cell - 1)], fill=SLOT_DASH, width=1)
    for y in range(0, cell, dash * 2):
        draw.line([(0, y), (0, min(y + dash, cell))], fill=SLOT_DASH, width=1)
        draw.line([(cell - 1, y), (cell - 1, min(y + dash, cell))], fill=SLOT_DASH, width=1)
    return _flattened(card)


# -- board layout and the fixed layers ----------------------------------------------------------
def board_size(rows: int, cols: int, cell: int = CELL) -> tuple[int, int]:
    return LABEL_MARGIN + cols * (cell + GAP) + GAP, LABEL_MARGIN + rows * (cell + GAP) + GAP


def card_origins(rows: int, cols: int, cell: int = CELL) -> np.ndarray:
    """(rows * cols, 2) top-left (x, y) of each card, row-major."""
    r, c = np.divmod(np.arange(rows * cols), cols)
    start = LABEL_MARGIN + GAP
    return np.stack([start + c * (cell + GAP), start + r * (cell + GAP)], axis=1).astype(np.int32)


def _board_base_image(rows: int, cols: int, cell: int) -> Image.Image:
    image = Image.new("RGB", board_size(rows, cols, cell), FELT)
    draw = ImageDraw.Draw(image)
    font = _font("DejaVuSans-Bold.ttf", LABEL_SIZE)
    for c in range(cols):
        x = LABEL_MARGIN + GAP + c * (cell + GAP) + cell // 2
        draw.text((x, 2), string.ascii_uppercase[c], fill="white", font=font, anchor="mt")
    for r in range(rows):
        y = LABEL_MARGIN + GAP + r * (cell + GAP)
        draw.text((LABEL_MARGIN // 2, y + cell // 2), string.ascii_lowercase[r], fill="white", font=font, anchor="mm")
    return image


@lru_cache(maxsize=64)
def board_base(rows: int, cols: int, cell: int = CELL) -> np.ndarray:
    """The felt and the labels of a board, before any card."""
    return np.asarray(_board_base_image(rows, cols, cell))


def oracle_offsets(rows: int, cols: int, cell: int = CELL) -> tuple[tuple[int, int], tuple[int, int]]:
    width, _ = board_size(rows, cols, cell)
    top = ORACLE_BAR + ORACLE_PAD
    return (ORACLE_PAD, top), (ORACLE_PAD + width + ORACLE_GAP, top)


def _oracle_canvas(left: Image.Image, right: Image.Image) -> Image.Image:
    """The oracle condition's frame around two boards (common/oracle_memory.py's layout)."""
    body = max(left.height, right.height)
    width = ORACLE_PAD + left.width + ORACLE_GAP + right.width + ORACLE_PAD
    height = ORACLE_BAR + ORACLE_PAD + body + ORACLE_PAD
    canvas = Image.new("RGB", (width, height), ORACLE_BACKGROUND)
    draw = ImageDraw.Draw(canvas)
    font = _font("DejaVuSans-Bold.ttf", ORACLE_TITLE_SIZE)
    (title_left, colour_left), (title_right, colour_right) = ORACLE_TITLES
    draw.text((ORACLE_PAD, 6), title_left, fill=colour_left, font=font)
    draw.text((ORACLE_PAD + left.width + ORACLE_GAP, 6), title_right, fill=colour_right, font=font)
    divider = ORACLE_PAD + left.width + ORACLE_GAP // 2
    draw.line([(divider, ORACLE_BAR), (divider, height - ORACLE_PAD)], fill=ORACLE_DIVIDER, width=2)
    canvas.paste(left, (ORACLE_PAD, ORACLE_BAR + ORACLE_PAD))
    canvas.paste(right, (ORACLE_PAD + left.width + ORACLE_GAP, ORACLE_BAR + ORACLE_PAD))
    return canvas


@lru_cache(maxsize=64)
def oracle_base(rows: int, cols: int, cell: int = CELL) -> np.ndarray:
    """The oracle frame with both boards' felt and labels, before any card."""
    board = _board_base_image(rows, cols, cell)
    return np.asarray(_oracle_canvas(board, board))


# -- frames ------------------------------------------------------------------------------------
class FrameArena:
    """Memory for frames, handed out from large blocks and reused once no frame of a block is alive.

    A frame drawn into fresh memory costs more in page faults than in pixels (a 708 x 708 board is
    1.5 MB: hundreds of faults, each zeroing a page, against a few tens of microseconds of copying).
    Frames here are views into blocks of ``block_bytes`` (large pages where the kernel gives them);
    a block whose frames are all gone (only the arena still holds it) is filled again from the start.
    """

    def __init__(self, block_bytes: int = 32 << 20, spare_blocks: int = 4):
        self.block_bytes, self.spare_blocks = block_bytes, spare_blocks
        self.blocks: list[np.ndarray] = []
        self.current: np.ndarray | None = None
        self.offset = 0
        self.lock = threading.Lock()

    def take(self, shape: tuple) -> np.ndarray:
        size = int(np.prod(shape))
        with self.lock:
            if self.current is None or self.offset + size > self.current.size:
                self.current, self.offset = self._block(size), 0
            frame = self.current[self.offset : self.offset + size].reshape(shape)
            self.offset += -(-size // 64) * 64  # frames start on cache lines
        return frame

    def _block(self, size: int) -> np.ndarray:
        # A block is free when only the arena's list refers to it (getrefcount counts its own argument too).
        free = [i for i in range(len(self.blocks)) if sys.getrefcount(self.blocks[i]) <= 2]
        for i in reversed(free[self.spare_blocks :]):  # keep a few free blocks, give the rest back
            del self.blocks[i]
        for i in free[: self.spare_blocks]:
            if self.blocks[i].size >= size:
                return self.blocks[i]
        block = np.empty(max(self.block_bytes, size), np.uint8)
        self.blocks.append(block)
        return block


FRAMES = FrameArena()


@dataclass(frozen=True)
class View:
    """One frame: a board as shown (per card FACE_DOWN, FACE_UP or REMOVED), or with ``memory`` the
    oracle frame of the live board ``shown`` beside the memory aid ``memory``."""

    shown: np.ndarray
    memory: np.ndarray | None = None


class ReleaseBoards:
    """The release's pictures of one deal: its faces for the seed, and frames of any views of it."""

    def __init__(self, identities: np.ndarray, theme: str, seed: int, cell: int = CELL):
        self.identities = np.asarray(identities)
        self.rows, self.cols = self.identities.shape
        self.theme, self.cell = theme, cell
        pairs = self.identities.size // 2
        if needs_files(theme):
            files = release_assets.manifest(BENCHMARK).files
            self.face_files = [(path, files[path]["sha256"]) for path in release_faces(theme, seed, pairs)]
            # tile 0: back, 1: empty slot, 2 + i: identity i's face, read when it is first shown
            self.tiles = np.zeros((2 + pairs, cell, cell, 3), np.uint8)
            self.tiles[0], self.tiles[1] = back_tile(cell), slot_tile(cell)
            self.loaded = np.zeros(pairs, bool)
            self.origins = card_origins(self.rows, self.cols, cell)
            self._layouts: dict = {}

    def frames(self, views: Sequence[View], threads: int = 1) -> list[np.ndarray]:
        if not needs_files(self.theme):
            return [self._text_frame(view) for view in views]
        frames: list = [None] * len(views)
        for oracle in (False, True):
            chosen = [i for i, view in enumerate(views) if (view.memory is not None) == oracle]
            if chosen:
                for i, frame in zip(chosen, self._frames([views[i] for i in chosen], oracle, threads)):
                    frames[i] = frame
        return frames

    def _frames(self, views: Sequence[View], oracle: bool, threads: int) -> list[np.ndarray]:
        """Frames of one layout (boards, or oracle frames): per card its tile (0 back, 1 empty slot, 2 + identity
        face up) at its place; faces are read the first time they are shown."""
        tile_of, template, base = self._layout(oracle)
        states = np.stack([self._state(view, oracle) for view in views])
        tiles = tile_of[states, np.arange(states.shape[1])]
        self._load_faces(tiles)
        placements = np.repeat(template[None], len(views), axis=0)
        placements[:, :, 0] = tiles
        outs = [FRAMES.take(base.shape) for _ in views]
        _core.paste_tiles(base[None], np.zeros(len(views), np.int32), self.tiles, placements, outs, threads)
        return outs

    @staticmethod
    def _state(view: View, oracle: bool) -> np.ndarray:
        live = np.asarray(view.shown, np.uint8).ravel()
        return np.concatenate([live, np.asarray(view.memory, np.uint8).ravel()]) if oracle else live

    def _layout(self, oracle: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if oracle not in self._layouts:
            self._layouts[oracle] = self._make_layout(oracle)
        return self._layouts[oracle]

    def _make_layout(self, oracle: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(tile per state and card, placements with the cards' places, base) of boards or oracle frames."""
        ids = self.identities.ravel().astype(np.int32)
        # row s: each card's tile in state s (FACE_DOWN 0: the back, FACE_UP 1: its face, REMOVED 2: the empty slot)
        tile_of = np.stack([np.zeros_like(ids), 2 + ids, np.ones_like(ids)])
        if not oracle:
            places, base = self.origins, board_base(self.rows, self.cols, self.cell)
        else:
            (lx, ly), (rx, ry) = oracle_offsets(self.rows, self.cols, self.cell)
            places = np.concatenate([self.origins + (lx, ly), self.origins + (rx, ry)])
            tile_of, base = np.concatenate([tile_of, tile_of], axis=1), oracle_base(self.rows, self.cols, self.cell)
        template = np.zeros((len(places), 3), np.int32)
        template[:, 1:] = places
        return tile_of, template, base

    def _load_faces(self, tiles: np.ndarray) -> None:
        if self.loaded.all():
            return
        shown = np.unique(tiles[tiles >= 2]) - 2
        for identity in shown[~self.loaded[shown]].tolist():
            self.tiles[2 + identity] = _face_tile(*self.face_files[identity], self.cell)
            self.loaded[identity] = True

    # The release's text board (no theme): drawn with Pillow as the release draws it.
    def _text_frame(self, view: View) -> np.ndarray:
        live = text_board_image(self.identities, view.shown)
        if view.memory is None:
            return np.array(live)
        return np.array(_oracle_canvas(live, text_board_image(self.identities, view.memory)))


def text_board_lines(identities: np.ndarray, shown: np.ndarray) -> list[str]:
    """The release's TextRenderer board: bracketed cells, '*' face down, the symbol face up, ' ' removed."""
    ids = np.asarray(identities)
    rows, cols = ids.shape
    pairs = ids.size // 2
    symbols = list(_SYMBOLS[:pairs]) if pairs <= len(_SYMBOLS) else [str(i) for i in range(pairs)]
    width = max((len(s) for s in symbols), default=1)

    def cell(text: str) -> str:
        return f"[{text:>{width}}]"

    lines = [" " * 2 + "".join(cell(string.ascii_uppercase[c]) for c in range(cols))]
    for r in range(rows):
        marks = []
        for c in range(cols):
            state = shown[r, c]
            marks.append(cell(symbols[ids[r, c]] if state == FACE_UP else " " if state == REMOVED else "*"))
        lines.append(f"{string.ascii_lowercase[r]} " + "".join(marks))
    return lines


def text_board_image(identities: np.ndarray, shown: np.ndarray) -> Image.Image:
    return _text_image(tuple(text_board_lines(identities, shown)))


@lru_cache(maxsize=256)
def _text_image(lines: tuple[str, ...]) -> Image.Image:
    font = _font("DejaVuSansMono.ttf", TEXT_FONT_SIZE)
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    line_height = TEXT_FONT_SIZE + 8
    width = int(max(measure.textlength(line, font=font) for line in lines) + TEXT_PADDING * 2)
    height = int(len(lines) * line_height + TEXT_PADDING * 2)
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((TEXT_PADDING, TEXT_PADDING + i * line_height), line, fill="black", font=font)
    return image


# The names of cogsim's own look, which this module held before the release's picture took its name.
__getattr__ = names_moved_to(__name__, "cogsim.benchmarks.rngbench.pairs.cogsim_look")
