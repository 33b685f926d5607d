"""The ``cogsim`` command. Each family adds its subcommands through ``add_cli(subparsers)``."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional, Sequence

import cogsim
from cogsim import render_cli
from cogsim.cube import cli as cube_cli
from cogsim.harness import cli as loop_cli

# Modules with subcommands, in the order `cogsim --help` lists them.
_FAMILIES = [loop_cli, cube_cli, render_cli]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cogsim",
        description="Fast simulators for reasoning benchmarks of language models.",
    )
    parser.add_argument("--version", action="version", version=f"cogsim {cogsim.__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = subparsers.add_parser("demo", help="the main job: run every available suite with scripted agents and report")
    demo.add_argument("--quick", action="store_true", help="fewer episodes, for a smoke test")
    demo.add_argument("--out", default="runs/demo", help="folder for the report and frames (default runs/demo)")
    demo.set_defaults(handler=_demo)
    for family in _FAMILIES:
        family.add_cli(subparsers)
    return parser


def _demo(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cogsim.demo import run_demo

    return run_demo(Path(args.out), quick=args.quick)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "handler"):
        parser.print_help()
        return 0
    try:
        return int(args.handler(args) or 0)
    except (ValueError, TypeError) as error:
        print(f"cogsim: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into `head` and friends: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
