"""``_core.paste_frames``: every pixel no op covers is white, whatever the first op copies and
whatever ``out`` held before (the fill is skipped only where a first, frame-wide copy lands)."""

import numpy as np
import pytest

from cogsim import _core

COPY, BLEND = 0, 1


def reference(shape, sources, ops):
    """White frames, then each op in order: a copy, or a blend through an alpha of 0 or 255."""
    frames = np.full(shape, 255, np.uint8)
    for frame, kind, source, x, y in ops:
        pixels = sources[source]
        h, w = pixels.shape[:2]
        region = frames[frame, y : y + h, x : x + w]
        if kind == COPY:
            region[...] = pixels
        else:
            region[...] = np.where(pixels[..., 3:] == 255, pixels, region)
    return frames


@pytest.mark.parametrize(
    "ops",
    [
        [(0, COPY, 0, 0, 0)],  # a background of the frame's width over its top rows
        [(0, COPY, 0, 0, 5)],  # the same, lower: white above and below
        [(0, COPY, 0, 0, 11)],  # down to the last row
        [(0, COPY, 1, 2, 3)],  # narrower than the frame: all of the rest stays white
        [(0, BLEND, 0, 0, 4)],  # a blend first covers nothing for certain
        [(0, COPY, 1, 0, 0), (0, COPY, 0, 0, 6)],  # a frame-wide copy that is not the first op
        [],
    ],
)
def test_what_no_op_covers_is_white(ops):
    rng = np.random.default_rng(0)
    wide = rng.integers(0, 256, (9, 16, 4), dtype=np.uint8)
    wide[..., 3] = np.where(rng.random((9, 16)) < 0.5, 0, 255)
    narrow = rng.integers(0, 256, (4, 7, 4), dtype=np.uint8)
    shape = (2, 20, 16, 4)
    out = np.full(shape, 7, np.uint8)  # what the buffer held before is never shown
    ops = [*ops, (1, COPY, 0, 0, 2)]
    _core.paste_frames(out, [wide, narrow], np.array(ops, np.int32).reshape(-1, 5))
    assert np.array_equal(out, reference(shape, [wide, narrow], ops))
