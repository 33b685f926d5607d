#!/usr/bin/env python3
"""Derives the data of Cube Bench's release net from matplotlib (``look="release"``).

The release draws its net through matplotlib (``_canvas_to_figure``): the canvas resampled into the
axes that ``tight_layout`` leaves, labels drawn over it. This script draws that figure from the
release's parameters (the facts in ``cogsim.benchmarks.cubebench.look``; none of the release's code) and
keeps what the frames need: the canvas row and column every frame row and column of the image box
shows (a separable nearest-neighbour map, read off a canvas whose pixels encode their own
coordinates) and the pixels of the six labels. It then checks that frames rebuilt from the data
equal matplotlib's for random sticker colours, and writes
python/cogsim/benchmarks/cubebench/release_net.json.

matplotlib must be the pinned version (its Agg rasteriser and bundled DejaVu Sans Bold draw the
labels), with its default settings:

    python scripts/build_cubebench_release_net.py          # write the data
    python scripts/build_cubebench_release_net.py --check  # compare with the committed data
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import zlib
from collections import deque
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib import font_manager  # noqa: E402

from cogsim.benchmarks.cubebench import look as net  # noqa: E402

PINNED_MATPLOTLIB = "3.11.2"
OUTPUT = Path(__file__).resolve().parents[1] / "python" / "cogsim" / "benchmarks" / "cubebench" / net.DATA_FILE


def figure_pixels(canvas: np.ndarray) -> np.ndarray:
    """The RGB frame matplotlib draws for a canvas with the release's figure parameters."""
    height, width = canvas.shape[:2]
    fig, ax = plt.subplots(figsize=(width / net.DPI, height / net.DPI), dpi=net.DPI)
    fig.patch.set_facecolor((net.FIGURE_GREY / 255,) * 3)
    ax.set_position([0, 0, 1, 1])
    ax.imshow(canvas, interpolation="nearest")
    ax.axis("off")
    style = net.LABEL_STYLE
    for face, (x, y) in net.label_anchors().items():
        ax.text(
            x,
            y,
            net.FACE_LABELS[face],
            ha="center",
            va="bottom",
            fontsize=style["fontsize"],
            color=style["color"],
            fontweight=style["fontweight"],
            bbox=dict(net.LABEL_BOX),
        )
    fig.tight_layout(pad=0)
    fig.canvas.draw()
    rgba = np.asarray(fig.canvas.buffer_rgba())
    plt.close(fig)
    return rgba[..., :3].copy()


def index_map() -> tuple[tuple[int, int], np.ndarray, np.ndarray]:
    """The image box's top-left and the canvas row/column each of its frame rows/columns shows.

    Two canvases whose pixels encode (x, y) and its complement: where the frame shows the canvas
    unchanged the two frames sum to 255 in every channel, and the first decodes to the coordinates."""
    height, width = net.CANVAS_SIZE
    y, x = np.mgrid[0:height, 0:width]
    coded = np.stack([x & 255, (x >> 8) | ((y & 63) << 2), (y >> 6) + 16], axis=-1).astype(np.uint8)
    shown = figure_pixels(coded).astype(np.int64)
    shown_inverse = figure_pixels(255 - coded).astype(np.int64)
    unchanged = ((shown + shown_inverse) == 255).all(axis=-1)
    source_x = shown[..., 0] | ((shown[..., 1] & 3) << 8)
    source_y = (shown[..., 1] >> 2) | ((shown[..., 2] - 16) << 6)
    rows, cols = np.flatnonzero(unchanged.any(axis=1)), np.flatnonzero(unchanged.any(axis=0))
    top, left = int(rows[0]), int(cols[0])
    row_source = _one_value_per_line(source_y[top : rows[-1] + 1], unchanged[top : rows[-1] + 1], axis=1)
    col_source = _one_value_per_line(source_x[:, left : cols[-1] + 1], unchanged[:, left : cols[-1] + 1], axis=0)
    if (np.diff(row_source) <= 0).any() or (np.diff(col_source) <= 0).any():
        raise SystemExit("the index map is not increasing: not a nearest-neighbour resampling")
    return (top, left), row_source, col_source


def _one_value_per_line(values: np.ndarray, valid: np.ndarray, axis: int) -> np.ndarray:
    """The one value each row (axis=1) or column (axis=0) holds at its valid pixels; exit if not one."""
    out = []
    for line, keep in zip(np.moveaxis(values, axis - 1, 0), np.moveaxis(valid, axis - 1, 0)):
        seen = np.unique(line[keep])
        if seen.size != 1:
            raise SystemExit(f"the index map is not separable: a line shows canvas lines {seen[:8].tolist()}")
        out.append(int(seen[0]))
    return np.array(out)


