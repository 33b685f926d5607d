"""KidGym catalogs: the semantic names behind the ids the core draws (items, colours, scenes, rules).

Item names are the renderer's sprite names (``cogsim.render.SPRITE_CATEGORIES``), so every item the
core places can be drawn; the text names them with spaces ("teddy_bear" -> "teddy bear").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from cogsim import _core
from cogsim.render import SPRITE_CATEGORIES

CATEGORIES = ("animals", "fruits", "foods", "toys")
CATEGORY_SINGULAR = {"animals": "animal", "fruits": "fruit", "foods": "food", "toys": "toy"}
ITEMS: dict[str, tuple[str, ...]] = {category: tuple(SPRITE_CATEGORIES[category]) for category in CATEGORIES}

# Basket and key/door colours, as (name, RGB of the cell the renderer tints).
BASKET_COLOURS = (
    ("red", (222, 70, 60)),
    ("blue", (70, 120, 226)),
    ("green", (70, 176, 90)),
    ("yellow", (238, 200, 48)),
)
KEY_COLOURS = BASKET_COLOURS
HEDGE_COLOUR = (58, 104, 52)  # maze walls: hedges (the "tree" sprite on dark green)

# Scene backgrounds (renderer scene names) themed by category; mazes in the meadow, mixed items on the beach.
SCENES = ("meadow", "farm", "supermarket", "canteen", "playroom", "beach")
CATEGORY_SCENES = {
    "animals": ("farm", "meadow"),
    "fruits": ("supermarket",),
    "foods": ("canteen",),
    "toys": ("playroom",),
}
MAZE_SCENE = "meadow"
MIXED_SCENE = "beach"

# Sorting: typical adult body mass in kg (real-world knowledge the model must bring). Only animals
# whose mass is well known and not breed-dependent are listed; the core ranks animals at least 1.5x apart.
ANIMAL_MASS_KG = {
    "mouse": 0.02,
    "bat": 0.03,
    "frog": 0.05,
    "squirrel": 0.5,
    "hedgehog": 0.8,
    "duck": 1.2,
    "rabbit": 2.0,
    "cat": 4.0,
    "fox": 6.0,
    "koala": 8.0,
    "monkey": 10.0,
    "kangaroo": 60.0,
    "sheep": 70.0,
    "panda": 100.0,
    "pig": 150.0,
    "lion": 190.0,
    "bear": 300.0,
    "zebra": 350.0,
    "horse": 500.0,
    "giraffe": 1000.0,
    "hippopotamus": 1500.0,
    "rhinoceros": 2300.0,
    "elephant": 5000.0,
}


@dataclass(frozen=True)
class SortingRule:
    """A counterfactual rule tying speed to body mass; ``ascending``: position I holds the lightest animal.

    The four rules and their ranking phrases are the KidGym release's (its ``sorting_animals`` tables):
    heavier/lighter x faster/slower, ranked "fast to slow" or "slow to fast" by speed.
    """

    rule: str
    ranking: str
    ascending: bool


SORTING_RULES = (
    SortingRule("In this world, the heavier the animal is, the faster it is.", "fast to slow by speed", False),
    SortingRule("In this world, the heavier the animal is, the slower it is.", "slow to fast by speed", False),
    SortingRule("In this world, the lighter the animal is, the faster it is.", "fast to slow by speed", True),
    SortingRule("In this world, the lighter the animal is, the slower it is.", "slow to fast by speed", True),
)

# Puzzle: abstract figures of 2 x 2 tiles (shape, colour) in quarter order top-left, top-right,
# bottom-left, bottom-right. Tile q of figure f is shape (f + 3q) mod 10 and colour (f + q) mod 6, so
# the four tiles of a figure differ and no two figures share a tile in the same place (f < 30).
PUZZLE_SHAPES = ("circle", "square", "triangle", "diamond", "star", "hexagon", "cross", "ring", "heart", "bar")
PUZZLE_COLOURS = (
    ("red", (220, 64, 56)),
    ("blue", (52, 110, 220)),
    ("green", (56, 164, 80)),
    ("yellow", (236, 188, 36)),
    ("purple", (140, 80, 196)),
    ("orange", (240, 128, 40)),
)
PUZZLE_FIGURES = tuple(
    tuple((PUZZLE_SHAPES[(f + 3 * q) % 10], PUZZLE_COLOURS[(f + q) % 6][1]) for q in range(4)) for f in range(24)
)
FIGURE_CATEGORY = 4  # the core's picture category of the puzzle figures
COUNTING_CATEGORIES = ("fruits", "foods")

# Placement: compass directions clockwise from north (the core's direction ids).
DIRECTIONS = ("north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest")
ROTATIONS = (None, "clockwise", "anticlockwise")


def item_name(category: int, item: int) -> str:
    return ITEMS[CATEGORIES[category]][item].replace("_", " ")


def picture_name(category: int, picture: int) -> str:
    """An item's name, or "target figure" for the abstract figures of Puzzle (which have none)."""
    return "target figure" if category == FIGURE_CATEGORY else item_name(category, picture)


def item_sprite(category: int, item: int) -> str:
    return ITEMS[CATEGORIES[category]][item]


@dataclass(frozen=True)
class CatalogOptions:
    """Generator knobs the paper leaves open (named so runs can state them)."""

    selection_extra: int = 2  # Selection: distractors in the scene = level + selection_extra
    decode_extra: int = 1  # Decode, Memory Decode: distractors = 2 level + decode_extra (the release: 2L+1)
    memory_chests: int = 3  # Memory Maze: chests after 'continue' (one holds the diamond)
    maze_decoy_keys: int = 1  # mazes: extra keys of a colour no key in use has (see tasks: the release has
    # none but lists unreachable actions too); Decode Maze level 1 also gets the release's trap key

    def __post_init__(self):
        for name, (low, high) in CATALOG_OPTION_RANGES.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{name} must be an integer in [{low}, {high}], got {value!r}")


# The ranges the core's generator accepts (kidgym::validate_catalog).
CATALOG_OPTION_RANGES = {
    "selection_extra": (0, 4),
    "decode_extra": (0, 6),
    "memory_chests": (2, 5),
    "maze_decoy_keys": (0, 1),
}


@lru_cache(maxsize=None)
def core_catalog(options: CatalogOptions = CatalogOptions()) -> "_core.KidCatalog":
    animals = ITEMS["animals"]
    return _core.KidCatalog(
        category_sizes=[len(ITEMS[c]) for c in CATEGORIES],
        category_scenes=[[SCENES.index(s) for s in CATEGORY_SCENES[c]] for c in CATEGORIES],
        maze_scene=SCENES.index(MAZE_SCENE),
        mixed_scene=SCENES.index(MIXED_SCENE),
        basket_colours=len(BASKET_COLOURS),
        key_colours=len(KEY_COLOURS),
        animal_values=[ANIMAL_MASS_KG.get(name, 0.0) for name in animals],
        rule_ascending=[int(rule.ascending) for rule in SORTING_RULES],
        selection_extra=options.selection_extra,
        decode_extra=options.decode_extra,
        memory_chests=options.memory_chests,
        maze_decoy_keys=options.maze_decoy_keys,
        puzzle_figures=len(PUZZLE_FIGURES),
        counting_categories=[CATEGORIES.index(c) for c in COUNTING_CATEGORIES],
    )
