"""``cogsim cube ...``: oracle queries from the command line."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator, Optional, Sequence, Union

import numpy as np

from cogsim import _core, cube
from cogsim._files import atomic_writer
from cogsim._untrusted import open_regular_file, printable

UNLIMITED = 1 << 62  # a states file is streamed: no size limit


def add_cli(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("cube", help="Rubik's cube oracle: distances, solutions, tables")
    parser.set_defaults(handler=lambda args: demo(quick=False, per_depth=args.per_depth, seed=args.seed))
    parser.add_argument("--per-depth", type=int, default=20, help="scrambles per depth in the summary run")
    parser.add_argument("--seed", type=int, default=0)
    sub = parser.add_subparsers(dest="cube_command", metavar="SUBCOMMAND")

    p = sub.add_parser("distance", help="optimal face-turn distance of a move sequence or facelet string")
    p.add_argument("state", help="Singmaster moves (\"R U R' U'\") or 54 facelets")
    p.add_argument("--max-nodes", type=int, default=cube.DEFAULT_MAX_NODES)
    _add_phase1_flag(p)
    p.set_defaults(handler=_distance)

    p = sub.add_parser(
        "distances",
        help="optimal distances of many states: one per line (moves or 54 facelets) in FILE, one distance per line out",
    )
    p.add_argument(
        "file", metavar="FILE", help="the states, one per line; an empty line is the solved cube ('-': standard input)"
    )
    p.add_argument("--out", help="write the distances here (default: standard output)")
    p.add_argument("--ray", metavar="ADDRESS", help="on a Ray cluster: auto, HOST:PORT or ray://HOST:PORT")
    p.add_argument("--chunk", type=int, default=4096, help="states per batch (default 4096)")
    p.add_argument("--max-nodes", type=int, default=cube.DEFAULT_MAX_NODES)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--solve", action="store_true", help="write one optimal solution per line instead of the distance")
    p.set_defaults(handler=_distances)

    p = sub.add_parser("solve", help="one optimal solution")
    p.add_argument("state", help="Singmaster moves or 54 facelets")
    p.add_argument("--max-nodes", type=int, default=cube.DEFAULT_MAX_NODES)
    _add_phase1_flag(p)
    p.set_defaults(handler=_solve)

    p = sub.add_parser("effects", help="for each move: DECREASE / NO_CHANGE / INCREASE of distance")
    p.add_argument("state", help="Singmaster moves or 54 facelets")
    p.set_defaults(handler=_effects)

    p = sub.add_parser("scramble", help="a scramble of exact optimal depth")
    p.add_argument("depth", type=int)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(handler=lambda args: print(" ".join(cube.scramble(args.depth, args.seed))))

    p = sub.add_parser("tables", help="build or verify the cached pattern databases")
    p.add_argument("--edge-size", type=int, default=None, help="edges per edge database (6 or 7)")
    _add_phase1_flag(p)
    p.add_argument("--json", action="store_true", help="print the table description as JSON")
    p.set_defaults(handler=_tables)
    _add_table_build(p.add_subparsers(dest="tables_command", metavar="ACTION"))


def _add_table_build(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "build", help="build a coset table once: with the large one (7.3 GiB), random states take seconds"
    )
    p.add_argument(
        "--size",
        choices=cube.TABLE_SIZES,
        default="large",
        help="large: 7.3 GiB, tens of minutes on 2 cores; medium: 1.3 GiB; small: 19 MiB, for tests (default: large)",
    )
    p.add_argument("--threads", type=int, default=0, help="building threads (default: all cores)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(handler=_build_table)


def _add_phase1_flag(parser: argparse.ArgumentParser) -> None:
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument(
        "--phase1",
        dest="phase1",
        action="store_const",
        const="plain",
        default=None,
        help="search with the phase-1 table too (70 MB; states of 13-16 moves); same as COGSIM_CUBE_PHASE1=plain",
    )
    choice.add_argument(
        "--phase1-sorted",
        dest="phase1",
        action="store_const",
        const="sorted",
        help="search with the sorted-slice phase-1 table from the start (1.7 GB, built once in a few minutes;"
        " by default it is built when a first deep state needs it); same as COGSIM_CUBE_PHASE1=sorted",
    )


def _use_phase1(args: argparse.Namespace) -> None:
    if args.phase1:
        cube.configure(phase1=args.phase1)


def parse_state(text: str) -> cube.Cube:
    """A state given as moves or as 54 facelets (the core tells them apart). Bytes a command line
    could not decode reach the core as they are, so its message shows them escaped."""
    return cube.Cube._trusted(_core.cube_states_from_text([os.fsencode(text.strip())])[0].tobytes())


def _distance(args: argparse.Namespace) -> None:
    _use_phase1(args)
    print(cube.distance(parse_state(args.state), max_nodes=args.max_nodes))


def read_states(lines: Sequence[Union[str, bytes]], first: int = 1) -> np.ndarray:
    """Packed states of the lines (moves or 54 facelets each), parsed in one batch by the core; an
    error names the line (numbered from ``first``) with its bytes escaped."""
    return _core.cube_states_from_text([line.strip() for line in lines], "line", first)


MAX_LINE_BYTES = 1 << 16  # one state: 54 facelets or a move sequence of some 20,000 moves
RAY_BATCH_CHUNKS = 256  # on Ray, chunks per batch: each batch starts its workers once


def state_batches(source: IO[bytes], name: str, size: int) -> Iterator[tuple[int, list]]:
    """(first line number, up to ``size`` stripped lines) of a states file, read block by block as
    it goes. Blank lines at the end are left out (one in the middle is the solved cube); a line
    longer than MAX_LINE_BYTES is an error naming it."""
    ready: list[bytes] = []  # lines to hand out, the first of them numbered `first`
    first, blanks, rest = 1, 0, b""  # blanks: blank lines not yet known to be followed by a state
    while True:
        block = source.read(1 << 20)
        lines = (rest + block).split(b"\n")
        rest = lines.pop() if block else b""  # at the end, the last line is whole
        if len(rest) > MAX_LINE_BYTES or max(map(len, lines), default=0) > MAX_LINE_BYTES:
            long = next((i for i, line in enumerate(lines) if len(line) > MAX_LINE_BYTES), len(lines))
            number = first + len(ready) + blanks + long
            raise ValueError(f"{name}: line {number} is longer than {MAX_LINE_BYTES} bytes; a state is one short line")
        for line in lines:
            text = line.strip()
            if not text:
                blanks += 1
                continue
            if blanks:
                ready.extend([b""] * blanks)
                blanks = 0
            ready.append(text)
        while len(ready) >= size:
            yield first, ready[:size]
            del ready[:size]
            first += size
        if not block:
            break
    if ready:
        yield first, ready


@contextmanager
def _states_source(file: str) -> Iterator[IO[bytes]]:
    if file == "-":
        yield sys.stdin.buffer
        return
    with open_regular_file(file, "cube distances", UNLIMITED) as handle:
        yield handle


@contextmanager
def _distances_sink(out: Optional[str]) -> Iterator[IO[str]]:
    if out is None:
        yield sys.stdout
        return
    with atomic_writer(Path(out), text=True) as handle:  # the file appears whole, when every state is answered
        yield handle


def _distances(args: argparse.Namespace) -> int:
    """States streamed from FILE in batches, each batch's distances written before the next is read:
    memory stays bounded for any size of input."""
    from tqdm import tqdm

    if args.chunk < 1:
        raise ValueError(f"--chunk must be at least 1, got {args.chunk}")
    if args.ray and args.solve:
        raise ValueError("--solve runs on this machine; it cannot be combined with --ray")
    if args.ray:
        from cogsim._ray import connect

        connect(args.ray)  # before reading: no cluster, no work
    name = "standard input" if args.file == "-" else printable(args.file)
    batch_size = args.chunk * (RAY_BATCH_CHUNKS if args.ray else 1)
    with _states_source(args.file) as source, _distances_sink(args.out) as sink:
        bar = tqdm(unit="state", disable=args.no_progress, file=sys.stderr)
        for first, texts in state_batches(source, name, batch_size):
            packed = read_states(texts, first)
            if args.ray:
                found = cube.distances_on_ray(
                    packed, address=args.ray, chunk_size=args.chunk, max_nodes=args.max_nodes, progress=bar.update
                )
            elif args.solve:
                found = [" ".join(moves) for moves in cube.solve(packed, max_nodes=args.max_nodes)]
                bar.update(len(packed))
            else:
                found = cube.distance(packed, max_nodes=args.max_nodes)
                bar.update(len(packed))
            sink.write("".join(f"{d}\n" for d in np.atleast_1d(found).tolist()))
            sink.flush()
        bar.close()
    return 0


def _solve(args: argparse.Namespace) -> None:
    _use_phase1(args)
    print(" ".join(cube.solve(parse_state(args.state), max_nodes=args.max_nodes)))


def _effects(args: argparse.Namespace) -> None:
    names = {cube.DECREASE: "DECREASE", cube.NO_CHANGE: "NO_CHANGE", cube.INCREASE: "INCREASE"}
    for move, effect in cube.move_effects(parse_state(args.state)).items():
        print(f"{move:3} {names[effect]}")


def _tables(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    cube.configure(edge_size=args.edge_size, phase1=args.phase1)
    info = cube.tables()
    info["load_seconds"] = round(time.perf_counter() - started, 3)
    if args.json:
        print(json.dumps(info, indent=2))
        return
    for table in info["tables"]:
        state = f"built in {table['build_seconds']:.1f} s" if table["built"] else "verified"
        print(
            f"{table['name']:22} {table['entries']:>12,} entries {table['bytes'] / 2**20:8.1f} MiB  {state}  {table['path']}"
        )
    print(
        f"{'perimeter':22} {info['perimeter_states']:>12,} states  {info['perimeter_bytes'] / 2**20:8.1f} MiB"
        f"  depth <= {info['perimeter_depth']}, built in {info['perimeter_seconds']:.1f} s"
    )
    if info["phase1"] == "auto":
        print("phase-1 table: sorted, 1.7 GB, built or loaded when a first deep state needs it (--phase1-sorted: now)")
    print(f"ready in {info['load_seconds']:.1f} s")


def _build_table(args: argparse.Namespace) -> None:
    from tqdm import tqdm

    if args.threads < 0:
        raise ValueError(f"--threads must be 0 (all cores) or more, got {args.threads}")
    bar = tqdm(total=1, unit="row", disable=args.no_progress, file=sys.stderr, desc=f"{args.size} table")

    def progress(done: int, total: int, stage: str) -> None:
        bar.total = total
        bar.set_postfix_str(stage, refresh=False)
        bar.update(done - bar.n)
        if ":" in stage or not stage.startswith("depth"):  # a level done, a checkpoint: keep the line
            bar.write(f"{args.size} table: {stage}", file=sys.stderr)

    started = time.perf_counter()
    try:
        info = cube.build_table(args.size, threads=args.threads, progress=progress)
    except (cube.TableMemoryError, RuntimeError) as error:  # short of memory, a build already running, I/O
        raise ValueError(str(error)) from None
    finally:
        bar.close()
    state = f"built in {time.perf_counter() - started:.0f} s" if info["built"] else "already built and verified"
    print(f"{info['name']}: {info['bytes'] / 2**20:,.0f} MiB, {state}: {info['path']}")


def summary(per_depth: int = 20, seed: int = 0, depths=range(1, 13)) -> tuple[list[dict], bool]:
    """Exact-depth scrambles answered by the oracle, one row per depth; True if all agree."""
    if per_depth < 1:
        raise ValueError(f"--per-depth must be at least 1, got {per_depth}")
    cube.oracle()
    rows, all_correct = [], True
    for depth in depths:
        sequences = cube.scrambles([depth] * per_depth, list(range(seed, seed + per_depth)))
        packed, _ = cube.as_states([" ".join(s) for s in sequences])
        started = time.perf_counter()
        distances, nodes = cube.oracle().distances(packed, cube.DEFAULT_MAX_NODES, 1)
        elapsed = time.perf_counter() - started
        correct = int(np.sum(distances == depth))
        all_correct &= correct == per_depth
        rows.append(
            {
                "depth": depth,
                "states": per_depth,
                "correct": correct,
                "queries_per_second": per_depth / elapsed,
                "mean_nodes": float(np.mean(nodes)),
            }
        )
    return rows, all_correct


def demo(quick: bool = False, per_depth: int = 20, seed: int = 0) -> int:
    """Prints the oracle summary table; exit status 1 if any distance disagrees."""
    per_depth = 5 if quick else per_depth
    rows, all_correct = summary(per_depth, seed)
    print(f"Cube oracle: {per_depth} scrambles per depth, seeds {seed}..{seed + per_depth - 1} (one thread)")
    print(f"{'depth':>5} {'states':>6} {'correct':>7} {'queries/s':>10} {'mean nodes':>10}")
    for r in rows:
        print(
            f"{r['depth']:>5} {r['states']:>6} {r['correct']:>7} {r['queries_per_second']:>10,.0f} {r['mean_nodes']:>10,.0f}"
        )
    print("all distances equal their scramble depth" if all_correct else "MISMATCH: see the table above")
    return 0 if all_correct else 1
