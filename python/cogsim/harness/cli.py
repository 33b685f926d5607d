"""``cogsim run``, ``cogsim report``, ``cogsim list``, ``cogsim export``: the model loop from the shell."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def add_cli(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("run", help="run agents through suites into a results store (resumable)")
    p.add_argument("suites", nargs="*", metavar="SUITE", help="env ids or family prefixes ('wilt' = every wilt/* id)")
    p.add_argument(
        "--preset",
        metavar="NAME",
        help="a paper's main-table protocol instead of SUITEs: paper:kidgym, paper:wilt, paper:cubebench, "
        "paper:rngbench or a plugin's (`cogsim list` names them; its report shows the run beside the published rows)",
    )
    p.add_argument(
        "--agent",
        action="append",
        dest="agents",
        metavar="A",
        help="oracle, random, noisy-oracle:P, a suite's scripted policy, openai:MODEL, vllm:MODEL "
        "(repeat for several agents: each plays alone; in duels they take the seats, or with more "
        "agents than seats play every seating); default oracle",
    )
    p.add_argument(
        "--episodes", type=int, help="episodes per env id and agent (default 10; a preset's own counts unless given)"
    )
    p.add_argument("--seed", type=int, default=0, help="episode i gets seed SEED+i (default 0)")
    p.add_argument(
        "--concurrency",
        type=int,
        default=None,
        help="episodes in flight per process (default 64; the openai backend sends at most its own "
        "'concurrency' agent option of requests at a time, default 4: right for one local server)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=0,
        help="processes for scripted agents (default 0: all cores; model agents always use 1)",
    )
    p.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="play the episodes on a Ray cluster (auto, HOST:PORT or ray://HOST:PORT); this process keeps "
        "the store. --workers then counts Ray workers (default: one per cluster CPU, or GPU for vllm:)",
    )
    p.add_argument("--out", help="run directory (default runs/run-YYYYmmdd-HHMMSS)")
    p.add_argument(
        "--resume",
        nargs="?",
        const=True,
        default=False,
        metavar="DIR",
        help="continue the run in DIR (or --out) where it stopped: alone, with its stored settings; "
        "with SUITE..., the settings must match (no run there yet: start it)",
    )
    p.add_argument("--env-option", action="append", default=[], metavar="KEY=VALUE", help="env option (JSON value)")
    p.add_argument(
        "--agent-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="model backend option, e.g. base_url=..., max_tokens=512, temperature=0.7",
    )
    p.add_argument("--history", help="full, last:K or current (default: each env's paper setting)")
    p.add_argument("--max-images", type=int, help="at most this many images per prompt (the newest)")
    p.add_argument("--max-turns", type=int, default=1000, help="truncate an episode after this many turns")
    p.add_argument(
        "--on-overflow",
        choices=("fail-episode", "drop-oldest"),
        default="fail-episode",
        help="a prompt longer than the model's context: stop that episode (resumable, default) or "
        "leave out the oldest history exchanges until it fits (recorded per turn)",
    )
    p.add_argument(
        "--import",
        action="append",
        default=[],
        dest="imports",
        metavar="MODULE",
        help="import a module or .py file first (extra envs or metrics)",
    )
    p.add_argument("--report", action="store_true", help="write the report when the run ends")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(handler=_run)

    p = subparsers.add_parser("report", help="write DIR/report.md and DIR/report.html from a run directory")
    p.add_argument("run_dir", metavar="DIR")
    p.add_argument(
        "--import",
        action="append",
        default=[],
        dest="imports",
        metavar="MODULE",
        help="import a module or .py file first (extra metrics)",
    )
    p.set_defaults(handler=_report)

    p = subparsers.add_parser("list", help="env ids, agent kinds and metric suites")
    p.add_argument("--import", action="append", default=[], dest="imports", metavar="MODULE")
    p.set_defaults(handler=_list)

    p = subparsers.add_parser("export", help="export a run: JSONL trajectories, chat-format SFT data or an inspect log")
    p.add_argument("run_dir", metavar="DIR")
    p.add_argument("--format", choices=("jsonl", "sft", "inspect"), default="jsonl")
    p.add_argument("--out", required=True, help="output file (.jsonl; inspect: .eval or .json)")
    p.add_argument("--agent", action="append", dest="agents", help="sft: episodes of these agents (default oracle)")
    p.add_argument("--per-turn", action="store_true", help="sft: one example per turn with the context the agent saw")
    p.add_argument(
        "--images",
        choices=("inline", "none"),
        default="inline",
        help="inspect: each frame once per sample that shows it (inline), or a line naming the stored frame (none)",
    )
    p.set_defaults(handler=_export)


def _run(args: argparse.Namespace) -> int:
    from cogsim.harness import RunConfig, import_plugins, parse_option_values, run

    config = None
    if args.resume:
        if isinstance(args.resume, str) and args.out and Path(args.out) != Path(args.resume):
            raise ValueError("--resume DIR and --out name different directories")
        out = Path(args.resume if isinstance(args.resume, str) else (args.out or ""))
        if str(out) == ".":
            raise ValueError("--resume needs a run directory: --resume DIR, or --out DIR --resume")
    elif not args.suites and not args.preset:
        raise ValueError("run: give at least one SUITE (see `cogsim list`) or a --preset")
    import_plugins(args.imports)  # the only code a run imports: named here, never read from the run directory
    if args.suites or args.preset:  # with --resume: the same command again; its settings must match the stored run
        config = RunConfig(
            tasks=_tasks(args),
            agents=args.agents or ["oracle"],
            seed=args.seed,
            concurrency=args.concurrency or 64,
            workers=args.workers,
            history=args.history,
            max_images=args.max_images,
            agent_options=parse_option_values(args.agent_option, "--agent-option"),
            max_turns=args.max_turns,
            imports=args.imports,
            on_overflow=args.on_overflow,
            preset=args.preset,
        )
        if not args.resume:
            out = Path(args.out or time.strftime("runs/run-%Y%m%d-%H%M%S"))
    changes = None
    if config is None:  # a bare resume may change how the backend is reached (recorded in the run)
        changes = {}
        if args.agent_option:
            changes["agent_options"] = parse_option_values(args.agent_option, "--agent-option")
        if args.concurrency is not None:
            changes["concurrency"] = args.concurrency
        if args.history is not None:  # a prompt's budget: e.g. after a context_overflow fault
            changes["history"] = args.history
        if args.max_images is not None:
            changes["max_images"] = args.max_images
    executor = None
    if args.ray:
        from cogsim._ray import connect
        from cogsim.harness.ray_executor import RayExecutor

        connect(args.ray)  # fails at once, before anything is written, when no cluster answers
        executor = RayExecutor(args.ray, workers=args.workers)
    progress = None if args.no_progress else _ProgressBar(out, config)
    try:
        summary = run(config, out, resume=bool(args.resume), executor=executor, progress=progress, changes=changes)
    finally:
        if progress:
            progress.close()
    statuses = ", ".join(f"{n} {s}" for s, n in sorted(summary.statuses.items()))
    print(
        f"{summary.finished}/{summary.episodes} episodes finished ({statuses}); {summary.turns} turns, "
        f"{summary.parse_failures} parse failures; "
        f"{summary.new_turns} turns this session at {summary.turns_per_second:,.1f} turns/s; store: {out}"
    )
    for line in summary.fault_lines():
        print(line, file=sys.stderr)
    if args.report:
        _write_report(out, save_metrics=True)
    if summary.faults:
        print(_resume_advice(out, summary.faults), file=sys.stderr)
        return EXIT_BACKEND_FAULT
    return 0


EXIT_BACKEND_FAULT = 3


def _resume_advice(out: Path, faults: dict) -> str:
    """One line: how to continue a run that backend faults stopped."""
    from cogsim.harness.lockstep import RELEASE_FILES_FAULT

    if set(faults) == {RELEASE_FILES_FAULT}:
        return (
            f"the run is incomplete: reinstall the release files, then `cogsim run --resume {out}` retries these "
            "episodes (`cogsim assets add BENCHMARK PATH` installs them again)"
        )
    if set(faults) == {"context_overflow"}:
        return (
            f"the run is incomplete: prompts outgrew the model's context; fit them in, then resume: `cogsim run "
            f"--resume {out} --history last:K` (fewer past turns), `--max-images N` (fewer frames per prompt) or "
            "`--agent-option max_model_len=N` (a longer context, where the model has one)"
        )
    return (
        f"the run is incomplete: fix the backend, then `cogsim run --resume {out}` retries these episodes "
        "(--agent-option base_url=... and the like may change on resume; after a context_overflow also "
        "--history, --max-images or max_model_len)"
    )


def _tasks(args: argparse.Namespace) -> list:
    """The run's tasks: the SUITEs with --episodes and --env-option, then a preset's cells (the paper's
    episode counts unless --episodes is given; --env-option adds to their options)."""
    from cogsim.harness import Task, parse_option_values, resolve_suites
    from cogsim.report.papers import preset_cells

    env_options = parse_option_values(args.env_option, "--env-option")
    episodes = 10 if args.episodes is None else args.episodes
    tasks = [Task(env_id, episodes, dict(env_options)) for env_id in resolve_suites(args.suites)]
    for cell in preset_cells(args.preset, args.agents or ["oracle"]) if args.preset else []:
        count = cell.episodes if args.episodes is None else args.episodes
        seats = list(cell.seats) if cell.seats else None
        tasks.append(Task(cell.env_id, count, {**cell.options, **env_options}, seats))
    return tasks


class _ProgressBar:
    """Episodes done, turns per second and parse failures, updated by the runner's progress calls."""

    def __init__(self, out: Path, config):
        self.out, self.config = out, config
        self.bar = None
        self.turns = self.failures = 0
        self.started = None  # set at the first step: loading a model or replaying is not turn time

    def _open(self, finished_now: int):
        from tqdm import tqdm

        from cogsim.harness import RunConfig
        from cogsim.harness.slots import Plan
        from cogsim.store.sqlite import Store

        with Store(self.out) as store:
            config = self.config or RunConfig.from_dict(store.config())
            done = store.progress_counts()[0]
        # the store already counts the episodes of this first report
        self.bar = tqdm(
            total=len(Plan(config)), initial=done - finished_now, unit="ep", file=sys.stderr, dynamic_ncols=True
        )

    def __call__(self, episodes: int, turns: int, failures: int) -> None:
        if self.bar is None:
            self._open(episodes)
            self.started = time.perf_counter()  # the first step's turns are not counted: their start is unknown
            self.failures += failures
            self.bar.update(episodes)
            return
        self.turns += turns
        self.failures += failures
        rate = self.turns / max(1e-9, time.perf_counter() - self.started)
        shown = f"{rate:,.0f}" if rate >= 10 else f"{rate:.2f}"
        self.bar.set_postfix_str(f"{shown} turns/s, {self.failures} parse failures", refresh=False)
        self.bar.update(episodes)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _write_report(run_dir: Path, save_metrics: bool = False) -> None:
    from cogsim.report import write_report

    markdown, page = write_report(run_dir, save_metrics=save_metrics)
    print(f"report written to {markdown} and {page}")


