"""The renderer: one GL context, the atlases on the GPU, and a batch method per scene kind."""

from __future__ import annotations

import os
import threading
from collections import defaultdict
from contextlib import contextmanager
from typing import Iterator, NamedTuple, Optional, Sequence, Union

import numpy as np

from cogsim.render import _check, _context, cards, cube_net, grid, maze
from cogsim.render._assets import atlases
from cogsim.render._canvas import Canvas
from cogsim.render._compose import FrameCompositor
from cogsim.render._quads import QuadPipeline

_THREAD_STATE = threading.local()
_BATCH_STATE = threading.local()  # frame_batch(): depth of the blocks, renderers with deferred draws

# Which path draws 2D frames (grid, cube_net, cards, minimap, patch); both give the same pixels.
RENDER_PATHS = ("auto", "gl", "compositor")
RENDER_PATH_VARIABLE = "COGSIM_RENDER_PATH"
_CPU_RASTERISERS = ("llvmpipe", "softpipe", "swrast")  # Mesa's GL on the CPU


def check_render_path(path: Optional[str]) -> Optional[str]:
    """``path`` if it names a render path (None: not chosen); else ValueError naming the choices."""
    if path is not None and path not in RENDER_PATHS:
        raise ValueError(f"render path must be one of {', '.join(RENDER_PATHS)}, got {path!r}")
    return path


def render_path(path: Optional[str], gl_renderer: str) -> str:
    """The path that draws 2D frames: ``path`` ("gl", "compositor"; None or "auto": the environment
    variable COGSIM_RENDER_PATH, else automatic). Automatic is the CPU compositor where the GL itself
    runs on the CPU (Mesa's llvmpipe), the GL path on a GPU: there the compositor is faster but its
    frames are not the GPU's own (``benchmarks/results_render_gpu.md``)."""
    chosen = check_render_path(path) or "auto"
    if chosen == "auto":
        variable = os.environ.get(RENDER_PATH_VARIABLE, "").strip()
        if variable not in RENDER_PATHS and variable:
            raise ValueError(f"{RENDER_PATH_VARIABLE} must be one of {', '.join(RENDER_PATHS)}, got {variable!r}")
        chosen = variable or "auto"
    if chosen == "auto":
        on_cpu = any(name in gl_renderer.lower() for name in _CPU_RASTERISERS)
        chosen = "compositor" if on_cpu else "gl"
    return chosen


def shared_renderer(backend: str = "egl", path: Optional[str] = None) -> "Renderer":
    """The calling thread's renderer for ``backend`` and render ``path`` (see :func:`render_path`),
    created on first use and reused after.

    Envs share it instead of each holding a context; it is per thread and per process because a
    GL context is (see ``_context``), so envs stepped from several threads or forked workers work.
    """
    if getattr(_THREAD_STATE, "pid", None) != os.getpid():
        _THREAD_STATE.pid = os.getpid()
        _THREAD_STATE.renderers = {}
    renderers = _THREAD_STATE.renderers
    check_render_path(path)
    key = (backend, path or "auto", os.environ.get(RENDER_PATH_VARIABLE, ""))
    if key not in renderers:
        renderers[key] = Renderer(backend, path)
    return renderers[key]


@contextmanager
def frame_batch() -> Iterator[None]:
    """Draws the 2D frames (grid, cube_net, cards, minimap, patch) that this thread asks any renderer
    for inside the block in as few passes as possible. Each call still returns its array at once,
    but the array is filled when the outermost block ends; frames of one size share passes. The
    frames are bit for bit those drawn one call at a time, so batching is invisible except for the
    time. Read no frame inside the block. Envs stepped together use it (``TextVectorEnv`` and the
    harness's lockstep runner): a step's frames of all envs then cost one pass.
    """
    state = _batch_state()
    state.depth += 1
    try:
        yield
    finally:
        state.depth -= 1
        if state.depth == 0:
            waiting, state.waiting = state.waiting, []
            failures = []
            for renderer in waiting:  # every renderer, so none is left holding draws
                try:
                    renderer._flush()
                except Exception as error:  # noqa: BLE001 - raised below, after the others
                    failures.append(error)
            if failures:
                raise failures[0]


def _batch_state():
    if not hasattr(_BATCH_STATE, "depth"):
        _BATCH_STATE.depth, _BATCH_STATE.waiting = 0, []
    return _BATCH_STATE


class _Deferred(NamedTuple):
    """A 2D draw call waiting for the end of a frame batch: its canvas's rows and where they go."""

    size: tuple[int, int]
    instances: np.ndarray
    bases: Optional[list]
    out: np.ndarray


def _as_list(value, kind):
    return [value] if isinstance(value, kind) else list(value)


