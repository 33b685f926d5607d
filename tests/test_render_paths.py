"""The two render paths of 2D frames, the GL's and the CPU compositor's, give the same pixels: for every
KidGym task and level (whole oracle episodes), card themes, cube nets, minimaps and patches, at several
sizes, alone and in batches; and which path draws is chosen as documented."""

from __future__ import annotations

import numpy as np
import pytest

import cogsim
from cogsim import _core, cube, render
from cogsim.benchmarks import kidgym
from cogsim.benchmarks.cubebench import cogsim_look as cube_look
from cogsim.benchmarks.kidgym import cogsim_look as kidgym_look
from cogsim.benchmarks.kidgym import cogsim_scene, scene
from cogsim.benchmarks.rngbench.maze import cogsim_look as maze_look
from cogsim.benchmarks.rngbench.pairs import cogsim_look as pairs_look
from cogsim.render._canvas import Canvas
from cogsim.render._compose import FrameCompositor


@pytest.fixture(scope="module")
def gl() -> render.Renderer:
    return render.Renderer(path="gl")


@pytest.fixture(scope="module")
def composed() -> render.Renderer:
    return render.Renderer(path="compositor")


def assert_same_frames(a: np.ndarray, b: np.ndarray, what: str) -> None:
    assert a.shape == b.shape, what
    differ = np.flatnonzero(np.any(a != b, axis=-1).reshape(len(a), -1).any(axis=1))
    assert differ.size == 0, f"{what}: frames {differ.tolist()} differ between the GL and the compositor"


def episode_specs(task: str, level: int, seeds, cell_size: int, whole: bool) -> list:
    """cogsim's look of the scenes of the oracle's episodes (every state, or the first only)."""
    specs = []
    for state in kidgym.generate(task, level, seeds, threads=1):
        while True:
            specs.append(cogsim_scene.grid_scene(scene.scene(task, state), cell_size))
            option = state.oracle_option()
            if state.done or not whole or option is None:
                break
            state.apply(option)
    return specs


@pytest.mark.parametrize("level", (1, 2, 3))
@pytest.mark.parametrize("task", kidgym.TASKS)
def test_every_kidgym_task_and_level_gives_the_same_frames(task, level, gl, composed):
    specs = episode_specs(task, level, (11, 12), 64, whole=True)
    specs += episode_specs(task, level, (13,), 32, whole=False) + episode_specs(task, level, (14,), 96, whole=False)
    for size in {s.cell_size for s in specs}:
        group = [s for s in specs if s.cell_size == size]
        assert_same_frames(gl.grid(group), composed.grid(group), f"{task} {level} {size}")


@pytest.mark.slow
@pytest.mark.parametrize("cell_size", (32, 96))
@pytest.mark.parametrize("task", kidgym.TASKS)
def test_every_kidgym_episode_frame_at_other_cell_sizes(task, cell_size, gl, composed):
    for level in (1, 2, 3):
        specs = episode_specs(task, level, range(3), cell_size, whole=True)
        assert_same_frames(gl.grid(specs), composed.grid(specs), f"{task} {level}")


@pytest.mark.parametrize("card_width", (24, 56, 97))
@pytest.mark.parametrize("theme", pairs_look.THEMES)
def test_card_boards_give_the_same_frames(theme, card_width, gl, composed):
    boards = [pairs_look.example_cards(seed, rows=3, cols=4, theme=theme, card_width=card_width) for seed in range(3)]
    labelled = pairs_look.CardBoard(
        boards[0].identities, boards[0].state, theme=theme, seed=5, card_width=card_width, labels="letters"
    )
    boards.append(labelled)
    assert_same_frames(gl.cards(boards), composed.cards(boards), f"{theme} {card_width}")


@pytest.mark.parametrize("sticker", (8, 13, 32))
def test_cube_nets_give_the_same_frames(sticker, gl, composed):
    states = [cube.Cube.solved().to_facelets()] + [cube_look.example_cube_facelets(seed) for seed in range(3)]
    assert_same_frames(gl.cube_net(states, sticker=sticker), composed.cube_net(states, sticker=sticker), str(sticker))


