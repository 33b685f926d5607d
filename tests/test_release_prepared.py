"""Pictures prepared from release files are kept between processes (release_assets.prepared): loaded
only when the entry is an RGBA uint8 array of the form asked for, made again otherwise, and a cache
that cannot be written costs only time."""

from __future__ import annotations

import hashlib
import io
import os
import pickle

import numpy as np
import PIL
import pytest

from cogsim.release_assets import prepared as prepared_module
from cogsim.release_assets.prepared import prepared

SHA = "ab" * 32


def picture(seed: int, shape=(6, 5, 4)) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, shape, dtype=np.uint8)


class Maker:
    def __init__(self, pixels):
        self.pixels, self.calls = pixels, 0

    def __call__(self):
        self.calls += 1
        return self.pixels


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("COGSIM_CACHE", str(tmp_path))
    return tmp_path / "prepared" / "demo" / f"pillow-{PIL.__version__}"


def test_a_picture_is_made_once_then_loaded_as_it_was(cache):
    make = Maker(picture(1))
    first = prepared("demo", SHA, "rgba-lanczos-64", make, (6, 5, 4))
    again = prepared("demo", SHA, "rgba-lanczos-64", make, (6, 5, 4))
    assert make.calls == 1 and np.array_equal(first, make.pixels) and np.array_equal(again, make.pixels)
    assert again.flags.writeable and again.flags.c_contiguous
    assert (cache / f"{SHA}-rgba-lanczos-64.npy").is_file()
    other = Maker(picture(2))
    assert np.array_equal(prepared("demo", SHA, "rgba", other), other.pixels) and other.calls == 1  # another way


def test_another_pillow_prepares_its_own(cache, monkeypatch):
    make = Maker(picture(1))
    prepared("demo", SHA, "rgba", make)
    monkeypatch.setattr(prepared_module.PIL, "__version__", "0.0.1")
    prepared("demo", SHA, "rgba", make)
    assert make.calls == 2 and (cache.parent / "pillow-0.0.1" / f"{SHA}-rgba.npy").is_file()


def npy(array) -> bytes:
    """An entry of ``array`` as the cache writes one: NumPy's format, then its SHA-256."""
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=True)
    return buffer.getvalue() + hashlib.sha256(buffer.getvalue()).digest()


def resealed(body: bytes) -> bytes:
    return body + hashlib.sha256(body).digest()


GOOD = npy(picture(1))
DAMAGED_ENTRIES = {
    "cut short": GOOD[:-7],
    "longer": GOOD + b"\x00",
    "a flipped bit": GOOD[:-40] + bytes([GOOD[-40] ^ 1]) + GOOD[-39:],
    "no checksum": GOOD[:-32],
    "empty": b"",
    "not npy": b"\x89PNG\r\n\x1a\n" + bytes(100),
    "another form": npy(picture(1, (5, 6, 4))),
    "three channels": npy(picture(1, (6, 5, 3))),
    "another type": npy(picture(1).astype(np.int16)),
    "fortran order": npy(np.asfortranarray(picture(1))),
    "a pickle": npy(np.array([{"x": 1}], dtype=object)),
    "a plain pickle": pickle.dumps(picture(1)),
    "a header claiming a huge array": resealed(GOOD[:-32].replace(b"(6, 5, 4)", b"(9999999, 99999, 4)")),
    "cut short, checksum right": resealed(GOOD[:-32][:-5]),
}


@pytest.mark.parametrize("content", DAMAGED_ENTRIES.values(), ids=DAMAGED_ENTRIES.keys())
def test_an_entry_that_is_not_the_picture_asked_for_is_made_again_and_replaced(cache, content):
    cache.mkdir(parents=True)
    entry = cache / f"{SHA}-rgba.npy"
    entry.write_bytes(content)
    make = Maker(picture(3))
    assert np.array_equal(prepared("demo", SHA, "rgba", make, (6, 5, 4)), make.pixels) and make.calls == 1
    assert np.array_equal(prepared("demo", SHA, "rgba", make, (6, 5, 4)), make.pixels) and make.calls == 1


def test_a_link_or_fifo_in_the_cache_is_neither_followed_nor_read(cache, tmp_path):
    cache.mkdir(parents=True)
    target = tmp_path / "elsewhere.npy"
    target.write_bytes(GOOD)
    (cache / f"{SHA}-linked.npy").symlink_to(target)
    os.mkfifo(cache / f"{SHA}-fifo.npy")
    for how in ("linked", "fifo"):
        make = Maker(picture(4))
        assert np.array_equal(prepared("demo", SHA, how, make), make.pixels) and make.calls == 1
        assert (cache / f"{SHA}-{how}.npy").is_file() and not (cache / f"{SHA}-{how}.npy").is_symlink()
    assert target.read_bytes() == GOOD  # the link was replaced, not written through


def test_a_cache_that_cannot_be_written_costs_only_time(tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("COGSIM_CACHE", str(blocked))
    make = Maker(picture(5))
    assert np.array_equal(prepared("demo", SHA, "rgba", make), make.pixels)
    assert np.array_equal(prepared("demo", SHA, "rgba", make), make.pixels) and make.calls == 2


@pytest.mark.parametrize(
    "name, sha256, how",
    [("demo", "AB" * 32, "rgba"), ("demo", SHA[:-1], "rgba"), ("demo", SHA, "../x"), ("../demo", SHA, "rgba")],
)
def test_names_other_than_a_sha256_and_a_short_name_are_refused(cache, name, sha256, how):
    with pytest.raises(ValueError, match="SHA-256"):
        prepared(name, sha256, how, Maker(picture(1)))


def test_kidgym_frames_drawn_from_prepared_pictures_equal_those_drawn_from_the_files(tmp_path, monkeypatch):
    """A look with an empty cache, then a fresh one that loads every picture from it, then one that
    prepares everything itself: the same frames."""
    import cogsim
    from cogsim.benchmarks.kidgym import look, release_files

    env = cogsim.make("kidgym/classification", images=False)
    scenes = []
    for seed in range(12):
        env.reset(seed=seed)
        scenes.append(env.unwrapped.scene())
    monkeypatch.setattr(prepared_module, "_folder", lambda benchmark: tmp_path)
    cold = look.ReleaseLook(release_files.assets_root()).draw(scenes)
    entries = sorted(tmp_path.iterdir())
    made = []
    monkeypatch.setattr(look, "_resize", lambda *args: made.append(args))
    warm = look.ReleaseLook(release_files.assets_root()).draw(scenes)
    assert entries and not made and np.array_equal(warm, cold)
    monkeypatch.undo()
    monkeypatch.setattr(look, "prepared", lambda benchmark, sha256, how, make, shape=None: make())
    assert np.array_equal(look.ReleaseLook(release_files.assets_root()).draw(scenes), cold)
