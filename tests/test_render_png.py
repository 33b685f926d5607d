"""The core's PNG encoder: valid files (chunk CRCs, zlib's Adler-32) that decode to the frame exactly,
the same bytes everywhere, and bad input refused."""

from __future__ import annotations

import hashlib
import io
import struct
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from PIL import Image

from cogsim import _core, render


def chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    """(type, data) of every chunk, each CRC checked."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    out, at = [], 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, data = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        assert struct.unpack(">I", png[at + 8 + length : at + 12 + length])[0] == zlib.crc32(kind + data)
        out.append((kind, data))
        at += 12 + length
    return out


def assert_round_trip(frame: np.ndarray) -> bytes:
    png = render.to_png_bytes(frame)
    kinds = [kind for kind, _ in chunks(png)]
    assert kinds == [b"IHDR", b"IDAT", b"IEND"]
    height, width = frame.shape[:2]
    rows = zlib.decompress(chunks(png)[1][1])  # checks the Adler-32
    assert len(rows) == height * (frame.shape[2] * width + 1)
    decoded = np.asarray(Image.open(io.BytesIO(png)))
    assert decoded.shape == frame.shape and np.array_equal(decoded, frame)
    return png


RNG = np.random.default_rng(7)


@pytest.mark.parametrize(
    "frame",
    [
        np.zeros((1, 1, 3), np.uint8),
        RNG.integers(0, 256, (1, 37, 3), dtype=np.uint8),
        RNG.integers(0, 256, (41, 1, 3), dtype=np.uint8),
        RNG.integers(0, 256, (64, 80, 3), dtype=np.uint8),  # noise: literals only
        np.full((90, 700, 3), 255, np.uint8),  # runs longer than a deflate match
        np.tile(np.array([[[1, 2, 3]]], np.uint8), (5, 300, 1)),  # a pixel repeated
        (RNG.integers(0, 3, (50, 70, 3)) * 120).astype(np.uint8),
        RNG.integers(0, 256, (33, 21, 4), dtype=np.uint8),  # RGBA noise
        np.tile(np.array([[[1, 2, 3, 200]]], np.uint8), (5, 300, 1)),  # an RGBA pixel repeated
        (RNG.integers(0, 3, (50, 70, 4)) * 120).astype(np.uint8),
    ],
    ids=[
        "1x1",
        "one-row",
        "one-column",
        "noise",
        "flat",
        "pixel-repeat",
        "three-levels",
        "rgba-noise",
        "rgba-pixel-repeat",
        "rgba-three-levels",
    ],
)
def test_frames_round_trip(frame):
    assert_round_trip(frame)


@settings(max_examples=60, deadline=None)
@given(
    arrays(
        np.uint8, st.tuples(st.integers(1, 12), st.integers(1, 40), st.sampled_from([3, 4])), elements=st.integers(0, 3)
    )
    | arrays(np.uint8, st.tuples(st.integers(1, 6), st.integers(1, 30), st.sampled_from([3, 4])))
)
def test_any_frame_round_trips(frame):
    assert_round_trip(frame)


def test_codes_past_15_bits_are_shortened():
    """Byte counts in Fibonacci proportion make an optimal Huffman code 20+ bits deep; deflate allows 15."""
    counts = [1, 1]
    while len(counts) < 24:
        counts.append(counts[-1] + counts[-2])
    values = np.repeat(np.arange(24, dtype=np.uint8) * 10, counts)
    row = np.random.default_rng(3).permutation(values)[: (values.size // 3) * 3]
    assert_round_trip(row.reshape(1, -1, 3))


def sprite_scenes(height: int, width: int, channels: int, count: int, seed: int) -> list[np.ndarray]:
    """Frames of one noisy background: the first without a sprite, the next with a block of colour that
    ends on a band's last row (the next band's rows are the background's, the row above them is not),
    then one that starts a band, then blocks at random places."""
    rng = np.random.default_rng(seed)
    background = rng.integers(0, 256, (height, width, channels), dtype=np.uint8)
    frames = [background.copy()]
    places = [(7, 0), (16, width // 2)] + [(rng.integers(0, height), rng.integers(0, width)) for _ in range(count)]
    for y, x in places:
        frame = background.copy()
        frame[y : y + 9, x : x + 9] = rng.integers(0, 256, channels, dtype=np.uint8)
        frames.append(frame)
    return frames


@pytest.mark.parametrize("height", [15, 16, 17, 32, 33, 100])
@pytest.mark.parametrize("width,channels", [(448, 4), (30, 3), (1, 3)])
def test_frames_of_many_bands_round_trip(height, width, channels):
    """Bands of 16 rows (or more, about 16 KiB), each a block of its own: every band boundary decodes."""
    for frame in sprite_scenes(height, width, channels, 3, height * width):
        assert_round_trip(frame)


def test_the_bytes_never_depend_on_the_bands_kept():
    """Bands seen before are copied from a cache: a frame's bytes are the same whatever came before it,
    with the cache cleared, after frames that share its bands, and after enough others to evict them."""
    frames = sprite_scenes(200, 448, 4, 6, 11)
    _core.clear_png_band_cache()
    alone = []
    for frame in frames:
        _core.clear_png_band_cache()
        alone.append(render.to_png_bytes(frame))
    _core.clear_png_band_cache()
    in_turn = [render.to_png_bytes(frame) for frame in frames]
    again = [render.to_png_bytes(frame) for frame in reversed(frames)][::-1]
    for other in sprite_scenes(200, 448, 4, 60, 12):  # 60 frames of other bands: past the cache's 16 MB
        render.to_png_bytes(other)
    evicted = render.to_png_bytes_batch(np.stack(frames), threads=2)
    assert alone == in_turn == again == evicted
    for frame, png in zip(frames, alone):
        assert np.array_equal(np.asarray(Image.open(io.BytesIO(png))), frame)


def test_bands_taken_from_the_frame_before_give_the_same_bytes():
    """encode_png_after takes a band from the frame before when its rows (and the row above) are the
    same: the bytes equal encode_png's for every frame, after a frame of another size or band count, and
    the bands it takes are the ones that did not change (no cache lookup for them)."""
    frames = sprite_scenes(200, 448, 4, 6, 13) + sprite_scenes(40, 30, 3, 2, 14) + sprite_scenes(200, 448, 4, 2, 15)
    previous = None
    for frame in frames:
        png, bands = _core.encode_png_after(frame, previous)
        assert png == render.to_png_bytes(frame)
        previous = bands
    _core.clear_png_band_cache()
    background, moved = sprite_scenes(64, 448, 4, 0, 16)[:2]  # a block in rows 7..15: the first band only
    _, bands = _core.encode_png_after(background, None)
    before = _core.png_band_cache_stats()
    png, _ = _core.encode_png_after(moved, bands)
    after = _core.png_band_cache_stats()
    assert png == render.to_png_bytes(moved)
    assert after["misses"] - before["misses"] == 2 and after["hits"] == before["hits"]  # bands 0 and 1 changed


def test_bands_outside_the_changed_rows_are_taken_unread():
    """With the rows where a frame can differ from the one before, the bands outside them are taken
    from that frame's without reading them: right rows give the bytes of the pixels, and rows that
    leave out a change give the band before (which is why only what drew the frame may name them)."""
    background, moved = sprite_scenes(64, 448, 4, 0, 17)[:2]  # a block in rows 7..15
    _, bands = _core.encode_png_after(background, None)
    assert _core.encode_png_after(moved, bands, [(7, 16)])[0] == render.to_png_bytes(moved)
    assert _core.encode_png_after(moved, bands, [(0, 64)])[0] == render.to_png_bytes(moved)
    assert _core.encode_png_after(moved, bands, [])[0] == render.to_png_bytes(background)
    assert _core.encode_png_after(moved, None, [])[0] == render.to_png_bytes(moved)  # nothing to take them from


def test_bad_previous_bands_are_refused():
    with pytest.raises(TypeError):
        _core.encode_png_after(np.zeros((4, 4, 3), np.uint8), b"bands")
    with pytest.raises(ValueError, match="frame must be an"):
        _core.encode_png_after(np.zeros((4, 4, 2), np.uint8), None)


def test_a_sprite_moved_by_whole_stripes_is_found_again_in_both_places():
    """On a plain background a block moved by 16 px (64 bytes, the digest's stripe) leaves its rows
    the same 64-byte pieces in another order: the digests still tell the two frames apart, so both
    frames' bands stay cached and are found again (a digest blind to the order would make each frame
    push the other's band out)."""
    frames = np.full((2, 64, 448, 4), 200, np.uint8)
    frames[0, 16:32, 0:16] = frames[1, 16:32, 16:32] = (10, 20, 30, 255)
    assert _core.frame_digest(frames[0]) != _core.frame_digest(frames[1])
    _core.clear_png_band_cache()
    first = [render.to_png_bytes(frame) for frame in frames]
    before = _core.png_band_cache_stats()
    assert [render.to_png_bytes(frame) for frame in frames] == first
    after = _core.png_band_cache_stats()
    assert after["misses"] == before["misses"] and after["hits"] - before["hits"] == 2 * 4  # 4 bands a frame


def test_the_bytes_are_fixed_and_a_batch_equals_its_frames():
    frames = np.zeros((3, 20, 30, 3), np.uint8)
    frames[1, 5:15, 10:20] = (255, 128, 0)
    frames[2] = np.arange(20 * 30 * 3, dtype=np.uint8).reshape(20, 30, 3)
    batch = render.to_png_bytes_batch(frames, threads=2)
    assert batch == [render.to_png_bytes(f) for f in frames]
    assert hashlib.sha256(batch[1]).hexdigest() == "b5c55001e211a6dc47261f83c9d492c0bdb8beb46978e289c05d27c2ae9dd1d4"


def test_bad_frames_are_refused():
    with pytest.raises(ValueError, match=r"frame must be a uint8 \(H, W, 3\) or \(H, W, 4\) array"):
        render.to_png_bytes(np.zeros((4, 4), np.uint8))
    with pytest.raises(ValueError, match=r"frame must be a uint8 \(H, W, 3\) or \(H, W, 4\) array"):
        render.to_png_bytes(np.zeros((4, 4, 2), np.uint8))
    with pytest.raises(ValueError, match=r"frames must be a uint8 \(N, H, W, 3 or 4\) array"):
        render.to_png_bytes_batch(np.zeros((2, 4, 4, 3), np.float32))
    with pytest.raises(ValueError, match="1..65535 px per side"):
        _core.encode_png(np.zeros((1, 0, 4, 3), np.uint8))
