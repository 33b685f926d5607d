"""Headless OpenGL contexts: one per backend, per thread, per process, created on first use.

An EGL context is current in one thread only, so contexts, and the shared renderers built on
them, are keyed by (process id, thread id, backend): each thread gets its own.

A GL driver does not survive ``fork``: a child forked from a process that had made a context
waits forever on the parent's driver threads, even for a fresh context (seen with Mesa llvmpipe).
Such a child gets a ContextError naming the fix (the "spawn" or "forkserver" start method) instead
of a hang; a child forked before any context was made renders normally.
"""

from __future__ import annotations

import os
import threading

import moderngl

BACKENDS = ("egl", "default")
_CONTEXTS: dict[tuple[int, int, str], moderngl.Context] = {}
_LOCK = threading.Lock()
_forked_after_gl = False


class ContextError(RuntimeError):
    """No OpenGL 3.3 context could be created; the message names the fix."""


def gl_context(backend: str = "egl") -> moderngl.Context:
    """The calling thread's standalone context for ``backend`` ("egl": headless, no display needed;
    "default": GLX/WGL/CGL through a display)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if _forked_after_gl:
        raise ContextError(
            "this process was forked from one that had already created an OpenGL context, and GL "
            "drivers do not survive fork (the child would hang). Fix: start worker processes with "
            "multiprocessing's 'spawn' or 'forkserver' method (multiprocessing.get_context('spawn')), "
            "or create no renderer before forking."
        )
    key = _key(backend)
    with _LOCK:
        context = _CONTEXTS.get(key)
    if context is None:
        context = _create(backend)
        with _LOCK:
            _CONTEXTS[key] = context
    return context


def make_current(context: moderngl.Context) -> None:
    """Makes ``context`` current in this thread and leaves it so. Another GL user in the same thread
    (a pyglet window, a peer simulator, a second context) makes its own context current, and GL calls
    go to whichever is, so every entry into the GL (a draw pass, an upload) calls this first.
    ``with context:`` would not do: leaving it releases the context rather than restoring another."""
    context.__enter__()


def _key(backend: str) -> tuple[int, int, str]:
    return (os.getpid(), threading.get_ident(), backend)


def _forget_inherited_contexts() -> None:
    # The parent's contexts are unusable here, and so is the driver if the parent had used it.
    global _forked_after_gl
    _forked_after_gl = _forked_after_gl or bool(_CONTEXTS)
    _CONTEXTS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_inherited_contexts)


def _create(backend: str) -> moderngl.Context:
    try:
        if backend == "default":
            return moderngl.create_standalone_context(require=330)
        return moderngl.create_standalone_context(require=330, backend=backend)
    except Exception as error:  # glcontext raises plain Exception with the loader's message
        other = "default" if backend == "egl" else "egl"
        raise ContextError(
            f"cannot create an OpenGL 3.3 context with backend {backend!r}: {error}. "
            "Fix: install the Mesa EGL packages (Debian/Ubuntu: apt-get install libegl1 libgl1 "
            "libgl1-mesa-dri libegl-mesa0), which render headless on the CPU through llvmpipe, or a GPU "
            f"driver with EGL; or choose the other backend: Renderer(backend={other!r}), "
            f"`cogsim render --backend {other}` ('egl': headless; 'default': the display's GLX context)."
        ) from error
