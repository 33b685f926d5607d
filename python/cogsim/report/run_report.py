"""The report of one run directory."""

from __future__ import annotations

import json
import stat
import traceback
from collections import Counter
from pathlib import Path
from typing import Mapping, Optional, Sequence
from urllib.parse import urlencode

from cogsim import metrics
from cogsim._files import refuse_links, write_text_atomic
from cogsim.metrics import Table, bootstrap, wilson
from cogsim.report.document import Code, Document, Link, Text
from cogsim.report.papers import add_paper_section
from cogsim.store.sqlite import Store, open_store

FAILURE_EXAMPLES = 10
MAX_FRAME_LINES = 20  # ways frames were drawn that the report names (a store is untrusted: it may hold any)


def write_report(run_dir: str | Path, title: Optional[str] = None, save_metrics: bool = False) -> tuple[Path, Path]:
    """Write ``report.md`` and ``report.html`` (and ``plots/``) into the run directory. The store is
    opened read-only unless ``save_metrics`` (the run that wrote it): then the metric tables are also
    stored in it."""
    run_dir = Path(run_dir)
    document = build_report(run_dir, title, save_metrics)
    markdown, page = run_dir / "report.md", run_dir / "report.html"
    write_text_atomic(markdown, document.markdown())
    write_text_atomic(page, document.html())
    return markdown, page


def build_report(run_dir: str | Path, title: Optional[str] = None, save_metrics: bool = False) -> Document:
    run_dir = Path(run_dir)
    with open_store(run_dir, writable=save_metrics) as store:
        config = store.config() or {}
        document = Document(title or Text(f"cogsim run report: {run_dir.name}"))
        document.paragraph(*_config_line(config))
        add_run_tables(document, store)
        finished = store.episode_records(("done",))  # held column by column: any number of episodes
        add_paper_tables(document, finished, config)
        for suite in _suites(store):
            add_suite_section(document, store, finished.where("suite", suite), suite, run_dir)
        add_failure_examples(document, store)
    return document


def _config_line(config: dict) -> list:
    """The run's settings as paragraph parts (everything read from the store is untrusted: a setting of
    an unexpected shape is shown as it is, never walked)."""
    parts = ["cogsim ", Text(config.get("version", "?")), "; agents "]
    for i, agent in enumerate(_list(config.get("agents"))):
        parts += [", " if i else "", Code(str(agent))]
    parts += [
        "; seed ",
        Text(config.get("seed")),
        "; history ",
        Text(config.get("history") or "env default"),
        "; tasks: ",
    ]
    for i, task in enumerate(t for t in _list(config.get("tasks")) if isinstance(t, dict)):
        options = "".join(f" {k}={_shown_option(v)}" for k, v in sorted(_dict(task.get("options")).items()))
        parts += [", " if i else "", Code(str(task.get("env_id", "?"))), Text(f"{options} x{task.get('episodes')}")]
    return parts + ["."]


def _list(value) -> list:
    return value if isinstance(value, list) else []


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def _shown_option(value) -> str:
    """An option's value in the report: a recorded file by its name and hash, anything else as it is."""
    if isinstance(value, dict) and set(value) == {"file", "sha256", "text"}:
        return f"{value['file']} (sha256 {str(value['sha256'])[:12]})"
    return str(value)


def _suites(store: Store) -> list[str]:
    return store.suites()


