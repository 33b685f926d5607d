"""The renderer from several threads and from a forked child: each gets a working context."""

from __future__ import annotations

import multiprocessing
import threading

import numpy as np
import pytest

from cogsim import render


def _net(renderer) -> np.ndarray:
    from cogsim import cube

    return renderer.cube_net(cube.Cube.from_moves("R U F'"))[0]


def test_threads_get_their_own_renderer_and_draw_the_same_picture():
    expected = _net(render.shared_renderer())
    frames, renderers, errors = {}, {}, []

    def draw(index):
        try:
            renderers[index] = render.shared_renderer()
            frames[index] = _net(renderers[index])
        except Exception as error:  # collected and asserted below: a thread's error must fail the test
            errors.append(error)

    threads = [threading.Thread(target=draw, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors
    assert len({id(r) for r in renderers.values()}) == 4
    assert render.shared_renderer() not in renderers.values()
    for frame in frames.values():
        assert np.array_equal(frame, expected)


def test_same_thread_reuses_its_renderer():
    assert render.shared_renderer() is render.shared_renderer()


def _draw_in_child(queue):
    try:
        queue.put(("frame", int(_net(render.shared_renderer()).sum())))
    except render.ContextError as error:
        queue.put(("error", str(error)))


def _run_forked_child() -> tuple[str, object]:
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_draw_in_child, args=(queue,))
    child.start()
    child.join(timeout=120)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked child hung while rendering")
    assert child.exitcode == 0
    return queue.get(timeout=5)


needs_fork = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="fork start method is POSIX-only"
)


@needs_fork
def test_child_forked_after_rendering_gets_a_clear_error_not_a_hang():
    render.shared_renderer()
    kind, value = _run_forked_child()
    assert kind == "error" and "spawn" in value and "fork" in value


@needs_fork
def test_child_forked_before_any_context_renders():
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[1])
    code = (
        "import multiprocessing as mp, sys; sys.path.insert(0, {root!r}); import tests.test_render_threads as t;"
        "q = mp.get_context('fork').Queue(); p = mp.get_context('fork').Process(target=t._draw_in_child, args=(q,));"
        "p.start(); p.join(120); print(q.get(timeout=5)[0])"
    ).format(root=root)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert result.stdout.strip() == "frame", result.stderr[-2000:]
