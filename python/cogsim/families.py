"""The benchmark families: one record per family says what it provides and where.

A family is one benchmark, or one game of a benchmark (RNG-Bench has two: ``pairs`` and ``maze3d``).
Its record names the benchmark it belongs to (the folder ``cogsim/benchmarks/<benchmark>/`` holds
its code), the env ids it registers, the module that registers them (its env classes carry the
scripted agents, and the module may list ``DEMO_SUITES`` for ``cogsim demo``), the module that
registers its metric suite (which the report turns into sections), the module that registers its
paper preset (``cogsim run --preset paper:<benchmark>``), and the module that draws its scenes with
cogsim's renderer (``scenes``: cogsim's own look) with the scene kinds it adds to the renderer
(``renderer.grid``, ...). The built-in families are listed here;
another package adds a family through the ``cogsim.families`` entry-point group, each entry naming a
:class:`Family` (``docs/adding-a-benchmark.md``)::

    [project.entry-points."cogsim.families"]
    mygame = "mypackage.cogsim_family:FAMILY"

Nothing is imported before it is used: ``cogsim.list_envs()`` reads the declared ids, and
``cogsim.make(env_id)`` imports only the family that declares ``env_id``. Every declared id is also
registered with Gymnasium as ``cogsim/<family>-<name>`` (``gymnasium.make("cogsim/wilt-full")``).
"""

from __future__ import annotations

import importlib
import threading
import warnings
from dataclasses import InitVar, dataclass
from importlib import metadata
from typing import Optional

ENTRY_POINT_GROUP = "cogsim.families"


@dataclass(frozen=True)
class Family:
    name: str
    env_ids: tuple[str, ...]
    envs: str  # module that registers the env ids with cogsim.envs.register
    metrics: Optional[str] = None  # module that registers the metric suite ``suite``
    suite: Optional[str] = None  # the metric suite's name (default: the family's name)
    benchmark: Optional[str] = None  # the benchmark it belongs to (default: the family's name)
    paper: Optional[str] = None  # module that registers the paper preset (cogsim.report.papers.register)
    scenes: Optional[str] = None  # module that adds the scene kinds ``scene_kinds`` to the renderer
    scene_kinds: tuple[str, ...] = ()
    # "package:file": the SHA-256 manifest of the release files its pictures need (``cogsim assets``)
    assets_manifest: Optional[str] = None
    look: InitVar[Optional[str]] = None  # the earlier name of ``scenes``

    def __post_init__(self, look: Optional[str]):
        if look is not None:
            warnings.warn("Family(look=...) is now Family(scenes=...)", DeprecationWarning, stacklevel=3)
            if self.scenes is not None and self.scenes != look:
                raise ValueError(f"family {self.name!r}: give scenes or its earlier name look, not both")
            object.__setattr__(self, "scenes", look)
        if not self.name or not self.env_ids or not self.envs:
            raise ValueError(
                f"family {self.name!r}: give a name, at least one env id and the module that registers them"
            )

    @property
    def metric_suite(self) -> Optional[str]:
        return (self.suite or self.name) if self.metrics else None

    @property
    def benchmark_name(self) -> str:
        return self.benchmark or self.name


class FamilyImportError(ImportError):
    """A family's module failed to import, so its env ids or metrics are missing."""


_KIDGYM_TASKS = (
    "classification",
    "counting",
    "decode",
    "decode_maze",
    "filling",
    "maze",
    "memory_decode",
    "memory_filling",
    "memory_maze",
    "placement",
    "puzzle",
    "selection",
    "sorting",
)
_CUBE_TESTS = (
    "closed-loop",
    "invariance",
    "move-effect",
    "optimal-move",
    "reconstruction",
    "recovery",
    "reflection",
    "verification",
)

_BENCHMARKS = "cogsim.benchmarks."
BUILTIN: tuple[Family, ...] = (
    Family(
        "cube",
        tuple(f"cube/{t}" for t in _CUBE_TESTS),
        _BENCHMARKS + "cubebench.envs",
        _BENCHMARKS + "cubebench.metrics",
        benchmark="cubebench",
        paper=_BENCHMARKS + "cubebench.paper",
        scenes=_BENCHMARKS + "cubebench.cogsim_look",
        scene_kinds=("cube_net",),
    ),
    Family(
        "kidgym",
        tuple(f"kidgym/{t}" for t in _KIDGYM_TASKS),
        _BENCHMARKS + "kidgym.env",
        _BENCHMARKS + "kidgym.metrics",
        paper=_BENCHMARKS + "kidgym.paper",
        scenes=_BENCHMARKS + "kidgym.cogsim_look",
        scene_kinds=("grid",),
        assets_manifest=_BENCHMARKS + "kidgym:release_assets.json",
    ),
    Family(
        "maze3d",
        ("maze3d/nav",),
        _BENCHMARKS + "rngbench.maze.env",
        _BENCHMARKS + "rngbench.maze.metrics",
        benchmark="rngbench",
        paper=_BENCHMARKS + "rngbench.paper",
        scenes=_BENCHMARKS + "rngbench.maze.cogsim_look",
        scene_kinds=("mazes", "minimap", "patch"),
    ),
    Family(
        "pairs",
        ("pairs/duel", "pairs/single"),
        _BENCHMARKS + "rngbench.pairs.env",
        _BENCHMARKS + "rngbench.pairs.metrics",
        benchmark="rngbench",
        paper=_BENCHMARKS + "rngbench.paper",
        scenes=_BENCHMARKS + "rngbench.pairs.cogsim_look",
        scene_kinds=("cards",),
        assets_manifest=_BENCHMARKS + "rngbench:release_assets.json",
    ),
    Family(
        "wilt",
        ("wilt/full", "wilt/lite", "wilt/procedural", "wilt/prototype"),
        _BENCHMARKS + "wilt.env",
        _BENCHMARKS + "wilt.metrics",
        paper=_BENCHMARKS + "wilt.paper",
    ),
)

