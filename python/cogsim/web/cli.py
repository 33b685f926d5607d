"""``cogsim play`` and ``cogsim view``: the browser commands (their modules load only when one runs)."""

from __future__ import annotations

import argparse


def add_cli(subparsers: argparse._SubParsersAction) -> None:
    from cogsim.web import play, view

    play.add_arguments(
        subparsers.add_parser(
            "play",
            help="play an env in the browser as agent human:NAME (a run: resumable, reported beside models)",
        )
    )
    view.add_arguments(
        subparsers.add_parser("view", help="see run directories in the browser, turn by turn (read-only)")
    )
