"""The ``cogsim`` command. Each family adds its subcommands through ``add_cli(subparsers)``."""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from typing import Optional, Sequence

import cogsim
from cogsim import _core, release_assets, render_cli
from cogsim.cube import cli as cube_cli
from cogsim.harness import cli as loop_cli
from cogsim.web import cli as web_cli

# Modules with subcommands, in the order `cogsim --help` lists them.
_FAMILIES = [loop_cli, web_cli, cube_cli, render_cli, release_assets]


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


def _format_warning(message, category, filename, lineno, line=None) -> str:
    """cogsim's own warnings as one line that says what to do; other libraries' as Python shows them."""
    if os.path.abspath(filename).startswith(_PACKAGE_DIR):
        return f"cogsim: warning: {message}\n"
    return _python_format_warning(message, category, filename, lineno, line)


_PACKAGE_DIR = os.path.dirname(os.path.abspath(cogsim.__file__)) + os.sep
_python_format_warning = warnings.formatwarning


def main(argv: Optional[Sequence[str]] = None) -> int:
    warnings.formatwarning = _format_warning
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
    except MemoryError as error:  # a table or a batch that does not fit the memory this process can have
        reason = str(error)
        if not isinstance(error, _core.TableMemoryError):
            reason = "out of memory" + (f" ({reason})" if reason else "")
        print(f"cogsim: error: {reason}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into `head` and friends: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
