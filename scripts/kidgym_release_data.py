"""Writes python/cogsim/benchmarks/kidgym/release_data.json and release_assets.json from a copy of the KidGym release.

    COGSIM_RELEASES=DIR python scripts/kidgym_release_data.py

DIR/KidGym is a checkout or an extracted archive of BoBo-Ye/KidGym at 083cf1f. The file keeps the
release's data tables (facts, not code): the 100 fixed layouts of Maze, Decode Maze and Memory Maze at
each level (assets/jsons/<Task>_L<level>.json, each layout's 5 x 5 codes in the release's [i][j]
order as a 25-character string, 'A' the agent) and the Sorting entries of levels 2 and 3
(assets/jsons/Sorting_L2.json, Sorting_L3.json, verbatim). Sorting_L1.json is listed in the release's
tree but its content is not published (its blob is missing from the repository), so level 1's entries
are reconstructed from the pattern levels 2 and 3 follow, and marked as such. It also records the
pixel size and mode of every image the release's drawing loads (for stand-in packs of the same
geometry), and release_assets.json lists those images with their SHA-256 and size in bytes (the
manifest `cogsim assets` checks installed files against).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sys
from pathlib import Path

COMMIT = "083cf1fd92f44e37546ce99b38466946a6ad910d"
MAZES = ("Maze", "Decode_Maze", "Memory_Maze")
PACKAGE = Path(__file__).resolve().parents[1] / "python" / "cogsim" / "benchmarks" / "kidgym"
OUT = PACKAGE / "release_data.json"
MANIFEST = PACKAGE / "release_assets.json"


def layout_string(rows: list) -> str:
    return "".join(str(code) for row in rows for code in row)


def sorting_level_one(level_two: list, level_three: list) -> list:
    """Level 1's entries as levels 2 and 3 are made: per rule (in the release's order) every pair of
    its group's five animals, in the rule's order (the order of levels 2 and 3)."""
    rules = list(dict.fromkeys((e["rule"], e["property"]) for e in level_two + level_three))
    entries = []
    for rule, prop in rules:
        ranked = [e["correct"] for e in level_three if (e["rule"], e["property"]) == (rule, prop)]
        animals = sorted({a for ranking in ranked for a in ranking})
        # an animal's place: how many of its group it comes before in the rule's level-3 rankings
        before = {a: {b for r in ranked if a in r for b in r[r.index(a) + 1 :]} for a in animals}
        order = sorted(animals, key=lambda a: -len(before[a]))
        for pair in itertools.combinations(order, 2):
            entries.append({"rule": rule, "property": prop, "correct": list(pair)})
    return entries


def main() -> int:
    root = Path(os.environ.get("COGSIM_RELEASES", "")) / "KidGym"
    if not (root / "assets" / "jsons").is_dir():
        print("set COGSIM_RELEASES=DIR with DIR/KidGym a copy of the release", file=sys.stderr)
        return 2
    data = {
        "source": (
            f"BoBo-Ye/KidGym {COMMIT}: assets/jsons/Maze_L1-3.json, Decode_Maze_L1-3.json, Memory_Maze_L1-3.json "
            "(layouts 1-100; codes 0 wall, 1 floor, 2 key, 3 door, 4 diamond, 6 treasure box, A agent, in the "
            "release's [i][j] order, cell x = i, y = j) and Sorting_L2.json, Sorting_L3.json (verbatim); "
            "written by scripts/kidgym_release_data.py"
        ),
        "layouts": {},
        "sorting": {},
        "sorting_reconstructed": (
            "level 1: Sorting_L1.json is in the release's tree but its blob is not published; its entries are "
            "every pair of each rule's five animals in the rule's order, as levels 2 and 3 take triples and "
            "quadruples"
        ),
    }
    for task in MAZES:
        for level in (1, 2, 3):
            table = json.loads((root / "assets" / "jsons" / f"{task}_L{level}.json").read_text())
            data["layouts"][f"{task}_L{level}"] = [layout_string(table[str(k)]) for k in range(1, 101)]
    two = json.loads((root / "assets" / "jsons" / "Sorting_L2.json").read_text())
    three = json.loads((root / "assets" / "jsons" / "Sorting_L3.json").read_text())
    data["sorting"] = {"1": sorting_level_one(two, three), "2": two, "3": three}
    data["images"] = image_geometry(root)
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    MANIFEST.write_text(json.dumps(manifest(root), indent=1) + "\n")
    print(f"wrote {OUT} and {MANIFEST}")
    return 0


def image_files() -> list[str]:
    from cogsim.benchmarks.kidgym.catalog import image_paths  # the installed package

    return [f"assets/imgs/{path}" for path in image_paths()]


def image_geometry(root: Path) -> dict:
    from PIL import Image

    geometry = {}
    for path in image_files():
        with Image.open(root / path) as image:
            geometry[path] = [image.width, image.height, image.mode]
    return geometry


def manifest(root: Path) -> dict:
    files = {}
    for path in image_files():
        content = (root / path).read_bytes()
        files[path] = {"sha256": hashlib.sha256(content).hexdigest(), "size": len(content)}
    return {
        "benchmark": "kidgym",
        "repository": "BoBo-Ye/KidGym",
        "commit": COMMIT,
        "archive_url": f"https://github.com/BoBo-Ye/KidGym/archive/{COMMIT}.tar.gz",
        "files": files,
    }


if __name__ == "__main__":
    sys.exit(main())