_lock = threading.RLock()  # re-entrant: a family module may look up the registry while it is imported
_families: Optional[tuple[Family, ...]] = None
_imported: set[str] = set()


def all_families() -> tuple[Family, ...]:
    """The built-in families, then those of installed plugins (entry points), loaded once."""
    global _families
    if _families is None:
        with _lock:
            if _families is None:
                _families = _claimed_once(BUILTIN + _plugin_families())
    return _families


def _plugin_families() -> tuple[Family, ...]:
    found = []
    for entry in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            family = entry.load()
        except Exception as error:
            raise FamilyImportError(
                f"family plugin {entry.name!r} ({entry.value}) failed to load: {type(error).__name__}: {error}"
            ) from error
        if not isinstance(family, Family):
            raise FamilyImportError(f"family plugin {entry.name!r} ({entry.value}) is not a cogsim.families.Family")
        found.append(family)
    return tuple(found)


def _claimed_once(found: tuple[Family, ...]) -> tuple[Family, ...]:
    """The families, unless two claim one name, env id, metric suite or scene kind: the lookups take
    the first, so the second would be shadowed without a word (a plugin reusing a built-in's id)."""
    owners: dict[tuple[str, str], Family] = {}
    for family in found:
        claims = [("name", family.name), *(("env id", env_id) for env_id in family.env_ids)]
        claims += [("scene kind", kind) for kind in family.scene_kinds]
        if family.metric_suite:
            claims.append(("metric suite", family.metric_suite))
        for kind, value in claims:
            owner = owners.setdefault((kind, value), family)
            if owner is not family:
                raise FamilyImportError(
                    f"family {family.name!r} ({family.envs}) declares the {kind} {value!r}, which family "
                    f"{owner.name!r} ({owner.envs}) declares already; give it a name of its own"
                )
    return found


def declared_env_ids() -> list[str]:
    return sorted({env_id for family in all_families() for env_id in family.env_ids})


def family_of(env_id: str) -> Optional[Family]:
    return next((f for f in all_families() if env_id in f.env_ids), None)


def family_of_suite(suite: str) -> Optional[Family]:
    return next((f for f in all_families() if f.metric_suite == suite), None)


def family_of_scene_kind(kind: str) -> Optional[Family]:
    return next((f for f in all_families() if f.scenes and kind in f.scene_kinds), None)


def assets_manifests() -> dict[str, str]:
    """Benchmark -> "package:file" of its release-files manifest, for the benchmarks that have one."""
    return {f.benchmark_name: f.assets_manifest for f in all_families() if f.assets_manifest}


def paper_modules() -> list[tuple[Family, str]]:
    """Each module that registers a paper preset, once, with the first family that names it."""
    seen: dict[str, Family] = {}
    for family in all_families():
        if family.paper and family.paper not in seen:
            seen[family.paper] = family
    return [(family, module) for module, family in seen.items()]


def import_module(family: Family, module: str) -> None:
    """Import one of a family's modules once; a failure names the family and is retried next time."""
    if module in _imported:
        return
    with _lock:
        if module in _imported:
            return
        try:
            importlib.import_module(module)
        except Exception as error:
            raise FamilyImportError(
                f"family {family.name!r}: {module} failed to import, so its env ids or metrics are missing: "
                f"{type(error).__name__}: {error}"
            ) from error
        _imported.add(module)


def gymnasium_id(env_id: str) -> str:
    """The id under which Gymnasium knows a cogsim env: ``cogsim/wilt-full`` for ``wilt/full``."""
    return "cogsim/" + env_id.replace("/", "-")


def register_with_gymnasium() -> None:
    """Registers every declared env id with Gymnasium (lazily: nothing is imported until made)."""
    import gymnasium

    for env_id in declared_env_ids():
        gym_id = gymnasium_id(env_id)
        if gym_id not in gymnasium.registry:
            gymnasium.register(
                gym_id,
                entry_point="cogsim.envs:make",
                kwargs={"env_id": env_id},
                disable_env_checker=True,
                order_enforce=False,
            )