def add_run_tables(document: Document, store: Store) -> None:
    """Generic tables every run gets, whatever its suites."""
    document.heading("Run")
    tasks = _list((store.config() or {}).get("tasks"))
    task_options = {i: _dict(t.get("options")) for i, t in enumerate(tasks) if isinstance(t, dict)}
    rows = store.episode_counts()
    turn_stats = store.turn_stats()
    rewards = store.finished_rewards()
    table = Table(
        "Episodes and turns",
        [
            "env",
            "agent",
            "episodes",
            "done",
            "truncated",
            "errors",
            "unfinished",
            "backend faults",
            "turns",
            "parse failures",
            "invalid",
            "cut by length",
            "mean reward",
            "mean latency (ms)",
            "tokens in / out",
        ],
    )
    for task, env_id, agent, count, done, truncated, errored, running, faulted, turns in rows:
        failures, invalid, cut, reasons, latency, tokens_in, tokens_out = turn_stats.get(
            (task, agent), (0, 0, 0, 0, None, None, None)
        )
        options = ", ".join(f"{k}={_shown_option(v)}" for k, v in sorted(task_options.get(task, {}).items()))
        table.rows.append(
            [
                Code(env_id + (f" {options}" if options else "")),
                agent,
                Link(count, _episodes_link(task=task, agent=agent)),
                done,
                truncated,
                errored,
                running,
                int(faulted or 0),
                turns,
                wilson(int(failures or 0), int(turns)) if turns else "n/a",
                int(invalid or 0),
                wilson(int(cut or 0), int(reasons)) if reasons else "n/a",
                bootstrap(rewards.get((task, agent), ())),
                latency * 1000 if latency is not None else "n/a",
                f"{tokens_in or 0:,} / {tokens_out or 0:,}" if tokens_in or tokens_out else "n/a",
            ]
        )
    table.note = (
        "Parse failures: share of turns whose answer the benchmark's parser rejected; cut by length: share of "
        "replies the backend ended at the token limit (finish_reason 'length'; 95% Wilson intervals). Backend "
        "faults: episodes stopped by a failed backend call or damaged release files (never scored, resumable with "
        "`cogsim run --resume`); metrics cover finished episodes only. Episode counts (and the seeds of failed "
        "turns) link to the episodes turn by turn in `cogsim view`, which serves this report."
    )
    document.table(table)
    document.table(throughput_table(store))
    drawn = frames_drawn_by(store)
    if drawn:
        lines = [f"{how} ({count:,} episodes)" for how, count in drawn.most_common()]
        note = " (the GL and the compositor give the same pixels)" if any(" on " in how for how in drawn) else ""
        document.paragraph("Frames: ", Text("; ".join(lines)), f".{note}")
    faults = store.pending_faults()
    if faults:
        faults_table = Table("Backend faults (episodes waiting for a resume)", ["reason", "episodes", "first error"])
        faults_table.rows = [[kind, count, _clip(error, 160)] for kind, (count, error) in sorted(faults.items())]
        document.table(faults_table)
    changes = store.config_changes()
    if changes:
        document.paragraph(
            "Settings changed on resume: ",
            Text("; ".join(", ".join(f"{k}: {old!r} -> {new!r}" for k, (old, new) in c.items()) for c in changes)),
            ".",
        )
    errors = store.failed_episodes(5)
    if errors:
        document.heading("Episodes that failed", 3)
        for env_id, agent, seed, error in errors:
            document.paragraph(Code(env_id), f" seed {seed}, agent ", Code(agent), ":")
            document.code(error)


def frames_drawn_by(store: Store) -> Counter:
    """Episodes per way their frames were drawn and sent, in words ("the release's pictures, drawn on the
    CPU, sent as JPEG quality 88 (optimized)"), from the episodes' loop records (untrusted: a damaged
    record is left out). Runs made before frames were sent as their releases send them sent PNG."""
    drawn: Counter = Counter()
    for loop, count in store.loop_counts():
        try:
            frames = json.loads(loop).get("frames")
            how = _drawn_by(frames)
        except (TypeError, ValueError, KeyError, AttributeError):  # no frames, or a damaged record
            continue
        if how in drawn or len(drawn) < MAX_FRAME_LINES:
            drawn[how] += count
    return drawn


