"""KidGym's catalog, the release's: the names behind the ids the core's engine draws (its images, pools,
colours, rules) and the release's data tables (the maze layouts and Sorting entries, in
``release_data.json``).

The pools are the release's ``RESOURCE`` table (``src/config.py`` of BoBo-Ye/KidGym 083cf1f), name
for name and in its order; an image is named by the release's folder and file name, as its code
loads it (``assets/imgs/<folder>/<name>.png``). Asset ids are positions in :data:`ASSETS`.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from cogsim import _core

COMMIT = "083cf1fd92f44e37546ce99b38466946a6ad910d"
REPOSITORY = "BoBo-Ye/KidGym"

CATEGORIES = ("animal", "fruit", "food", "toy")  # the release's TYPES, in its order
RESOURCES: dict[str, tuple[str, ...]] = {
    "animal": (
        "cat", "chick", "cow", "dog", "elephant", "giraffe", "horse",
        "monkey", "mouse", "pig", "rabbit", "sheep", "snail", "tortoise",
    ),
    "fruit": (
        "apple", "banana", "cherry", "grape", "kiwifruit", "lemon",
        "orange", "peach", "pineapple", "strawberry", "watermelon",
    ),
    "food": ("cake", "chicken_leg", "egg", "hamburger", "hotdog", "pizza", "sandwich", "sushi"),
    "toy": (
        "badminton", "balloon", "basketball", "diamond", "doll", "football",
        "kite", "toy_ball", "toy_bear", "toy_car", "toy_plane", "toy_train",
    ),
}  # fmt: skip
COUNTING: dict[str, tuple[str, ...]] = {
    "fruit": ("apple", "lemon", "orange", "strawberry", "watermelon"),
    "food": ("cake", "egg", "hamburger", "pizza", "sushi"),
}
PICTURES = ("cat", "chick", "cow", "dog", "elephant", "goldfish", "monkey", "pig", "sheep", "tortoise")
BASKETS = ("blue", "green", "red", "yellow")
KEYS = ("blue", "red", "yellow")
DOORS = ("blue", "red", "yellow")
PUZZLE = ("puzzle_piece_r_1", "puzzle_piece_r_2", "puzzle_piece_r_3", "puzzle_piece_r_4")
ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII")
# Backgrounds by the core's background id: the release's types and the file each one shows.
BACKGROUNDS = (
    ("animal", "farm"),
    ("fruit", "shop"),
    ("food", "canteen"),
    ("toy", "toy_house"),
    ("mixed", "park"),
    ("figure", "gallery"),
    ("maze", "maze"),
)
ORIENTATIONS = ("north", "south", "west", "east", "northwest", "northeast", "southwest", "southeast")
CLOCK_DIRECTIONS = ("clockwise", "anticlockwise")
MAZE_TASKS = {"maze": "Maze", "decode_maze": "Decode_Maze", "memory_maze": "Memory_Maze"}


def _asset_table() -> tuple[tuple[str, str], ...]:
    table: list[tuple[str, str]] = []
    for category in CATEGORIES:
        table += [(category, name) for name in RESOURCES[category]]
    for category, names in COUNTING.items():
        table += [(category, f"{name}_{size}") for name in names for size in (1, 2, 3)]
    table += [("animal", f"{picture}_{quarter}") for picture in PICTURES for quarter in (1, 2, 3, 4)]
    table += [("basket", c) for c in BASKETS] + [("key", c) for c in KEYS] + [("door", c) for c in DOORS]
    table += [("maze", "wall"), ("maze", "treasure")]
    table += [("toy", p) for p in PUZZLE] + [("roman", r) for r in ROMAN]
    return tuple(table)


ASSETS = _asset_table()
ASSET_IDS = {asset: i for i, asset in enumerate(ASSETS)}

# The images the drawing loads besides the objects' (paths under assets/imgs/).
AGENT = "agent/agent.png"
DIRECTION = "agent/direction/direction_{}.png"  # 0 down, 1 right, 2 up, 3 left
NUMBER = "id/obj_numbers/{}.png"  # labels 0-9
SLOT = "id/bag_letters/{}.png"  # A-D
ARROW = "game/arrow.png"
TARGET_BOX = "game/bag_grid.png"


def asset_path(asset: int) -> str:
    """The image file of an asset, relative to the release's assets/imgs/."""
    folder, name = ASSETS[asset]
    return f"{folder}/{name}.png"


