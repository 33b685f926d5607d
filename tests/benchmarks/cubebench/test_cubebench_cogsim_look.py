"""Cube nets: the sticker colours read back from the frame equal the facelet string."""

from __future__ import annotations

import numpy as np
import pytest

from cogsim import cube
from cogsim.benchmarks.cubebench import cogsim_look as cube_net
from render_helpers import renderer


def _read_stickers(frame: np.ndarray, sticker: int) -> str:
    """Colour letter of the nearest scheme colour at every sticker centre, in facelet order."""
    letters = list(cube_net.COLOUR_RGB)
    palette = np.array([cube_net.COLOUR_RGB[c] for c in letters], dtype=float)
    centres = np.round(cube_net.NetLayout(sticker).sticker_centres()).astype(int)
    samples = frame[centres[:, 1], centres[:, 0]].astype(float)
    nearest = np.argmin(((samples[:, None, :] - palette[None]) ** 2).sum(-1), axis=1)
    assert np.sqrt(((samples - palette[nearest]) ** 2).sum(-1)).max() < 12, "a sticker centre is off the palette"
    return "".join(letters[i] for i in nearest)


@pytest.mark.parametrize("moves", ["", "R U F'", "R U2 F' L D B2 R' U'"])
def test_sticker_colours_read_back_equal_the_facelets(moves):
    state = cube.Cube.from_moves(moves)
    for sticker in (12, 32):
        frame = renderer().cube_net(state, sticker=sticker)[0]
        assert _read_stickers(frame, sticker) == cube_net.colours_of(state.to_facelets())


def test_standard_colour_scheme():
    assert (
        cube_net.colours_of(cube.Cube.solved().to_facelets())
        == "W" * 9 + "R" * 9 + "G" * 9 + "Y" * 9 + "O" * 9 + "B" * 9
    )


def test_batch_matches_single_frames_and_accepts_strings():
    states = [cube.Cube.from_moves(m) for m in ("R", "U F", "L' D2")]
    batch = renderer().cube_net([s.to_facelets() for s in states], sticker=16)
    for state, frame in zip(states, batch):
        assert np.array_equal(frame, renderer().cube_net(state, sticker=16)[0])  # whatever its tile


def test_frame_size_and_neutral_background():
    frame = renderer().cube_net(cube.Cube.solved(), sticker=20)[0]
    assert frame.shape[::-1][1:] == cube_net.NetLayout(20).size
    assert tuple(frame[2, 2]) == cube_net.BACKGROUND


@pytest.mark.parametrize("bad", ["U" * 53, "X" * 54, 42])
def test_bad_facelets_raise_value_error(bad):
    with pytest.raises(ValueError, match="facelets"):
        renderer().cube_net(bad)


def test_bad_sticker_size_raises_value_error():
    with pytest.raises(ValueError, match="sticker"):
        renderer().cube_net(cube.Cube.solved(), sticker=4)


def test_batches_larger_than_one_framebuffer_split_into_passes(monkeypatch):
    from cogsim.render import _tiles

    states = [cube.Cube.from_moves(m) for m in ("R", "U", "F", "D", "L", "B", "R2")]
    one_pass = renderer().cube_net(states, sticker=8)
    monkeypatch.setattr(_tiles, "MAX_TARGET", 256)  # 2 x 2 nets per pass: 2 passes
    assert np.abs(renderer().cube_net(states, sticker=8).astype(int) - one_pass).max() <= 2
    for state, frame in zip(states, one_pass):
        assert _read_stickers(frame, 8) == cube_net.colours_of(state.to_facelets())
