"""Frames for the RNG-Bench envs from the shared renderer (one GL context per process)."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def shared_renderer():
    """The process's renderer, created on first use (headless EGL: llvmpipe on CPU, a GPU when present)."""
    from cogsim.render import Renderer

    return Renderer(backend="egl")