@pytest.mark.parametrize("size", (64, 97, 256))
def test_minimaps_and_patches_give_the_same_frames(size, gl, composed):
    views = [maze_look.example_map_view(seed) for seed in range(3)]
    assert_same_frames(gl.minimap(views, size=size), composed.minimap(views, size=size), f"minimap {size}")
    assert_same_frames(gl.patch(views, size=size), composed.patch(views, size=size), f"patch {size}")


def test_items_over_any_background_blend_as_the_gl_does(gl, composed):
    """Every kind of item, translucent, over random RGBA backgrounds: the compositor's 8-bit blend is the GL's."""
    rng = np.random.default_rng(3)
    bases = [rng.integers(0, 256, (160, 192, 4), dtype=np.uint8) for _ in range(3)]
    canvas = Canvas(gl.atlases, 192, 160)
    for frame in range(3):
        canvas.frame = frame
        canvas.pattern("waves", (0, 0, 192, 160), (20, 30, 40, 120), (200, 100, 50, 90), repeats=5, angle=0.6)
        canvas.noise((3.3, 4.1, 77.7, 66.6), 12345 + frame, 9, (20, 30, 40), (200, 100, 50, 128))
        canvas.sprite("tree", (10.3 + frame, 20.7, 90.1, 100.9), (255, 255, 255, 150))
        canvas.sprite_part("cat", (101.5, 12.25, 150.0, 70.0), (0.5, 0.0, 1.0, 0.5), (255, 200, 200, 220))
        canvas.shape("star", (5.5, 95.25, 60.125, 150.0), (200, 30, 40, 180), rotation=0.3)
        canvas.box((112.52, 80.4, 180.3, 150.1), (10, 200, 30, 200), border=(0, 0, 0), width=2.5, radius=7.3)
        canvas.text("Hello!", 96, 60, 14.3, (40, 44, 52, 230))
        canvas.box((-20.3, 140.0, 30.0, 190.2), (90, 90, 250, 160), radius=4)  # cut by the frame's edges
    rows = canvas.instances()
    expected = gl._quads.draw_instances(rows, (192, 160), 3, bases)
    out = np.empty_like(expected)
    composed._compositor.draw(rows, (192, 160), bases, [out])
    assert_same_frames(expected, out, "translucent items")


def test_batches_threads_and_frame_batches_give_the_frames_drawn_alone(composed):
    scenes = [kidgym_look.example_grid(seed, cell_size=32) for seed in range(12)]
    alone = np.concatenate([composed.grid(s) for s in scenes])
    assert_same_frames(alone, composed.grid(scenes), "one batch")
    with render.frame_batch():
        deferred = [composed.grid(s) for s in scenes[:5]] + [composed.grid(scenes[5:])]
    assert_same_frames(alone, np.concatenate(deferred), "frame_batch")
    canvas = composed._canvas(288, 288)
    for index, s in enumerate(scenes):
        canvas.frame = index
        kidgym_look.draw_state(canvas, s)
    bases = [kidgym_look.base_layer(composed, s) for s in scenes]
    for threads in (1, 2):
        out = np.empty_like(alone)
        composed._compositor.draw(canvas.instances(), (288, 288), bases, [out[:5], out[5:]], threads=threads)
        assert_same_frames(alone, out, f"{threads} threads")


def test_a_small_stamp_budget_still_gives_the_same_frames(gl, composed):
    small = FrameCompositor(composed._quads, max_bytes=1)  # every stamp is dropped after its frames
    scenes = [kidgym_look.example_grid(seed, cell_size=32) for seed in range(3)]
    canvas = gl._canvas(288, 288)
    for index, s in enumerate(scenes):
        canvas.frame = index
        kidgym_look.draw(canvas, s)
    out = np.empty((3, 288, 288, 3), dtype=np.uint8)
    for _ in range(2):
        small.draw(canvas.instances(), (288, 288), None, [out])
        assert_same_frames(gl.grid(scenes), out, "small budget")


# -- choosing the path ----------------------------------------------------------------------------------


