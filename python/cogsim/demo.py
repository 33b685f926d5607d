"""``cogsim demo``: the main job. Runs every available suite with scripted agents and writes a
Markdown report (with the frames the renderer drew) into an output folder.

The suites come from the families themselves: each env module ``cogsim/envs/<family>.py`` may
define ``DEMO_SUITES = [{"env_id": ..., "options": {...}, "episodes": N, "agents": [...]}, ...]``.
They all run through the model loop (``cogsim.harness``) into one results store, ``OUT/run``,
whose report (metric tables with intervals, plots) becomes the first section.
"""

from __future__ import annotations

import math
import shutil
import time
import traceback
from pathlib import Path

import cogsim
from cogsim._files import write_text_atomic


def run_demo(out: Path, quick: bool = False) -> int:
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    sections, failures = [], []
    for title, section in _SECTIONS:
        print(f"== {title}", flush=True)
        try:
            text, ok = section(out, quick)
        except Exception as error:  # a broken suite is reported, the others still run
            text, ok = f"Failed: `{error}`\n\n```\n{traceback.format_exc(limit=3)}```\n", False
        if not ok:
            failures.append(title)
        sections.append(f"## {title}\n\n{text}")
        print(text, flush=True)
    header = (
        f"# cogsim demo report\n\ncogsim {cogsim.__version__}, "
        f"{'quick' if quick else 'full'} run, {time.perf_counter() - started:.1f} s. "
        + (f"Failed: {', '.join(failures)}." if failures else "Every check passed.")
        + "\n\n"
    )
    report = out / "report.md"
    write_text_atomic(report, header + "\n".join(sections))
    print(f"report written to {report}")
    return 1 if failures else 0


def demo_suites() -> list[tuple[str, dict]]:
    """(family, entry) for every DEMO_SUITES entry of the families' env modules, in family order."""
    import importlib

    from cogsim import families

    found = []
    for family in sorted(families.all_families(), key=lambda f: f.name):
        families.import_module(family, family.envs)
        module = importlib.import_module(family.envs)
        found += [(family.name, dict(entry)) for entry in getattr(module, "DEMO_SUITES", [])]
    return found


def _suites_section(out: Path, quick: bool) -> tuple[str, bool]:
    from cogsim.harness import RunConfig, Task, run
    from cogsim.report import build_report, write_report

    suites = demo_suites()
    if not suites:
        return "No family defines DEMO_SUITES yet.\n", True
    tasks = [
        Task(
            entry["env_id"],
            _episodes(entry.get("episodes", 10), quick),
            dict(entry.get("options", {})),
            list(entry.get("agents", ["oracle"])),
        )
        for _, entry in suites
    ]
    run_dir = out / "run"
    if (run_dir / "store.sqlite").exists():  # a previous demo's store: the demo always starts afresh
        shutil.rmtree(run_dir)
    agents = list(dict.fromkeys(a for t in tasks for a in t.agents))
    summary = run(RunConfig(tasks, agents, seed=0, workers=0), run_dir)
    write_report(run_dir, title="Suites")
    document = build_report(run_dir, title="Suites")
    families = ", ".join(sorted({family for family, _ in suites}))
    text = (
        f"{len(tasks)} demo suites of {families} with scripted agents: {summary.finished} episodes, "
        f"{summary.turns:,} turns ({summary.parse_failures} parse failures) in {summary.seconds:.1f} s. "
        f"Store: `run/store.sqlite`; full report: [run/report.md](run/report.md).\n\n"
    )
    ok = summary.statuses.get("error", 0) == 0 and summary.finished == summary.episodes
    return text + document.markdown(path_prefix="run/", heading_offset=1, with_title=False), ok


def _episodes(episodes: int, quick: bool) -> int:
    return max(1, math.ceil(episodes / 4)) if quick else int(episodes)


def _cube_section(out: Path, quick: bool) -> tuple[str, bool]:
    from cogsim.cube import cli as cube_cli

    per_depth = 5 if quick else 20
    rows, ok = cube_cli.summary(per_depth=per_depth)
    lines = [
        f"Optimal distances of exact-depth scrambles ({per_depth} per depth, seeds 0..{per_depth - 1}), "
        "answered by the oracle on one thread.\n",
        "| depth | states | correct | queries/s | mean search nodes |",
        "|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {r['depth']} | {r['states']} | {r['correct']} | {r['queries_per_second']:,.0f} | {r['mean_nodes']:,.0f} |"
        for r in rows
    ]
    return "\n".join(lines) + "\n", ok


def _render_section(out: Path, quick: bool) -> tuple[str, bool]:
    from cogsim import cube, render
    from cogsim.benchmarks.cubebench import look as cube_look
    from cogsim.benchmarks.kidgym import look as kidgym_look
    from cogsim.benchmarks.rngbench.maze import look as maze_look
    from cogsim.benchmarks.rngbench.pairs import look as pairs_look

    renderer = render.Renderer()
    scramble = " ".join(cube.scramble(6, 0))
    frames = {
        "cube_net.png": cube_look.frames(renderer, cube.Cube.from_moves(scramble))[0],
        "grid.png": kidgym_look.frames(renderer, kidgym_look.example_grid(0))[0],
        "cards.png": pairs_look.frames(renderer, pairs_look.example_cards(0, theme="poker"))[0],
    }
    mazes = maze_look.mazes(renderer, [maze_look.example_maze(0)])
    frames["maze3d.png"] = mazes.views([0], [0], [0], [1], maze_look.ViewOptions(256, 256))[0]
    lines = [f"Frames drawn headless through EGL (cube net: scramble `{scramble}`).\n"]
    for name, frame in frames.items():
        render.save_png(frame, out / name)
        lines.append(f"![{name}]({name})")
    return "\n".join(lines) + "\n", True


_SECTIONS = [("Suites", _suites_section), ("Cube oracle", _cube_section), ("Renderer", _render_section)]
