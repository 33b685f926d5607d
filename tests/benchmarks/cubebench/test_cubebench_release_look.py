"""Cube Bench's net in the release's look (the default, ``look="release"``): cogsim's frames equal the
frames the release's own code draws, pixel for pixel, and the PNG sent decodes to them.

Golden hashes: data/cubebench_release_frames.json beside this file, written by
scripts/release_goldens/cubebench.py from the release's ``render_variant`` (its "source" says how).
With ``COGSIM_RELEASES=DIR`` (DIR/cube-bench: the release) and pycuber and kociemba installed, the
last test draws more states with the release's code and compares the arrays."""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageEnhance

import cogsim
from cogsim import _core
from cogsim.benchmarks.cubebench import items, views
from cogsim.benchmarks.cubebench import look as net
from cogsim.benchmarks.cubebench.cogsim_look import FACE_COLOURS, FACE_ORDER
from cogsim.cube import Cube
from cogsim.render.png import to_png_bytes

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = json.loads((Path(__file__).parent / "data" / "cubebench_release_frames.json").read_text())
CASES = [
    (state["name"], state["moves"], variant, frame)
    for state in GOLDEN["states"]
    for variant, frame in state["frames"].items()
]


def sha256(frame: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(frame).tobytes()).hexdigest()


def release_coloured(moves: str) -> str:
    """The facelets whose cogsim colouring shows the state in the release's (pycuber's) colours."""
    return views.recolour(Cube.from_moves(moves) if moves else Cube.solved(), "release")


