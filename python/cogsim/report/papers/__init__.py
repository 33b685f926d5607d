"""The papers' main tables beside a run's: the protocols of ``cogsim run --preset paper:<benchmark>``
and the report section that prints the run in each paper's layout with the published rows below it.

A paper's protocol is a list of :class:`Cell` (env id, options, episodes per model, the seeds the
paper used where it says). Each benchmark registers its paper from its own folder (the module its
family record names as ``paper``). The published rows are facts transcribed from the papers' tables
into ``published.json`` beside that module (each file names its source); ``published(name)`` reads
them. In the comparison tables a run's cell carries ``*`` where the run's protocol differs from the
paper's there (fewer or more finished episodes, other env options, other seeds, a history policy,
and where the paper's module says so, episodes whose mechanics or pictures are not the release's:
``Paper.release_check``, for the image benchmarks from each episode's recorded look, ``show_goal`` and
release files, :func:`picture_differences`); a table below lists how.

    paper:kidgym     Table 2 (and Table 6, the capability scores derived from it)
    paper:wilt       Tables 1 and 4
    paper:cubebench  Tables 1-5 and 9 (the closed loop of Fig. 2 runs too; the paper plots it)
    paper:rngbench   Tables 2 and 3 (duels need two agents or more)
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import dataclass, replace
from importlib import resources
from typing import Callable, Optional, Sequence

from cogsim import families
from cogsim.metrics import Table
from cogsim.report.document import Code, Document

PREFIX = "paper:"


@dataclass(frozen=True)
class Cell:
    """One cell of a paper's protocol: episodes of ``env_id`` with ``options``, ``episodes`` per model.
    ``seeds``: the episode seeds the paper used, when it fixes them."""

    env_id: str
    options: dict
    episodes: int
    seeds: Optional[tuple] = None
    min_agents: int = 1
    seats: Optional[tuple] = None  # who sits where, when the run must set it (see preset_cells)


@dataclass(frozen=True)
class Paper:
    name: str
    title: str
    cells: Sequence[Cell]  # the protocol
    tables: Callable[["RunCells", dict], list[Table]]  # (the run, the published data) -> comparison tables
    package: str  # the package that holds the published rows (published.json)
    # (cell, its episodes) -> why they are not the release's (mechanics, pictures): each episode's
    # stored options and outcome say what it played and drew with
    release_check: Optional[Callable[["Cell", Sequence[dict]], list[str]]] = None


_PAPERS: dict[str, Paper] = {}


def register(paper: Paper) -> None:
    _PAPERS[PREFIX + paper.name] = paper


def presets() -> list[str]:
    _load()
    return sorted(_PAPERS)


def paper(preset: str) -> Paper:
    _load()
    if preset not in _PAPERS:
        raise ValueError(f"preset must be one of {', '.join(sorted(_PAPERS))}, got {preset!r}")
    return _PAPERS[preset]


def preset_cells(preset: str, agents: Sequence[str]) -> list[Cell]:
    """The cells a preset runs with ``agents`` (cells that need more agents are left out). A duel
    between exactly two agents is played in both seat orders, as the papers' tables aggregate them
    (with more agents the run plays every seating anyway)."""
    cells = []
    for cell in paper(preset).cells:
        if len(agents) < cell.min_agents:
            continue
        if cell.min_agents == 2 and len(agents) == 2:
            cells += [replace(cell, seats=tuple(agents)), replace(cell, seats=tuple(reversed(agents)))]
        else:
            cells.append(cell)
    return cells


def published(name: str) -> dict:
    """The published rows of a benchmark's paper (``kidgym``, ``wilt``, ``cubebench``, ``rngbench``)."""
    package = paper(PREFIX + name).package
    return json.loads(resources.files(package).joinpath("published.json").read_text(encoding="utf-8"))


def _load() -> None:
    """Import every family's paper module once (each registers its paper)."""
    for family, module in families.paper_modules():
        families.import_module(family, module)


# -- the run's side ---------------------------------------------------------------------------------


def agent_of(episode: dict) -> str:
    agent = episode.get("agent", "?")
    return " vs ".join(map(str, agent)) if isinstance(agent, (list, tuple)) else str(agent)