def test_the_path_is_chosen_by_argument_variable_or_device(monkeypatch):
    assert render.render_path("gl", "llvmpipe (LLVM 15)") == "gl"
    assert render.render_path("compositor", "NVIDIA H100") == "compositor"
    monkeypatch.delenv(render.RENDER_PATH_VARIABLE, raising=False)
    assert render.render_path(None, "llvmpipe (LLVM 15.0.6, 256 bits)") == "compositor"
    assert render.render_path("auto", "NVIDIA H100 80GB HBM3/PCIe/SSE2") == "gl"
    monkeypatch.setenv(render.RENDER_PATH_VARIABLE, "gl")
    assert render.render_path(None, "llvmpipe") == "gl"
    assert render.render_path("compositor", "llvmpipe") == "compositor"  # the argument wins
    monkeypatch.setenv(render.RENDER_PATH_VARIABLE, "cpu")
    with pytest.raises(ValueError, match="COGSIM_RENDER_PATH must be one of auto, gl, compositor"):
        render.render_path(None, "llvmpipe")
    with pytest.raises(ValueError, match="render path must be one of"):
        render.Renderer(path="vulkan")


def test_an_env_option_chooses_the_path_and_the_env_reports_it():
    env = cogsim.make("kidgym/maze", render_path="gl", look="cogsim")
    assert env.frames_drawn_by() is None
    env.reset(seed=3)
    assert env.frames_drawn_by()["path"] == "gl" and env.options["render_path"] == "gl"
    other = cogsim.make("kidgym/maze", render_path="compositor", look="cogsim")
    assert np.array_equal(other.reset(seed=3)[0]["images"][0], env.reset(seed=3)[0]["images"][0])
    assert other.frames_drawn_by()["path"] == "compositor"
    with pytest.raises(ValueError, match="render path must be one of"):
        cogsim.make("kidgym/maze", render_path="fast", look="cogsim")


# -- bad input to the compositor -------------------------------------------------------------------------


def test_bad_draw_items_are_refused_with_what_is_allowed():
    canvas = Canvas(render.Renderer().atlases, 64, 64)
    canvas.box((0, 0, float("nan"), 10), (1, 2, 3))
    with pytest.raises(ValueError, match="rects must be finite and within"):
        canvas.instances()
    compositor = _core.Compositor(1 << 20)
    rows = np.zeros((2, 20), dtype=np.float32)
    rows[:, 2:4] = 8.0
    rows[0, 19] = 1.0  # frame 1 before frame 0
    out = np.empty((2, 16, 16, 3), dtype=np.uint8)
    with pytest.raises(ValueError, match="frame order"):
        compositor.compose(rows, np.array([-1, -1]), [out])
    rows[0, 19] = 0.0
    with pytest.raises(ValueError, match="unknown base id 7"):
        compositor.compose(rows, np.array([7, -1]), [out])
    with pytest.raises(ValueError, match="one base id"):
        compositor.compose(rows, np.array([-1]), [out])
    with pytest.raises(TypeError):
        compositor.compose(rows, np.array([-1, -1]), [out.astype(np.int16)])
    with pytest.raises(ValueError, match="stamp pixels must be"):
        compositor.add_stamp(rows[0], 16, 16, np.zeros((3, 3, 4), dtype=np.uint8))
    rows[0, 0] = 1e9
    with pytest.raises(ValueError, match="within"):
        compositor.compose(rows, np.array([-1, -1]), [out])


def test_a_run_records_which_path_drew_its_frames(tmp_path):
    from cogsim.harness import RunConfig, Task, run
    from cogsim.report.run_report import build_report

    config = RunConfig(
        [Task("kidgym/maze", 2, {"cell_size": 32, "render_path": "gl", "look": "cogsim"})], ["oracle"], max_turns=3
    )
    run(config, tmp_path / "run")
    report = build_report(tmp_path / "run").markdown()
    assert "Frames: cogsim's pictures, drawn by the gl on " in report and ", sent as PNG (2 episodes)" in report
    assert "(the GL and the compositor give the same pixels)" in report