def label_patches(frame: np.ndarray, plain: np.ndarray) -> list[dict]:
    """The bounding box and pixels of each label: a connected group of pixels where the frame differs
    from the canvas shown without labels."""
    differs = (frame != plain).any(axis=-1)
    seen = np.zeros_like(differs)
    patches = []
    for start in zip(*np.nonzero(differs)):
        if seen[start]:
            continue
        group, queue = [start], deque([start])
        seen[start] = True
        while queue:
            y, x = queue.popleft()
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    p = (y + dy, x + dx)
                    if 0 <= p[0] < differs.shape[0] and 0 <= p[1] < differs.shape[1] and differs[p] and not seen[p]:
                        seen[p] = True
                        group.append(p)
                        queue.append(p)
        ys, xs = np.array(group).T
        top, left, bottom, right = int(ys.min()), int(xs.min()), int(ys.max()) + 1, int(xs.max()) + 1
        pixels = np.ascontiguousarray(frame[top:bottom, left:right])
        patches.append(
            {
                "top": top,
                "left": left,
                "height": bottom - top,
                "width": right - left,
                "rgb": base64.b64encode(zlib.compress(pixels.tobytes(), 9)).decode("ascii"),
            }
        )
    if len(patches) != len(net.FACE_LABELS):
        raise SystemExit(f"expected {len(net.FACE_LABELS)} labels, found {len(patches)} groups of label pixels")
    return sorted(patches, key=lambda p: (p["top"], p["left"]))


def derive() -> dict:
    (top, left), row_source, col_source = index_map()
    height, width = net.FRAME_SIZE
    plain = np.full((height, width, 3), net.FIGURE_GREY, np.uint8)
    plain[top : top + row_source.size, left : left + col_source.size] = net.release_canvas()[
        np.ix_(row_source, col_source)
    ]
    data = {
        "source": (
            "derived by scripts/build_cubebench_release_net.py from matplotlib "
            f"{matplotlib.__version__} (Agg, bundled DejaVu Sans Bold, default settings) with the parameters of "
            "cube-bench sim/cube_simulator.py _canvas_to_figure (release 1ca7d58)"
        ),
        "matplotlib": matplotlib.__version__,
        "frame": [height, width],
        "background": net.FIGURE_GREY,
        "image_box": [top, left],
        "row_source": row_source.tolist(),
        "col_source": col_source.tolist(),
        "labels": label_patches(figure_pixels(net.release_canvas()), plain),
    }
    check(data)
    return data


def check(data: dict) -> None:
    """Frames rebuilt from the data equal matplotlib's, for random colours and the label/sticker split."""
    release_net = net.ReleaseNet(data)
    sticker_pixels = np.zeros(release_net.frame.shape[:2], bool)
    for _, y0, y1, x0, x1 in release_net.looks["clean"].rects.tolist():
        sticker_pixels[y0:y1, x0:x1] = True
    for label in data["labels"]:
        if sticker_pixels[
            label["top"] : label["top"] + label["height"], label["left"] : label["left"] + label["width"]
        ].any():
            raise SystemExit("a label overlaps a sticker: the frame is not a fixed frame plus sticker rectangles")
    rng = np.random.default_rng(20260826)
    for _ in range(4):
        facelets = "".join(rng.choice(list(net.FACE_ORDER), 54))
        expected = figure_pixels(net.release_canvas(facelets))
        if not np.array_equal(release_net.frames([facelets])[0], expected):
            raise SystemExit(f"rebuilt frame differs from matplotlib's for {facelets}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed data instead of writing")
    args = parser.parse_args()
    if matplotlib.__version__ != PINNED_MATPLOTLIB:
        sys.exit(f"matplotlib {PINNED_MATPLOTLIB} is pinned for these pixels, found {matplotlib.__version__}")
    matplotlib.rcdefaults()
    matplotlib.use("Agg")
    font = font_manager.findfont(font_manager.FontProperties(family="sans-serif", weight="bold"))
    if (
        not Path(font).resolve().is_relative_to(Path(matplotlib.get_data_path()).resolve())
        or "DejaVuSans-Bold" not in font
    ):
        sys.exit(f"matplotlib would draw the labels with {font}, not its bundled DejaVu Sans Bold")
    data = derive()
    text = "{\n" + ",\n".join(f" {json.dumps(key)}: {json.dumps(value)}" for key, value in data.items()) + "\n}\n"
    if args.check:
        if OUTPUT.read_text("utf-8") != text:
            sys.exit(f"{OUTPUT} differs from what matplotlib {matplotlib.__version__} draws")
        print(f"{OUTPUT.name}: up to date")
        return
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT} ({len(text):,} bytes)")


if __name__ == "__main__":
    main()