@dataclass
class RunCells:
    """A run's finished episodes sorted into a paper's cells, with what differs from the paper's
    protocol per cell and agent. ``history``: the run's history policy (None: each env's own)."""

    cells: Sequence[Cell]
    episodes: Sequence[dict]
    history: Optional[str] = None
    release_check: Optional[Callable[[Cell, Sequence[dict]], list[str]]] = None

    def __post_init__(self):
        self._how: dict[tuple, list[str]] = {}  # (cell index, agent) -> how the run differs there
        self._differences: dict[tuple, list[str]] = {}  # (table, agent, how) -> labels of the cells marked
        self._by_cell: dict[int, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
        for episode in self.episodes:
            index = self._cell_index(episode)
            if index is not None:
                self._by_cell[index][agent_of(episode)].append(episode)

    def _cell_index(self, episode: dict) -> Optional[int]:
        options = episode.get("options") or {}
        for i, cell in enumerate(self.cells):
            if episode.get("env_id") == cell.env_id and all(options.get(k) == v for k, v in cell.options.items()):
                return i
        return None

    def agents(self, *cells: Cell) -> list[str]:
        """The agents (duels: seatings "a vs b") with episodes in ``cells`` (default: any cell)."""
        chosen = [self.cells.index(c) for c in cells] if cells else list(self._by_cell)
        return sorted({agent for i in chosen for agent in self._by_cell.get(i, {})})

    def find(self, env_id: str, **options) -> Cell:
        for cell in self.cells:
            if cell.env_id == env_id and cell.options == options:
                return cell
        raise KeyError(f"no cell {env_id} {options} in this protocol")

    def get(self, cell: Cell, agent: str) -> list[dict]:
        return self._by_cell.get(self.cells.index(cell), {}).get(agent, [])

    def how_differs(self, cell: Cell, agent: str) -> list[str]:
        """What the run did differently from the paper in this cell (empty: the paper's protocol)."""
        key = (self.cells.index(cell), agent)
        if key not in self._how:
            self._how[key] = self._how_differs(cell, agent)
        return self._how[key]

    def _how_differs(self, cell: Cell, agent: str) -> list[str]:
        episodes = self.get(cell, agent)
        how = []
        if len(episodes) != cell.episodes:
            how.append(f"finished episodes: {len(episodes)} (the paper: {cell.episodes})")
        expected = {**_env_defaults(cell.env_id), **cell.options}
        extra = sorted(
            {
                f"{k}={v}"
                for e in episodes
                for k, v in (e.get("options") or {}).items()
                if k not in expected or expected[k] != v
            }
        )
        if extra:
            how.append("options " + ", ".join(extra))
        if cell.seeds is not None and episodes:
            if not {int(e["seed"]) for e in episodes} <= set(cell.seeds):
                how.append(f"other seeds than the paper's ({_span(cell.seeds)})")
        if self.history:
            how.append(f"history {self.history}")
        if self.release_check is not None and episodes:
            how += self.release_check(cell, episodes)
        return how

    def mark(
        self, table: str, agent: str, label: str, cells: Sequence[Cell], value: str, also: Sequence[str] = ()
    ) -> str:
        """``value`` with ``*`` when the run's protocol differs from the paper's in any of ``cells`` (or
        for the reasons in ``also``), recorded once per table, agent and label for the differences table."""
        how = sorted({reason for cell in cells for reason in self.how_differs(cell, agent)} | set(also))
        if not how:
            return value
        labels = self._differences.setdefault((table, agent, "; ".join(how)), [])
        if label not in labels:
            labels.append(label)
        return value + "*"

    def differences(self) -> list[list[str]]:
        """Rows (table, agent, cells, how) of the differences table: the cells marked, grouped by reason."""
        rows = []
        for (table, agent, how), labels in self._differences.items():
            cells = ", ".join(labels) if len(labels) <= 6 else f"{len(labels)} cells: {', '.join(labels[:3])}, ..."
            rows.append([table, agent, cells, how])
        return rows


def _env_defaults(env_id: str) -> dict:
    """The options an env id sets itself (the runner stores them with every episode's options)."""
    from cogsim.envs import list_envs, spec

    return dict(spec(env_id).defaults) if env_id in list_envs() else {}


def _span(seeds: Sequence[int]) -> str:
    seeds = sorted(seeds)
    return f"{seeds[0]}-{seeds[-1]}" if seeds == list(range(seeds[0], seeds[-1] + 1)) else ", ".join(map(str, seeds))


def picture_differences(episodes: Sequence[dict]) -> list[str]:
    """Why episodes' pictures are not the release's, from their records (a ``Paper.release_check`` of an
    image benchmark starts from this): cogsim's look (chosen, or taken where the release's files were not
    installed, as ``cogsim demo`` does), the goal drawn into the 3D maze view (``show_goal``, which the
    release never draws), or a look the records do not state (a run made before they did). Episodes in
    text modality show no pictures and are not asked."""
    shown = [e for e in episodes if e.get("modality") != "text"]
    looks = {e.get("look") for e in shown}
    how = []
    if "cogsim" in looks:
        how.append(
            "cogsim's pictures, not the release's (look=cogsim: chosen, or the release's files were not installed)"
        )
    if shown and not looks <= {"release", "cogsim"}:
        how.append("the pictures' look is not recorded (a run made before episodes recorded it)")
    if any(e.get("show_goal") for e in shown):
        how.append("the goal drawn into the 3D view (show_goal=True); the release's view never shows it")
    return how


# -- formatting -------------------------------------------------------------------------------------


def fmt(value: Optional[float], digits: int = 1, scale: float = 1.0, signed: bool = False) -> str:
    """A number as the papers print it ("-" when there is none)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value * scale:{'+' if signed else ''}.{digits}f}"


MARK_NOTE = (
    "Each table shows this run's rows (source: this run) in the paper's layout, then the published rows as "
    "transcribed from the paper (source: its table). A run's cell marked `*` ran under another protocol than the "
    "paper's (the table 'Where this run differs from the papers' protocol' says how)."
)


def add_paper_section(document: Document, preset: str, episodes: Sequence[dict], history: Optional[str]) -> None:
    """The section of a preset run's report: its tables in the paper's layout, published rows below
    (``preset`` comes from the run directory: only a known name is acted on)."""
    if preset not in presets():
        document.heading("Paper tables")
        document.paragraph("The run names an unknown preset ", Code(preset), "; known: ", ", ".join(presets()), ".")
        return
    chosen = paper(preset)
    run = RunCells(chosen.cells, episodes, history, chosen.release_check)
    document.heading(f"Paper tables: {chosen.title}")
    document.paragraph(MARK_NOTE)
    for table in chosen.tables(run, published(chosen.name)):
        document.table(table)
    differences = run.differences()
    if differences:
        document.table(
            Table(
                "Where this run differs from the papers' protocol",
                ["table", "agent", "cells", "how"],
                differences,
                "Cells marked `*` in the tables above; the paper's protocol is the preset's (`cogsim run --preset`).",
            )
        )