class Renderer:
    """Draws batches of frames; every method returns uint8 (N, H, W, 3) with N = number of inputs.

    ``backend``: "egl" (headless; Mesa llvmpipe without a GPU, the NVIDIA driver with one) or
    "default" (the display's GLX context). Raises :class:`ContextError` when no context can be made.
    ``path``: what draws the 2D frames, "gl" or "compositor" (the GL draws each sprite, tile and letter
    once, the core composes frames from them on the CPU); None or "auto": see :func:`render_path`.
    Both give the same pixels. 3D maze views are always drawn by the GL.
    """

    def __init__(self, backend: str = "egl", path: Optional[str] = None):
        check_render_path(path)
        self.ctx = _context.gl_context(backend)
        _context.make_current(self.ctx)  # the thread's context may exist already, not current
        self.gl_renderer = str(self.ctx.info.get("GL_RENDERER", ""))
        self.path = render_path(path, self.gl_renderer)
        self.atlases = atlases()
        self._quads = QuadPipeline(self.ctx, self.atlases)
        self._compositor = FrameCompositor(self._quads) if self.path == "compositor" else None
        self._maze = maze.MazePipeline(self.ctx)
        self._grid_bases: dict[tuple[str, int], np.ndarray] = {}  # at most 6 scenes x 3 cell sizes
        self._deferred: list[_Deferred] = []  # inside frame_batch()

    def describe(self) -> dict:
        """What draws this renderer's frames: {"path": "gl" | "compositor", "gl_renderer": the GL device}."""
        return {"path": self.path, "gl_renderer": self.gl_renderer}

    def _canvas(self, width: int, height: int) -> Canvas:
        return Canvas(self.atlases, width, height)

    def _draw_2d(self, scenes: list, size: tuple[int, int], draw, bases=None) -> np.ndarray:
        canvas = self._canvas(*size)
        for index, scene in enumerate(scenes):
            canvas.frame = index
            draw(canvas, scene)
        state = _batch_state()
        if not state.depth:
            if self._compositor is None:
                return self._quads.draw(canvas, len(scenes), bases)
            out = np.empty((len(scenes), size[1], size[0], 3), dtype=np.uint8)
            self._compositor.draw(canvas.instances(), size, bases, [out])
            return out
        # The scenes are drawn into the canvas now, so later changes to them cannot reach the frames.
        out = np.empty((len(scenes), size[1], size[0], 3), dtype=np.uint8)
        if not self._deferred:
            state.waiting.append(self)
        self._deferred.append(_Deferred(size, canvas.instances(), bases, out))
        return out

    def _flush(self) -> None:
        deferred, self._deferred = self._deferred, []
        by_size = defaultdict(list)
        for call in deferred:
            by_size[call.size].append(call)
        for size, calls in by_size.items():
            parts = [(c.instances, c.bases, c.out) for c in calls]
            (self._compositor or self._quads).draw_parts(parts, size)

    def grid(self, scenes: Union[grid.GridScene, Sequence[grid.GridScene]]) -> np.ndarray:
        scenes = [scene.validate() for scene in _as_list(scenes, grid.GridScene)]
        size = _same("cell_size", scenes, lambda s: s.size)
        # Each frame starts from its scene's fixed layer, drawn once per renderer: on llvmpipe that
        # layer (full-frame pattern, floor, panels) is most of a frame's rasterising.
        bases = [self._grid_base(scene) for scene in scenes]
        return self._draw_2d(scenes, (size, size), grid.draw_state, bases)

    def _grid_base(self, scene: grid.GridScene) -> np.ndarray:
        key = grid.base_key(scene)
        if key not in self._grid_bases:
            canvas = self._canvas(scene.size, scene.size)
            grid.draw_base(canvas, scene)
            self._grid_bases[key] = self._quads.draw(canvas, 1, components=4)[0]
        return self._grid_bases[key]

    def cube_net(self, states, sticker: int = 32) -> np.ndarray:
        """``states``: one or many facelet strings (54 chars, faces U R F D L B) or Cube objects."""
        facelets = [cube_net.facelets_of(state) for state in cube_net.as_state_list(states)]
        layout = cube_net.NetLayout(sticker)
        return self._draw_2d(facelets, layout.size, lambda canvas, s: cube_net.draw(canvas, s, layout))

    def cards(self, boards: Union[cards.CardBoard, Sequence[cards.CardBoard]]) -> np.ndarray:
        boards = [board.validate() for board in _as_list(boards, cards.CardBoard)]
        size = _same("board size (rows, cols, card_width)", boards, lambda b: b.frame_size)
        return self._draw_2d(boards, size, cards.draw)

    def minimap(self, views: Union[maze.MapView, Sequence[maze.MapView]], size: int = 256) -> np.ndarray:
        views = [view.validate() for view in _as_list(views, maze.MapView)]
        _check_size(size)
        return self._draw_2d(views, (size, size), lambda canvas, v: maze.draw_minimap(canvas, v, size))

    def patch(self, views: Union[maze.MapView, Sequence[maze.MapView]], radius: int = 2, size: int = 256) -> np.ndarray:
        views = [view.validate() for view in _as_list(views, maze.MapView)]
        _check_size(size)
        maze.check_radius(radius)
        return self._draw_2d(views, (size, size), lambda canvas, v: maze.draw_patch(canvas, v, radius, size))

    def mazes(self, mazes: Union[maze.Maze, Sequence[maze.Maze]]) -> "maze.MazeSet":
        """Uploads the geometry of ``mazes`` once; render views from it with ``.views(...)``."""
        return maze.MazeSet(self._maze, [m.validate() for m in _as_list(mazes, maze.Maze)])


def _same(name: str, scenes: list, key):
    if not scenes:
        raise ValueError("a batch needs at least one scene")
    values = {key(scene) for scene in scenes}
    if len(values) != 1:
        raise ValueError(f"all scenes of a batch must share one {name}, got {sorted(values)}")
    return values.pop()


def _check_size(size: int) -> None:
    _check.integer("size", size, 16, 4096)
