"""``cogsim demo``: the main job. Runs every available suite with scripted agents and writes a
Markdown report (with the frames the renderer drew) into an output folder.

The suites come from the families themselves: each family's env module (its record's ``envs``) may
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
    fallbacks: dict[str, str] = {}  # env id -> why it is drawn in cogsim's look
    tasks = [
        Task(
            entry["env_id"],
            _episodes(entry.get("episodes", 10), quick),
            _options_drawable_here(entry, fallbacks),
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
    if fallbacks:
        text += (
            "Drawn in cogsim's own look (`look=\"cogsim\"`) because the release's image files are not installed "
            "here: " + "; ".join(f"`{env_id}`: {why}" for env_id, why in sorted(fallbacks.items())) + ". Every other "
            "suite with images shows the release's pictures. Install the files with `cogsim assets add BENCHMARK PATH` "
            "or `cogsim assets fetch BENCHMARK` (`cogsim assets list` names the benchmarks).\n\n"
        )
    ok = summary.statuses.get("error", 0) == 0 and summary.finished == summary.episodes
    return text + document.markdown(path_prefix="run/", heading_offset=1, with_title=False), ok


def _options_drawable_here(entry: dict, fallbacks: dict) -> dict:
    """The suite's options, with look="cogsim" (and the suite's ``fallback`` options for that look) where
    the release look needs release files that are not installed (a fresh machine, CI): the demo runs
    everywhere, the same game in another picture, and says which suites fell back."""
    from cogsim.release_assets import AssetsMissing

    env_id, options = entry["env_id"], dict(entry.get("options", {}))
    try:
        cogsim.make(env_id, **options).close()
    except AssetsMissing as missing:
        fallbacks[env_id] = str(missing).split(": run ", 1)[0]
        return {**options, "look": "cogsim", **entry.get("fallback", {})}
    return options


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


# The pictures of the renderer section: (benchmark, env id, options, the options of cogsim's look where the
# release look needs release files that are not installed). Each is the env's first frame of seed 0.
PICTURES = [
    ("KidGym", "kidgym/maze", {"level": 2}, {"look": "cogsim"}),
    ("RNG-Bench Matching Pairs", "pairs/single", {"modality": "image", "theme": "poker"}, {"look": "cogsim"}),
    ("RNG-Bench 3D maze", "maze3d/nav", {"size": 5, "minimap": True}, None),
]


def _render_section(out: Path, quick: bool) -> tuple[str, bool]:
    """One picture per benchmark as a model gets it (the bytes the env sends, as their file): the
    release's look where it can be drawn here, cogsim's look where the release's files are not installed,
    each named."""
    from cogsim import cube
    from cogsim._files import write_bytes_atomic
    from cogsim.benchmarks.cubebench import views
    from cogsim.render.frames import describe, encode_frames, file_suffix

    lines = ["The first frame of seed 0 of each benchmark, as a model gets it (the file holds the bytes sent).\n"]
    missing = []
    for title, env_id, options, fallback in PICTURES:
        env, look = _picture_env(env_id, options, fallback, missing)
        frame = env.reset(seed=0)[0]["images"][-1]
        frame_format = env.frame_format()
        name = env_id.replace("/", "_") + file_suffix(frame_format)
        write_bytes_atomic(out / name, encode_frames([frame], frame_format)[0])
        env.close()
        lines.append(f"- {title} (`{env_id}`), {look}, sent as {describe(frame_format)}:\n\n  ![{name}]({name})\n")
    scramble = " ".join(cube.scramble(6, 0))
    net = views.release_net_image(views.recolour(cube.Cube.from_moves(scramble).to_facelets(), "release"))
    write_bytes_atomic(out / "cube_net.png", encode_frames([net])[0])
    lines.append(
        f"- Cube Bench, the net of scramble `{scramble}`, the release's look, sent as PNG:\n\n  ![cube_net.png](cube_net.png)\n"
    )
    if missing:
        lines.append(
            "Drawn in cogsim's own look because the release's image files are not installed here: "
            + ", ".join(missing)
            + ". `cogsim assets add BENCHMARK PATH` or `cogsim assets fetch BENCHMARK` installs them.\n"
        )
    return "\n".join(lines), True


def _picture_env(env_id: str, options: dict, fallback, missing: list) -> tuple:
    """The env that draws a picture and its look in words: the release's, or cogsim's where the release
    look needs files that are not installed (noted in ``missing``)."""
    from cogsim.release_assets import AssetsMissing

    try:
        return cogsim.make(env_id, **options), "the release's look"
    except AssetsMissing:
        if fallback is None:
            raise
        missing.append(f"`{env_id}`")
        return cogsim.make(env_id, **options, **fallback), "cogsim's look (the release's files are not installed)"


_SECTIONS = [("Suites", _suites_section), ("Cube oracle", _cube_section), ("Renderer", _render_section)]
