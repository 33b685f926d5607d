"""Seed lists from the command line.

python -m cogsim.benchmarks.cubebench export --test optimal-move --depth 1 --count 100 --out optimal-move-d1.json
(--scrambles release-1ca7d58 for the older release line's sampler, cogsim for cogsim's optimal
scrambles; --layout cogsim for cogsim's balanced option sets instead of the newest release's)
python -m cogsim.benchmarks.cubebench verify optimal-move-d1.json
"""

from __future__ import annotations

import argparse
import sys

from cogsim.benchmarks.cubebench import items, seed_lists


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cogsim.benchmarks.cubebench", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export", help="write the items of episodes 0..count-1 as JSON")
    export.add_argument("--test", required=True, choices=items.TESTS)
    export.add_argument("--depth", required=True, type=int)
    export.add_argument("--count", required=True, type=int)
    export.add_argument("--first-seed", type=int, default=0)
    export.add_argument("--unique-states", action="store_true", help="skip seeds whose state repeats an earlier one")
    export.add_argument(
        "--scrambles",
        choices=items.SAMPLERS,
        default="release",
        help="the newest release's exact-depth sampler (default), the older line's, or cogsim's",
    )
    export.add_argument(
        "--layout",
        choices=items.LAYOUTS,
        default="release",
        help="the newest release's seeded option sets and verification cells (default) or cogsim's balanced layout",
    )
    export.add_argument("--out", required=True)
    verify = commands.add_parser("verify", help="regenerate every item of a seed list from its seed and compare")
    verify.add_argument("path")
    args = parser.parse_args(argv)
    try:
        if args.command == "export":
            seed_list = seed_lists.build_seed_list(
                args.test, args.depth, args.count, args.first_seed, args.unique_states, args.scrambles, args.layout
            )
            print(seed_lists.export_seed_list(seed_list, args.out))
        else:
            seed_lists.verify_seed_list(seed_lists.load_seed_list(args.path))
            print(f"{args.path}: every item matches its seed")
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
