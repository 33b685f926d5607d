"""Metrics of the four papers. Each suite registers a summariser that turns the per-episode outcome
dicts (``info["episode"]`` plus the runner's fields: env_id, options, seed, agent) into tables.

A summariser returns a list of ``Table``; the report renders them as Markdown and HTML. Suites that
need plots also register a plotter: ``plot(episodes, out_dir) -> list[(caption, path)]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from cogsim import families
from cogsim.metrics.stats import Estimate, bootstrap, mean_ci, wilson

__all__ = ["Estimate", "Table", "wilson", "mean_ci", "bootstrap", "register", "summarize", "plot", "suites"]


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)  # cells: str, int, float or Estimate
    note: str = ""


Summarizer = Callable[[Sequence[dict]], list[Table]]
Plotter = Callable[[Sequence[dict], Any], list[tuple[str, Any]]]
_SUMMARIZERS: dict[str, Summarizer] = {}
_PLOTTERS: dict[str, Plotter] = {}


def _load_suite(suite: str) -> None:
    """Import the module of the family whose metric suite this is (it registers itself)."""
    if suite not in _SUMMARIZERS:
        family = families.family_of_suite(suite)
        if family is not None and family.metrics:
            families.import_module(family, family.metrics)


def register(suite: str, summarizer: Summarizer, plotter: Optional[Plotter] = None) -> None:
    _SUMMARIZERS[suite] = summarizer
    if plotter is not None:
        _PLOTTERS[suite] = plotter


def suites() -> list[str]:
    """The families' declared metric suites and any registered directly (nothing is imported)."""
    declared = {f.metric_suite for f in families.all_families() if f.metric_suite}
    return sorted(declared | set(_SUMMARIZERS))


def summarize(suite: str, episodes: Sequence[dict]) -> list[Table]:
    _load_suite(suite)
    try:
        summarizer = _SUMMARIZERS[suite]
    except KeyError:
        raise ValueError(f"no metrics registered for suite {suite!r}; known: {', '.join(suites())}") from None
    return summarizer(episodes)


def plot(suite: str, episodes: Sequence[dict], out_dir) -> list[tuple[str, Any]]:
    _load_suite(suite)
    plotter = _PLOTTERS.get(suite)
    return plotter(episodes, out_dir) if plotter else []
