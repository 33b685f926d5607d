"""Matching Pairs frames against golden frames drawn by the release's own code (data/pairs_release_frames.json,
made by scripts/release_goldens/pairs.py from a release checkout).

Frames that show no card face (felt, labels, backs, empty slots, the oracle layout, the text board)
need no release files and are checked exactly everywhere. Frames with faces need the release's card
images: they run where COGSIM_RELEASES=DIR names a folder whose RNGBench is a copy of the release
commit (installed into a temporary cache with ``release_assets.add``), and are skipped otherwise.
"""

import hashlib
import io
import json
import os
from pathlib import Path

import numpy as np
import PIL
import pytest
from PIL import Image

from cogsim import release_assets
from cogsim.benchmarks.rngbench import pairs
from cogsim.benchmarks.rngbench.pairs import look
from cogsim.render.frames import encode_frames

DATA = json.loads((Path(__file__).parent / "data" / "pairs_release_frames.json").read_text())
THEMES = {"poker": "poker", "noise": "noise", "textures": "textures", "abstract": "shapes"}
THEMES.update({"similar_colors": "colors", None: "ascii"})
ASSET_FREE = [f for f in DATA["frames"] if not f["needs_files"]]
WITH_FACES = [f for f in DATA["frames"] if f["needs_files"]]


def shown(case: dict, up: list) -> np.ndarray:
    state = np.zeros((case["rows"], case["cols"]), np.uint8)
    for r, c in case["matched"]:
        state[r, c] = look.REMOVED
    for r, c in up:
        state[r, c] = look.FACE_UP
    return state


def draw(case: dict) -> np.ndarray:
    identities = np.array(case["identities"])
    boards = look.ReleaseBoards(identities, THEMES[case["theme"]], case["seed"], case["cell"])
    memory = shown(case, case["memory"]) if case["oracle"] else None
    return boards.frames([look.View(shown(case, case["up"]), memory)])[0]


def check(case: dict) -> None:
    assert PIL.__version__ == DATA["pillow"], (
        f"the goldens were drawn with Pillow {DATA['pillow']}, this is {PIL.__version__}: the release's own pixels "
        "may differ under it; regenerate them (scripts/release_goldens/pairs.py) with this Pillow"
    )
    frame = draw(case)
    assert [frame.shape[1], frame.shape[0]] == case["size"]
    assert hashlib.sha256(frame.tobytes()).hexdigest() == case["raw_sha256"], case["name"]
    (sent,) = encode_frames([frame], look.FRAME_FORMAT)
    assert hashlib.sha256(sent).hexdigest() == case["jpeg_sha256"], case["name"]
    decoded = np.asarray(Image.open(io.BytesIO(sent)).convert("RGB"))
    assert hashlib.sha256(decoded.tobytes()).hexdigest() == case["decoded_sha256"]


def test_goldens_cover_both_board_sizes_faces_and_the_oracle():
    sizes = {tuple(f["size"]) for f in DATA["frames"]}
    assert {(708, 708), (708, 572)} <= sizes
    assert {"poker", "noise"} <= {f["theme"] for f in WITH_FACES}
    assert any(f["oracle"] for f in WITH_FACES) and any(f["oracle"] for f in ASSET_FREE)
    assert any(f["matched"] and not f["up"] for f in ASSET_FREE)
    for name, font in DATA["fonts"].items():  # the release drew with the files cogsim draws with
        assert hashlib.sha256(Path(look.font_file(name)).read_bytes()).hexdigest() == font["sha256"]


@pytest.mark.parametrize("case", DATA["frames"], ids=lambda c: c["name"])
def test_deals_are_the_release_deals(case):
    assert np.array_equal(pairs.deal(case["rows"], case["cols"], case["seed"]), np.array(case["identities"]))


@pytest.mark.parametrize("case", ASSET_FREE, ids=lambda c: c["name"])
def test_asset_free_frames_equal_the_release(case):
    check(case)


@pytest.fixture(scope="module")
def release_files(tmp_path_factory):
    releases = os.environ.get("COGSIM_RELEASES")
    if not releases:
        pytest.skip("COGSIM_RELEASES is not set: the card goldens need a copy of the release (DIR/RNGBench)")
    cache = tmp_path_factory.mktemp("release-cache")
    patch = pytest.MonkeyPatch()
    patch.setenv("COGSIM_CACHE", str(cache))
    release_assets.add("rngbench", Path(releases) / "RNGBench")
    yield
    patch.undo()


@pytest.mark.parametrize("case", WITH_FACES, ids=lambda c: c["name"])
def test_card_frames_equal_the_release(case, release_files):
    check(case)
