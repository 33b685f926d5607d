"""Context creation errors, PNG output and the ``cogsim render`` command."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from cogsim import cli, render
from cogsim.render import _context


def test_unknown_backend_is_a_value_error():
    with pytest.raises(ValueError, match="backend"):
        render.Renderer(backend="vulkan")


def test_no_context_names_the_fix(monkeypatch):
    # The display backend cannot reach a display that does not exist: a real context failure.
    monkeypatch.setenv("DISPLAY", ":987")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(_context, "_CONTEXTS", {})
    with pytest.raises(render.ContextError) as error:
        render.Renderer(backend="default")
    message = str(error.value)
    assert "libegl1" in message and "libgl1-mesa-dri" in message and "backend" in message


def test_cli_reports_a_missing_context_and_exits_2(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("DISPLAY", ":987")
    monkeypatch.setattr(_context, "_CONTEXTS", {})
    assert cli.main(["render", "grid", "--backend", "default", "--out", str(tmp_path / "x.png")]) == 2
    assert "libegl1" in capsys.readouterr().err


@pytest.mark.parametrize(
    "kind, size",
    [
        ("grid", (576, 576)),
        ("cube", None),
        ("cards", None),
        ("maze3d", (96, 96)),
        ("minimap", (96, 96)),
        ("patch", (96, 96)),
    ],
)
def test_cli_writes_a_png_of_every_kind(kind, size, tmp_path, capsys):
    out = tmp_path / f"{kind}.png"
    assert cli.main(["render", kind, "--seed", "3", "--out", str(out), "--size", "96"]) == 0
    image = Image.open(out)
    assert image.format == "PNG" and image.mode == "RGB"
    if size is not None:
        assert image.size == size
    assert len(np.unique(np.asarray(image).reshape(-1, 3), axis=0)) > 8  # a picture, not a blank


def test_cli_same_seed_same_picture(tmp_path):
    paths = [tmp_path / f"{i}.png" for i in range(3)]
    for path, seed in zip(paths, (1, 1, 2)):
        cli.main(["render", "cards", "--seed", str(seed), "--out", str(path), "--theme", "shapes"])
    a, b, c = (np.asarray(Image.open(p)).astype(int) for p in paths)
    assert np.abs(a - b).max() <= 2 and np.abs(a - c).max() > 50


def test_png_bytes_round_trip():
    frame = np.random.Generator(np.random.PCG64(0)).integers(0, 256, (7, 5, 3), dtype=np.uint8)
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(render.to_png_bytes(frame)))), frame)
    with pytest.raises(ValueError, match="frame"):
        render.to_png_bytes(frame.astype(np.float32))


def test_another_gl_context_made_current_in_the_thread_does_not_take_our_draws():
    """A peer simulator or a viewer (pyglet, another library) makes its own context current; GL calls
    go to whichever is current, so every draw pass makes the renderer's context current first."""
    import moderngl

    from cogsim.benchmarks.kidgym import cogsim_look as kidgym_look
    from cogsim.benchmarks.rngbench.maze import cogsim_look as maze_look
    from cogsim.render._renderer import shared_renderer

    renderer = shared_renderer()
    scene = kidgym_look.example_grid(4, cell_size=32)
    maze, row, col, heading = maze_look.example_view(2)
    grid_frame = renderer.grid(scene)
    views = renderer.mazes(maze)
    maze_frame = views.views(0, row, col, heading, maze_look.ViewOptions(64, 64))
    other = moderngl.create_standalone_context(require=330, backend="egl")  # now the current one
    try:
        foreign = other.simple_framebuffer((8, 8))
        foreign.use()
        foreign.clear(0.0, 1.0, 0.0, 1.0)
        assert np.array_equal(renderer.grid(scene), grid_frame)
        assert np.array_equal(views.views(0, row, col, heading, maze_look.ViewOptions(64, 64)), maze_frame)
        with other:  # the other context still holds its own pixels
            pixels = np.frombuffer(foreign.read(components=4), dtype=np.uint8).reshape(8, 8, 4)
        assert (pixels == (0, 255, 0, 255)).all()
    finally:
        views.release()
        other.release()