@pytest.mark.parametrize("name,moves,variant,golden", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_frames_equal_the_releases(name, moves, variant, golden):
    frame = net.release_frame(release_coloured(moves), variant)
    assert [frame.shape[1], frame.shape[0]] == golden["size"] == [840, 620]
    assert sha256(frame) == golden["rgb_sha256"], f"{name} {variant}"
    sent = np.asarray(Image.open(io.BytesIO(to_png_bytes(frame))).convert("RGB"))
    assert golden["sent"] == "png" and sha256(sent) == golden["sent_rgb_sha256"]


def test_the_goldens_cover_every_variant_and_name_their_source():
    assert {variant for _, _, variant, _ in CASES} == set(net.VARIANTS) == set(items.INVARIANCE_VARIANTS)
    assert "cube-bench 1ca7d58" in GOLDEN["source"] and "render_variant" in GOLDEN["source"]
    assert GOLDEN["versions"] == {"matplotlib": "3.11.2", "PIL": "13.0.0"}


def test_a_batch_equals_its_frames_one_by_one():
    states = [release_coloured(moves) for _, moves, _, _ in CASES[::4]]
    for variant in net.VARIANTS:
        batch = net.release_frames(states, variant, threads=2)
        assert batch.shape == (len(states), 620, 840, 3)
        for state, frame in zip(states, batch):
            assert np.array_equal(frame, net.release_frame(state, variant))


def test_the_variants_are_pillows_own_operations_on_the_clean_frame():
    """occl and bright as the release's _augment_image makes them, with Pillow, on cogsim's clean frame."""
    state = release_coloured("F2 D' L B2 R' U2")
    clean = Image.fromarray(net.release_frame(state))
    occluded = clean.copy()
    width, height = occluded.size
    band = max(6, int(0.15 * height))
    top = (height - band) // 2
    ImageDraw.Draw(occluded).rectangle([0, top, width, top + band], fill=(0, 0, 0))
    assert np.array_equal(np.asarray(occluded), net.release_frame(state, "occl"))
    darker = ImageEnhance.Brightness(clean).enhance(0.8)
    assert np.array_equal(np.asarray(darker), net.release_frame(state, "bright"))
    every_value = Image.fromarray(np.repeat(np.arange(256, dtype=np.uint8), 3).reshape(1, 256, 3))
    assert np.array_equal(np.asarray(ImageEnhance.Brightness(every_value).enhance(0.8))[0, :, 0], net.BRIGHTNESS_TABLE)


def test_recolor_repaints_white_yellow_orange_red_green_blue():
    state = release_coloured("R U R' U'")
    swapped = state.translate(net.RECOLOUR_FACES)
    assert np.array_equal(net.release_frame(state, "recolor"), net.release_frame(swapped))


def _stickers_off_the_frame(frame: np.ndarray) -> str:
    """The colour letter at the centre of every sticker rectangle, in facelet order."""
    rects = net.release_net().looks["clean"].rects
    letters = {rgb: letter for letter, rgb in net.RELEASE_RGB.items()}
    return "".join(letters[tuple(frame[(y0 + y1) // 2, (x0 + x1) // 2])] for _, y0, y1, x0, x1 in rects)


@pytest.mark.parametrize("moves", ["", "R", "D2 B' L2 F U' R2 D B2 L' U"])
def test_each_sticker_shows_its_facelet_in_the_releases_colours(moves):
    state = release_coloured(moves)
    assert _stickers_off_the_frame(net.release_frame(state)) == "".join(FACE_COLOURS[f] for f in state)


@pytest.fixture
def oracle(cube_oracle):
    return cube_oracle


def test_env_frames_are_the_release_look_by_default(oracle):
    env = cogsim.make("cube/optimal-move", depth=3)
    assert env.look == "release" and env.sticker is None and env.frames_drawn_by() is None
    obs, _ = env.reset(seed=4)
    assert np.array_equal(obs["images"][0], net.release_frame(views.recolour(env.item["facelets"], "release")))
    assert env.protocol == "release"
    assert env.frames_drawn_by() == {"look": "release", "path": "cpu", "gl_renderer": None}
    assert env.frame_format() == {"format": "png"}  # the release sends its net as PNG
    _, _, _, _, info = env.step(env.scripted_response("oracle", np.random.default_rng(0)))
    assert info["episode"]["look"] == "release" and info["episode"]["protocol"] == "release"
    assert info["episode"]["frames"] == {"format": "png"}


def test_invariance_sends_the_four_variants_of_the_release_net(oracle):
    env = cogsim.make("cube/invariance", depth=3)
    obs, _ = env.reset(seed=2)
    shown = views.recolour(env.item["facelets"], "release")
    for variant in items.INVARIANCE_VARIANTS:
        assert np.array_equal(obs["images"][0], net.release_frame(shown, variant)), variant
        obs, *_ = env.step("ANSWER: A")


def test_the_cogsim_look_stays_an_option_and_is_recorded(oracle):
    env = cogsim.make("cube/optimal-move", depth=2, look="cogsim", sticker=8)
    obs, _ = env.reset(seed=1)
    shown = views.recolour(env.item["facelets"], "release")
    assert np.array_equal(obs["images"][0], views.net_image(shown, 8))
    assert env.protocol == "look=cogsim" and env.frames_drawn_by()["look"] == "cogsim"
    _, _, _, _, info = env.step(env.scripted_response("oracle", np.random.default_rng(0)))
    assert info["episode"]["look"] == "cogsim" and info["episode"]["frames"] == {"format": "png"}
    assert cogsim.make("cube/optimal-move", look="cogsim").sticker == 32
    assert cogsim.make("cube/move-effect", look="cogsim").protocol == "release"  # text only: no net shown


@pytest.mark.parametrize(
    "options,match",
    [
        ({"look": "paper"}, "look must be one of release, cogsim, got 'paper'"),
        ({"look": "release", "sticker": 16}, "sticker sizes cogsim's net"),
        ({"sticker": 16}, "sticker sizes cogsim's net"),
        ({"look": "cogsim", "sticker": 4}, r"sticker must be an integer in \[8, 256\], got 4"),
    ],
)
def test_bad_look_options_are_refused_at_make(options, match):
    with pytest.raises(ValueError, match=match):
        cogsim.make("cube/reconstruction", **options)


def test_bad_input_to_the_release_net_is_refused():
    with pytest.raises(ValueError, match="variant must be one of clean, occl, bright, recolor"):
        net.release_frame(Cube.solved(), "rot90")
    with pytest.raises(ValueError, match="facelets must be 54 characters"):
        net.release_frame("U" * 53)
    look = net.release_net().looks["clean"]
    ids = np.zeros((1, 54), np.uint8)
    out = np.empty((1, 620, 840, 3), np.uint8)
    with pytest.raises(ValueError, match="colours must be palette indices 0..5, got 6 in frame 0"):
        _core.paint_rect_frames(look.frame, look.rects, look.palette, ids + 6, out)
    bad_rects = look.rects.copy()
    bad_rects[3, 4] = 841
    with pytest.raises(ValueError, match="rect 3 must lie inside the 840 x 620 frame"):
        _core.paint_rect_frames(look.frame, bad_rects, look.palette, ids, out)
    bad_rects = look.rects.copy()
    bad_rects[0, 0] = 54
    with pytest.raises(ValueError, match=r"rect 0: slot must be in \[0, 54\)"):
        _core.paint_rect_frames(look.frame, bad_rects, look.palette, ids, out)
    with pytest.raises(ValueError, match="out must be a writeable"):
        _core.paint_rect_frames(look.frame, look.rects, look.palette, ids, out[:, :10])
    with pytest.raises(ValueError, match="rects must be an"):
        _core.paint_rect_frames(look.frame, look.rects[:, :4].copy(), look.palette, ids, out)


def test_the_shipped_data_is_what_the_pinned_matplotlib_draws():
    import matplotlib

    data = net.load_data()
    assert data["matplotlib"] == "3.11.2" and data["frame"] == [620, 840]
    if matplotlib.__version__ != data["matplotlib"]:
        pytest.skip(f"the data is derived with matplotlib {data['matplotlib']}, found {matplotlib.__version__}")
    script = ROOT / "scripts" / "build_cubebench_release_net.py"
    result = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def _release_simulator():
    releases = os.environ.get("COGSIM_RELEASES")
    if not releases:
        pytest.skip("COGSIM_RELEASES is not set (DIR/cube-bench: the release's checkout)")
    for module in ("pycuber", "kociemba", "matplotlib"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"the release's simulator needs {module}")
    spec = importlib.util.spec_from_file_location(
        "cubebench_goldens", ROOT / "scripts" / "release_goldens" / "cubebench.py"
    )
    goldens = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(goldens)
    return goldens, goldens.load_simulator(goldens.release_root())


def test_the_releases_code_draws_the_same_frames():
    """The release's own render_variant on its own seeded scrambles, against cogsim's frames."""
    goldens, simulator = _release_simulator()
    for seed in range(6):
        cube = simulator.VirtualCube()
        moves = str(cube.scramble(random_seed=seed, n_moves=3 + 3 * seed))
        state = release_coloured(moves)
        for variant, image in goldens.release_frames(simulator, moves).items():
            expected = np.asarray(image.convert("RGB"))
            assert np.array_equal(net.release_frame(state, variant), expected), (moves, variant)
        assert _stickers_off_the_frame(np.asarray(cube.render(return_type="numpy"))) == "".join(
            FACE_COLOURS[f] for f in state
        )
        assert FACE_ORDER == "URFDLB"


def test_a_run_sends_and_stores_the_release_frames_and_its_report_says_so(oracle, tmp_path):
    from cogsim.harness import RunConfig, Task, run
    from cogsim.report.run_report import build_report

    run(RunConfig([Task("cube/optimal-move", 2, {"depth": 2})], ["oracle"], max_turns=3), tmp_path / "run")
    env = cogsim.make("cube/optimal-move", depth=2)
    expected = {sha256(env.reset(seed=seed)[0]["images"][0]) for seed in (0, 1)}
    stored = {sha256(np.asarray(Image.open(path))) for path in (tmp_path / "run" / "images").rglob("*.png")}
    assert stored == expected
    report = build_report(tmp_path / "run").markdown()
    assert "Frames: the release's pictures, drawn on the CPU, sent as PNG (2 episodes)" in report
