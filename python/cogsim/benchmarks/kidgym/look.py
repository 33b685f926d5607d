"""KidGym's pictures as the release draws them, pixel for pixel (``look="release"``).

The release (``src/task.py`` ``render``, ``src/grid.py``, ``src/bag.py``, ``src/agent.py``, ``src/obj.py``,
the tasks' ``get_info_img``) builds every frame from its image files with Pillow: each file converted
to RGBA and resized with LANCZOS where it loads it (64 px for the grid and the backpack, 96 px for the
side bar, 16 px for the number badges), composed by Pillow's ``paste`` through the pasted image's own
alpha and by plain numpy copies. Here the images are prepared the same way with Pillow, once per
process (sprites, badged cells, backpack slots, side bars: :class:`ReleaseLook` caches them), and the
frames are composed in the core (``_core.paste_frames``: copies and Pillow's paste arithmetic,
without the GIL, over threads for a batch).

Frames are RGBA, as the release's are: its pastes blend the alpha band too, so the antialiased edge
of every sprite pasted on the opaque background keeps an alpha between 191 and 254, and its PNGs are
RGBA. cogsim sends these four bands unchanged (an RGB copy would be another picture wherever a viewer
composes that alpha).
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import NamedTuple, Optional, Sequence

import numpy as np
import PIL
from PIL import Image

from cogsim import _core, release_assets
from cogsim.benchmarks._moved import names_moved_to
from cogsim.benchmarks.kidgym import catalog as rc
from cogsim.benchmarks.kidgym import release_files as rf
from cogsim.benchmarks.kidgym.release_files import BENCHMARK, read_image_file
from cogsim.release_assets.prepared import prepared
from cogsim.render import note_changed_rows

PILLOW = PIL.__version__  # the frames' sprites are resampled by this Pillow, as the release's are by its
HEIGHT, MAIN_WIDTH, SIDE_WIDTH = 576, 448, 128
TILE, BADGE = 64, 16
BAG_ROW, BAG_LEFT, SLOT_STEP = 512, 46, 92  # the backpack strip: 4 slots of 80 px with 12 px between
MAX_SIDE_BARS = 512
COPY, BLEND = 0, 1
IMAGES = "assets/imgs/"
MAX_SIDE = 1024  # the largest release image is 776 px wide


# -- the release's image operations, with Pillow -------------------------------------------------


def _array(image: Image.Image) -> np.ndarray:
    return np.asarray(image.convert("RGBA"), dtype=np.uint8).copy()


def _resize(pixels: np.ndarray, width: int, height: int) -> np.ndarray:
    return _array(Image.fromarray(pixels, "RGBA").resize((width, height), Image.LANCZOS))


def zoom(pixels: np.ndarray, factor: float) -> np.ndarray:
    """utils.ImgZoom: the size times ``factor``, truncated, by LANCZOS."""
    height, width = pixels.shape[:2]
    return _resize(pixels, int(width * factor), int(height * factor))


def overlay(back: np.ndarray, front: np.ndarray, at: tuple[int, int] = (0, 0), centred: bool = False) -> np.ndarray:
    """utils.ImgOverlay: ``front`` pasted through its alpha at ``at`` (from the middle when centred). The
    core does Pillow's paste arithmetic (checked for every value); Pillow itself where the paste is clipped."""
    if centred:
        at = ((back.shape[1] - front.shape[1]) // 2 + at[0], (back.shape[0] - front.shape[0]) // 2 + at[1])
    x, y = at
    if 0 <= x and 0 <= y and x + front.shape[1] <= back.shape[1] and y + front.shape[0] <= back.shape[0]:
        out = np.empty((1, *back.shape), np.uint8)
        _core.paste_frames(out, [back, front], np.array([[0, COPY, 0, 0, 0], [0, BLEND, 1, x, y]], np.int32), 1)
        return out[0]
    image = Image.fromarray(back, "RGBA")
    top = Image.fromarray(front, "RGBA")
    image.paste(top, at, mask=top)
    return _array(image)


def combine(first: np.ndarray, second: np.ndarray, below: bool) -> np.ndarray:
    """utils.ImgCombine without padding: one below (or beside) the other, white where one is shorter."""
    if below:
        width = max(first.shape[1], second.shape[1])
        out = np.full((first.shape[0] + second.shape[0], width, 4), 255, np.uint8)
        out[: first.shape[0], : first.shape[1]] = first
        out[first.shape[0] :, : second.shape[1]] = second
    else:
        height = max(first.shape[0], second.shape[0])
        out = np.full((height, first.shape[1] + second.shape[1], 4), 255, np.uint8)
        out[: first.shape[0], : first.shape[1]] = first
        out[: second.shape[0], first.shape[1] :] = second
    return out


def white(height: int, width: int) -> np.ndarray:
    return np.full((height, width, 4), 255, np.uint8)


class ReleaseLook:
    """Draws KidGym scenes (``cogsim.benchmarks.kidgym.scene``) as the release does, from the release's
    image files under ``assets_root`` (paths as in the release, ``assets/imgs/...``)."""

    def __init__(self, assets_root: Path, threads: int = 0):
        self.root = Path(assets_root)
        self.threads = threads
        self._checked_paths: set[str] = set()  # release files read and checked in this process
        self._files: dict[str, np.ndarray] = {}
        self._sized: dict[tuple[str, int], np.ndarray] = {}
        self._cells: dict[tuple[str, Optional[int]], np.ndarray] = {}
        self._slots: dict[tuple[int, Optional[str]], np.ndarray] = {}
        self._agents: dict[int, np.ndarray] = {}
        self._zoomed: dict[tuple, np.ndarray] = {}
        self._side_bars: OrderedDict[str, np.ndarray] = OrderedDict()

    # -- images as the release loads them (utils.LoadImage) -----------------------------------------
    def file(self, path: str) -> np.ndarray:
        """The release file at ``path`` as RGBA, at its own size."""
        pixels = self._files.get(path)
        if pixels is None:
            sha256 = self._checked(path)
            pixels = self._files[path] = prepared(BENCHMARK, sha256, "rgba", lambda: self._decoded(path))
        return pixels

    def sized(self, path: str, size: int) -> np.ndarray:
        """The file resized to size x size by LANCZOS (LoadImage with tile_px)."""
        key = (path, size)
        pixels = self._sized.get(key)
        if pixels is None:
            sha256 = self._checked(path)
            make = lambda: _resize(self._decoded(path), size, size)  # noqa: E731
            pixels = self._sized[key] = prepared(BENCHMARK, sha256, f"rgba-lanczos-{size}", make, (size, size, 4))
        return pixels

    def _checked(self, path: str) -> str:
        """The SHA-256 of the release file at ``path``, its bytes read and checked against the
        manifest once in this process (before anything is drawn from it, prepared or not)."""
        if path not in self._checked_paths:
            read_image_file(self.root, path)
            self._checked_paths.add(path)
        return rf.manifest()["files"][path]["sha256"]

    def _decoded(self, path: str) -> np.ndarray:
        """The file decoded by Pillow as RGBA, read again (only when a prepared picture is not in the
        cache, so its bytes are not held meanwhile)."""
        data = read_image_file(self.root, path)
        with release_assets.opened_picture(BENCHMARK, path, data, MAX_SIDE) as image:
            return _array(image)

    def zoomed(self, path: str, size: int, factor: float) -> np.ndarray:
        """A file at ``size`` (0: its own), zoomed by ``factor`` (the side bars' pieces)."""
        key = (path, size, factor)
        pixels = self._zoomed.get(key)
        if pixels is None:
            pixels = self._zoomed[key] = zoom(self.sized(path, size) if size else self.file(path), factor)
        return pixels

    # -- the pieces of a frame ----------------------------------------------------------------------
    def cell(self, path: str, label: Optional[int]) -> np.ndarray:
        """obj.render: the 64 px sprite, with its 16 px number badge at the bottom centre."""
        key = (path, label)
        pixels = self._cells.get(key)
        if pixels is None:
            pixels = self.sized(path, TILE)
            if label is not None:
                badge = self.sized(IMAGES + rc.NUMBER.format(label), BADGE)
                pixels = overlay(pixels, badge, ((TILE - BADGE) // 2, TILE - BADGE))
            self._cells[key] = pixels
        return pixels

    def agent(self, direction: int) -> np.ndarray:
        pixels = self._agents.get(direction)
        if pixels is None:
            arrow = self.sized(IMAGES + rc.DIRECTION.format(direction), TILE)
            pixels = self._agents[direction] = overlay(self.sized(IMAGES + rc.AGENT, TILE), arrow)
        return pixels

    def slot(self, index: int, path: Optional[str]) -> np.ndarray:
        """bag.renderSingle: the lettered frame, with the item's 64 px sprite at 0.8 inside."""
        key = (index, path)
        pixels = self._slots.get(key)
        if pixels is None:
            frame = self.file(IMAGES + rc.SLOT.format("ABCD"[index]))
            pixels = frame if path is None else overlay(frame, zoom(self.sized(path, TILE), 0.8), (10, 0), True)
            self._slots[key] = pixels
        return pixels

    def side_bar(self, content: dict) -> np.ndarray:
        """The 576 x 128 side bar of the tasks' get_info_img."""
        key = repr(sorted(content.items()))
        pixels = self._side_bars.get(key)
        if pixels is not None:
            self._side_bars.move_to_end(key)
            return pixels
        pixels = self._draw_side_bar(content)
        self._side_bars[key] = pixels
        if len(self._side_bars) > MAX_SIDE_BARS:
            self._side_bars.popitem(last=False)
        return pixels

    def _draw_side_bar(self, content: dict) -> np.ndarray:
        bar = white(HEIGHT, SIDE_WIDTH)
        kind = content["kind"]
        if kind == "remember":
            items = content["items"]
            if len(items) == 1:
                return overlay(bar, self.zoomed(items[0], 96, 0.6), centred=True)
            stack = self.sized(items[0], 96)
            for path in items[1:]:
                stack = combine(stack, self.sized(path, 96), below=True)
            return overlay(bar, zoom(stack, 0.6), centred=True)
        if kind == "pairs":
            table = None
            for left, right in content["pairs"]:
                row = self._pair(left, right)
                table = row if table is None else combine(table, row, below=True)
            bar = overlay(bar, table, centred=True)
            if content.get("target"):
                box = overlay(
                    self.zoomed(IMAGES + rc.TARGET_BOX, 0, 0.6),
                    self.zoomed(content["target"], 96, 0.6),
                    centred=True,
                )
                bar = overlay(bar, box, (0, -3 * TILE), centred=True)
            return bar
        if kind == "target":
            box = overlay(
                self.zoomed(IMAGES + rc.TARGET_BOX, 0, 1.1), self.zoomed(content["target"], 96, 0.9), centred=True
            )
            return overlay(bar, box, centred=True)
        if kind == "picture":
            p = [self.sized(path, 96) for path in content["pieces"]]
            picture = zoom(combine(combine(p[0], p[1], below=False), combine(p[2], p[3], below=False), below=True), 0.6)
            box = overlay(self.zoomed(IMAGES + rc.TARGET_BOX, 0, 1.1), zoom(picture, content["zoom"]), centred=True)
            return overlay(bar, box, centred=True)
        raise ValueError(f"unknown side bar kind {kind!r}")

    def _pair(self, left: str, right: str) -> np.ndarray:
        """render_decode_relationship: two items at half size on white, an arrow between them."""
        halves = [self._half(path) for path in (left, right)]
        arrow = self.zoomed(IMAGES + rc.ARROW, 0, 0.2)
        return overlay(combine(halves[0], halves[1], below=False), arrow, centred=True)

    def _half(self, path: str) -> np.ndarray:
        """An item at half its 96 px size on a white 64 px tile."""
        key = (path, "half")
        pixels = self._zoomed.get(key)
        if pixels is None:
            pixels = self._zoomed[key] = overlay(white(TILE, TILE), self.zoomed(path, 96, 0.5), centred=True)
        return pixels

    # -- frames -------------------------------------------------------------------------------------
    def ops(self, scene: dict) -> list[tuple[int, np.ndarray, int, int]]:
        """How the release composes a scene's frame: (COPY or BLEND, image, x, y) in drawing order, the
        copies first (they cover the whole frame)."""
        ops: list[tuple[int, np.ndarray, int, int]] = []
        left = 0
        if scene["side_bar"] is not None:
            ops.append((COPY, self.side_bar(scene["side_bar"]), 0, 0))
            left = SIDE_WIDTH
        ops.append((COPY, self.file(scene["background"]), left, 0))
        gx, gy = scene["grid_at"][0] + left, scene["grid_at"][1]
        for o in scene["objects"]:
            if o["shown"]:
                x, y = o["cell"]
                ops.append(
                    (
                        BLEND,
                        self.cell(o["image"], o["label"] if scene["labels"] else None),
                        gx + TILE * x,
                        gy + TILE * y,
                    )
                )
        ax, ay = scene["agent"]["cell"]
        ops.append((BLEND, self.agent(scene["agent"]["direction"]), gx + TILE * ax, gy + TILE * ay))
        for k, path in enumerate(scene["backpack"]):
            ops.append((BLEND, self.slot(k, path), left + BAG_LEFT + SLOT_STEP * k, BAG_ROW))
        return ops

    def draw(self, scenes: Sequence[dict]) -> np.ndarray:
        """Frames of scenes of one size: uint8 (N, 576, W, 4), W = 448, or 576 with a side bar."""
        return self._compose([self.ops(s) for s in scenes], scenes)

    def _compose(self, frames_ops: Sequence[list], scenes: Sequence[dict]) -> np.ndarray:
        if not scenes:
            raise ValueError("draw needs at least one scene")
        sizes = {tuple(s["size"]) for s in scenes}
        if len(sizes) != 1:
            raise ValueError(f"draw takes scenes of one size, got {sorted(sizes)}")
        width, height = sizes.pop()
        sources: list[np.ndarray] = []
        index: dict[int, int] = {}
        table: list[tuple[int, int, int, int, int]] = []
        for f, ops in enumerate(frames_ops):
            for kind, pixels, x, y in ops:
                at = index.get(id(pixels))
                if at is None:
                    at = index[id(pixels)] = len(sources)
                    sources.append(pixels)
                table.append((f, kind, at, x, y))
        out = np.empty((len(scenes), height, width, 4), np.uint8)
        _core.paste_frames(out, sources, np.asarray(table, np.int32).reshape(-1, 5), self.threads)
        return out

    def frame(self, scene: dict) -> np.ndarray:
        return self.draw([scene])[0]

    def frame_after(self, scene: dict, before: Optional["Drawn"]) -> "Drawn":
        """A scene's frame and how it was composed. After ``before`` (the frame drawn before it for the
        same episode) the rows where the two frames can differ are noted for the frame's PNG
        (``cogsim.render.note_changed_rows``): its other bands are then taken from that frame's."""
        ops = self.ops(scene)
        frame = self._compose([ops], [scene])[0]
        if before is not None and before.frame.shape == frame.shape:
            note_changed_rows(frame, before.frame, changed_rows(before.ops, ops, frame.shape[0]))
        return Drawn(frame, ops)


class Drawn(NamedTuple):
    """A frame and the ops that composed it (holding their images, so that none is replaced by another
    at the same address while the next frame is compared with it)."""

    frame: np.ndarray
    ops: list


def changed_rows(before: Sequence[tuple], after: Sequence[tuple], height: int) -> list[tuple[int, int]]:
    """The rows (start, end) where a frame composed by ``after`` can differ from one composed by
    ``before``: those of the ops between the ones both lists start and end with (an image is the same
    when it is the same array). Every pixel outside them is drawn by those shared ops alone, in the
    same order."""
    old = [(op[0], id(op[1]), op[2], op[3]) for op in before]
    new = [(op[0], id(op[1]), op[2], op[3]) for op in after]
    first, shared_end = 0, min(len(old), len(new))
    while first < shared_end and old[first] == new[first]:
        first += 1
    last = 0  # ops both end with
    while last < shared_end - first and old[-1 - last] == new[-1 - last]:
        last += 1
    rows = []
    for ops in (before, after):
        for _, image, _, y in ops[first : len(ops) - last]:
            rows.append((max(y, 0), min(y + image.shape[0], height)))
    return rows


# The names of cogsim's own look, which this module held before the release's picture took its name.
__getattr__ = names_moved_to(__name__, "cogsim.benchmarks.kidgym.cogsim_look")