def _report(args: argparse.Namespace) -> int:
    from cogsim.harness import import_plugins
    from cogsim.store import open_store

    import_plugins(args.imports)
    with open_store(args.run_dir) as store:
        recorded = (store.config() or {}).get("imports")
    recorded = [name for name in recorded if isinstance(name, str)] if isinstance(recorded, list) else []
    missing = [name for name in recorded if name not in args.imports]
    if missing:  # never imported from the run directory's word: the user decides
        print(
            f"note: the run was started with --import {', '.join(missing)}; cogsim does not import code named "
            "by a run directory, so their metrics appear only if you pass --import yourself",
            file=sys.stderr,
        )
    _write_report(Path(args.run_dir))
    return 0


def _list(args: argparse.Namespace) -> int:
    import cogsim
    from cogsim import metrics
    from cogsim.envs import spec
    from cogsim.harness import import_plugins
    from cogsim.report.papers import presets

    import_plugins(args.imports)
    print("env ids:")
    for env_id in cogsim.list_envs():
        entry = spec(env_id)
        policies = ", ".join(getattr(entry.entry_point, "scripted_policies", ()))
        players = getattr(entry.entry_point, "num_players", 1)
        print(
            f"  {env_id:28s} {entry.description}"
            + (f"  [{players} players]" if players > 1 else "")
            + (f"  [agents: {policies}]" if policies else "")
        )
    print("agents: oracle, random, noisy-oracle:P, per-suite scripted policies, openai:MODEL, vllm:MODEL")
    print("metric suites: " + (", ".join(metrics.suites()) or "(none)"))
    print("paper presets: " + (", ".join(presets()) or "(none)"))
    return 0


def _export(args: argparse.Namespace) -> int:
    from cogsim.store import export_jsonl, export_sft

    if args.format == "jsonl":
        count = export_jsonl(args.run_dir, args.out)
        print(f"{count} episodes written to {args.out}")
    elif args.format == "inspect":
        count = _export_inspect(args.run_dir, args.out, args.images)
        print(f"{count} episodes written to {args.out} (inspect log: inspect view, inspect log dump)")
    else:
        count = export_sft(args.run_dir, args.out, agents=tuple(args.agents or ["oracle"]), per_turn=args.per_turn)
        print(f"{count} examples written to {args.out}")
    return 0


def _export_inspect(run_dir: str, out: str, images: str) -> int:
    try:
        from cogsim.integrations.inspect_log import export_inspect
    except ImportError as error:
        raise ValueError(f"--format inspect needs inspect_ai: pip install 'cogsim[inspect]' ({error})") from None
    return export_inspect(run_dir, out, images)