def asset_name(asset: int) -> str:
    """The object's name as the release writes it in goals and actions ("chicken_leg", "apple")."""
    return ASSETS[asset][1]


def background_path(background: int) -> str:
    folder, name = BACKGROUNDS[background]
    return f"{folder}/{name}.png"


def image_paths() -> tuple[str, ...]:
    """Every image file the release's drawing may load, relative to assets/imgs/."""
    paths = {asset_path(i) for i in range(len(ASSETS))}
    paths |= {background_path(b) for b in range(len(BACKGROUNDS))}
    paths |= {AGENT, ARROW, TARGET_BOX} | {DIRECTION.format(d) for d in range(4)}
    paths |= {NUMBER.format(n) for n in range(10)} | {SLOT.format(s) for s in "ABCD"}
    return tuple(sorted(paths))


@lru_cache(maxsize=None)
def data() -> dict:
    """The release's data tables (release_data.json, with its ``source``)."""
    text = resources.files("cogsim.benchmarks.kidgym").joinpath("release_data.json").read_text(encoding="utf-8")
    return json.loads(text)


@lru_cache(maxsize=None)
def sorting_rules() -> tuple[tuple[str, str], ...]:
    """The Sorting rules as (rule, ranking phrase), in the order they first appear in the release's tables."""
    entries = [e for level in ("2", "3") for e in data()["sorting"][level]]
    return tuple(dict.fromkeys((e["rule"], e["property"]) for e in entries))


def sorting_entries(level: int) -> list[dict]:
    return data()["sorting"][str(level)]


def layouts(task: str, level: int) -> list[str]:
    """The 100 layouts of a maze task at a level, each 25 codes in the release's [i][j] order."""
    return data()["layouts"][f"{MAZE_TASKS[task]}_L{level}"]


def _layout_codes(text: str) -> list[int]:
    return [9 if code == "A" else int(code) for code in text]


def _ids(category: str, names) -> list[int]:
    return [ASSET_IDS[(category, n)] for n in names]


@lru_cache(maxsize=None)
def core_catalog() -> "_core.KidCatalog":
    rules = sorting_rules()
    sorting = [
        [[rules.index((e["rule"], e["property"]))] + _ids("animal", e["correct"]) for e in sorting_entries(level)]
        for level in (1, 2, 3)
    ]
    return _core.KidCatalog(
        resources=[_ids(c, RESOURCES[c]) for c in CATEGORIES],
        counting_piles=[
            [ASSET_IDS[(c, f"{name}_{size}")] for name in COUNTING[c] for size in (1, 2, 3)] for c in ("fruit", "food")
        ],
        animal_pieces=[_ids("animal", [f"{p}_{q}" for q in (1, 2, 3, 4)]) for p in PICTURES],
        all_pieces=_ids("animal", [f"{p}_{q}" for p in PICTURES for q in (1, 2, 3, 4)]),
        baskets=_ids("basket", BASKETS),
        keys=_ids("key", KEYS),
        doors=_ids("door", DOORS),
        puzzle=_ids("toy", PUZZLE),
        roman=_ids("roman", ROMAN),
        diamond=ASSET_IDS[("toy", "diamond")],
        wall=ASSET_IDS[("maze", "wall")],
        treasure=ASSET_IDS[("maze", "treasure")],
        sorting=sorting,
        layouts=[[[_layout_codes(t) for t in layouts(task, level)] for level in (1, 2, 3)] for task in MAZE_TASKS],
    )
