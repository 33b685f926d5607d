"""The renderer: one GL context, the atlases on the GPU, and a batch method per scene kind.

The render engine knows no benchmark: each benchmark's look defines its scenes and adds their batch
method with :func:`scene_kind` (``Renderer.grid`` is KidGym's, ``cube_net`` Cube Bench's, ``cards``,
``minimap``, ``patch`` and ``mazes`` RNG-Bench's), built on :meth:`Renderer.draw_2d`,
:meth:`Renderer.base_layer` and :meth:`Renderer.pipeline`.
"""

from __future__ import annotations

import os
import threading
from collections import defaultdict
from contextlib import contextmanager
from typing import Any, Callable, Iterator, NamedTuple, Optional, TypeVar

import numpy as np

from cogsim import families
from cogsim.render import _context
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
_Pipeline = TypeVar("_Pipeline")


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


def frames_pending() -> bool:
    """Whether a frame batch open in this thread holds draws not yet filled in (any array a renderer
    returned inside it may be one of them); False outside a batch."""
    return bool(_batch_state().waiting)


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
        self._pipelines: dict[str, Any] = {}
        self._base_layers: dict[tuple, np.ndarray] = {}
        self._deferred: list[_Deferred] = []  # inside frame_batch()

    def __getattr__(self, name: str):
        """A scene kind's batch method, once the look that adds it is imported: the families say
        which look adds which kind, so ``renderer.grid(...)`` works without importing KidGym first."""
        if name.startswith("_"):
            raise AttributeError(name)
        family = families.family_of_scene_kind(name)
        if family is None or family.scenes is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute or scene kind {name!r}")
        families.import_module(family, family.scenes)
        if name not in vars(type(self)):
            raise AttributeError(f"{family.scenes} was to add the scene kind {name!r} to the renderer, but did not")
        return getattr(self, name)

    def describe(self) -> dict:
        """What draws this renderer's frames: {"path": "gl" | "compositor", "gl_renderer": the GL device}."""
        return {"path": self.path, "gl_renderer": self.gl_renderer}

    def _canvas(self, width: int, height: int) -> Canvas:
        return Canvas(self.atlases, width, height)

    def draw_2d(self, scenes: list, size: tuple[int, int], draw, bases=None) -> np.ndarray:
        """Frames (N, H, W, 3) of ``scenes`` of one ``size`` (width, height): ``draw(canvas, scene)``
        records each scene's draw items; ``bases``: each frame's starting pixels (RGBA, from
        :meth:`base_layer`), or None for an empty frame. Inside :func:`frame_batch` the frames are
        filled when the block ends."""
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

    def base_layer(self, key: tuple, size: tuple[int, int], draw: Callable[[Canvas], None]) -> np.ndarray:
        """The fixed layer that frames of one kind start from (RGBA), drawn once per renderer and
        ``key``: on llvmpipe a full-frame background is most of a frame's rasterising."""
        if key not in self._base_layers:
            canvas = self._canvas(*size)
            draw(canvas)
            self._base_layers[key] = self._quads.draw(canvas, 1, components=4)[0]
        return self._base_layers[key]

    def pipeline(self, name: str, make: Callable[[Any], _Pipeline]) -> _Pipeline:
        """A GL pipeline of this renderer's context (``make(ctx)``), made on first use."""
        if name not in self._pipelines:
            self._pipelines[name] = make(self.ctx)
        return self._pipelines[name]


def scene_kind(name: str) -> Callable[[Callable], Callable]:
    """Adds ``function(renderer, *args, **kwargs)`` to :class:`Renderer` as the batch method
    ``name``: a benchmark's look registers how its scenes are drawn (the engine imports no look)."""

    def add(function: Callable) -> Callable:
        existing = getattr(Renderer, name, None)
        if existing is not None and existing is not function:
            raise ValueError(f"the renderer already has a scene kind or method named {name!r}")
        setattr(Renderer, name, function)
        return function

    return add


def as_batch(value, kind) -> list:
    """``value`` as a list: one scene of type ``kind`` or a sequence of them."""
    return [value] if isinstance(value, kind) else list(value)


def same_across(name: str, scenes: list, key):
    if not scenes:
        raise ValueError("a batch needs at least one scene")
    values = {key(scene) for scene in scenes}
    if len(values) != 1:
        raise ValueError(f"all scenes of a batch must share one {name}, got {sorted(values)}")
    return values.pop()