def _drawn_by(frames: dict) -> str:
    from cogsim.render.frames import check_frame_format, describe  # the renderer's package only for frames

    look, path, device = frames.get("look"), str(frames["path"]), frames.get("gl_renderer")
    if look == "release":
        how = "the release's pictures, drawn on the CPU"
    else:
        how = ("cogsim's pictures" if look == "cogsim" else "frames") + f", drawn by the {path}"
        how += f" on {device}" if device and path in ("gl", "compositor") else ""
    sent = frames.get("sent")
    if not isinstance(sent, dict):  # an earlier record: the maze's format in it, else PNG
        sent = {k: frames[k] for k in ("format", "quality", "optimize") if k in frames} or {"format": "png"}
    return f"{how}, sent as {describe(check_frame_format(sent))}"


def throughput_table(store: Store) -> Table:
    """Turns per second over the wall time the sessions were writing (overlapping workers merged)."""
    spans = store.session_spans()
    wall, turns, end = 0.0, 0, None
    for started, last, count in spans:
        turns += count
        if end is None or started > end:
            wall += last - started
            end = last
        elif last > end:
            wall += last - end
            end = last
    sessions = store.process_count()
    table = Table("Throughput", ["turns", "wall time (s)", "turns/s", "processes"])
    table.rows.append([turns, wall, turns / wall if wall > 0 else "n/a", sessions])
    return table


def add_paper_tables(document: Document, finished: Sequence[Mapping], config: dict) -> None:
    """A preset run's tables in its paper's layout with the published rows (``cogsim.report.papers``)."""
    preset = config.get("preset")
    if not preset:
        return
    try:
        add_paper_section(document, str(preset), finished, config.get("history"))
    except Exception:  # a malformed record must not hide the rest of the report
        document.paragraph("The paper tables of preset ", Code(str(preset)), " failed:")
        document.code(traceback.format_exc(limit=5))


def add_suite_section(document: Document, store: Store, episodes: Sequence[Mapping], suite: str, run_dir: Path) -> None:
    document.heading(Text(f"Suite: {suite}"))
    if not episodes:
        document.paragraph("No finished episodes.")
        return
    if suite not in metrics.suites():
        document.paragraph("No metrics registered for suite ", Code(suite), "; the run tables above cover it.")
        return
    try:
        tables = metrics.summarize(suite, episodes)
        if not store.readonly:
            store.save_metrics(suite, [_table_dict(t) for t in tables])
        for table in tables:
            document.table(table)
        plots_dir = _plots_dir(run_dir)
        for caption, path in metrics.plot(suite, episodes, plots_dir):
            document.image(caption, Path(path).resolve().relative_to(run_dir.resolve()).as_posix())
    except Exception:  # one suite's broken metrics must not hide the others
        document.paragraph("The metrics of suite ", Code(suite), " failed:")
        document.code(traceback.format_exc(limit=5))


def _plots_dir(run_dir: Path) -> Path:
    """``plots/``, with no symbolic link in or at it and nothing in it but files and folders: the
    plotting library writes files by name (through a link; a FIFO there would block it)."""
    plots_dir = run_dir / "plots"
    refuse_links(plots_dir)
    plots_dir.mkdir(exist_ok=True)
    for entry in plots_dir.iterdir():
        mode = entry.lstat().st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            entry.unlink()
    return plots_dir


def add_failure_examples(document: Document, store: Store) -> None:
    rows = store.parse_failure_examples(FAILURE_EXAMPLES)
    if not rows:
        return
    document.heading("Examples of failed turns")
    table = Table("", ["env", "agent", "seed", "turn", "answer", "backend error"])
    for env_id, agent, seed, turn, response, error in rows:
        link = Link(seed, _episodes_link(env=env_id, agent=agent, seed=seed))
        table.rows.append([Code(env_id), agent, link, turn, _clip(response), _clip(error or "")])
    document.table(table)


def _episodes_link(**filters) -> str:
    """The address of these episodes in ``cogsim view``, relative to the report it serves."""
    return "episodes?" + urlencode(filters)


def _clip(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _table_dict(table: Table) -> dict:
    return {"title": table.title, "columns": table.columns, "rows": table.rows, "note": table.note}
