"""The command ``cogsim assets add|fetch|list``."""

from __future__ import annotations

import argparse

from cogsim.release_assets.install import add, fetch
from cogsim.release_assets.lookup import installed
from cogsim.release_assets.manifests import manifest


def add_cli(subparsers) -> None:
    parser = subparsers.add_parser(
        "assets", help="install the image files of a benchmark's release that its pictures need"
    )
    commands = parser.add_subparsers(dest="assets_command", metavar="COMMAND", required=True)
    add_parser = commands.add_parser("add", help="install them from a checkout or a .zip/.tar.gz of the release")
    add_parser.add_argument("benchmark", help="rngbench (Matching Pairs) or kidgym, where shipped")
    add_parser.add_argument("path", help="a checkout, an unpacked archive, or a .zip/.tar.gz/.tar archive")
    add_parser.set_defaults(handler=_cli_add)
    fetch_parser = commands.add_parser("fetch", help="download the release's pinned commit from GitHub and install")
    fetch_parser.add_argument("benchmark")
    fetch_parser.set_defaults(handler=_cli_fetch)
    list_parser = commands.add_parser("list", help="what is installed and where")
    list_parser.set_defaults(handler=_cli_list)


def _cli_add(args: argparse.Namespace) -> int:
    folder = add(args.benchmark, args.path)
    print(f"installed {len(manifest(args.benchmark).files)} {args.benchmark} release files in {folder}")
    return 0


def _cli_fetch(args: argparse.Namespace) -> int:
    folder = fetch(args.benchmark)
    print(f"installed {len(manifest(args.benchmark).files)} {args.benchmark} release files in {folder}")
    return 0


def _cli_list(args: argparse.Namespace) -> int:
    rows = installed()
    if not rows:
        print("this cogsim ships no release manifests")
    for row in rows:
        state = "installed" if row["installed"] else "not installed"
        print(
            f"{row['benchmark']}: {row['repository']} at {row['commit'][:12]}, {row['files']} files, {state}: "
            f"{row['path']}"
        )
    return 0
