"""Module paths the benchmark folders used before their files were named by idea, still importable.

An old path that no file holds any more (``cogsim.benchmarks.kidgym.release_look``) imports as an alias
of the module that holds its code now, with a DeprecationWarning naming it. A look module whose name
now means the release's picture forwards the names of cogsim's own look it used to hold
(``from cogsim.benchmarks.kidgym.look import GridScene``) to ``cogsim_look`` the same way.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType
from typing import Any, Callable

_B = "cogsim.benchmarks."
MOVED = {
    _B + "kidgym.release_look": _B + "kidgym.look",
    _B + "kidgym.release_play": _B + "kidgym.game",
    _B + "kidgym.release_scene": _B + "kidgym.scene",
    _B + "kidgym.release_catalog": _B + "kidgym.catalog",
    _B + "cubebench.release_look": _B + "cubebench.look",
    _B + "cubebench.releases": _B + "cubebench.release_lines",
    _B + "rngbench.maze.release_look": _B + "rngbench.maze.look",
    _B + "rngbench.maze.release": _B + "rngbench.maze.rules",
    _B + "rngbench.pairs.release_look": _B + "rngbench.pairs.look",
}


def _moved(old: str, new: str) -> None:
    warnings.warn(f"{old} is now {new}; import that instead", DeprecationWarning, stacklevel=3)


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        return None

    def exec_module(self, module: ModuleType) -> None:
        target = importlib.import_module(self.target)
        _moved(module.__name__, self.target)
        module.__doc__ = target.__doc__
        module.__getattr__ = lambda name: getattr(target, name)  # type: ignore[method-assign]
        module.__dir__ = lambda: dir(target)  # type: ignore[method-assign]


class _MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        new = MOVED.get(fullname)
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(new)) if new else None


def install() -> None:
    """Add the finder of old paths after the ones that find files (once)."""
    if not any(isinstance(finder, _MovedFinder) for finder in sys.meta_path):
        sys.meta_path.append(_MovedFinder())


def names_moved_to(module: str, target: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` that finds a name ``module`` lacks in ``target``, with a warning."""

    def forward(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(importlib.import_module(target), name)
        _moved(f"{module}.{name}", f"{target}.{name}")
        return value

    return forward
