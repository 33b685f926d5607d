"""What cogsim's look draws of a KidGym scene: the release's scene (``scene.scene``) as a grid scene of
cogsim's own sprites and panels (``cogsim_look``), with the same objects in the same cells.

The play area is the release's 5 x 5 grid (an object's cell [x, y] is column x, row y), with the
objects the release's frame shows and their number badges; a roman-numeral tile is a target cell.
Baskets, keys and doors stand on a cell of their colour, maze walls are hedges, Memory Maze's
treasure boxes chests. Counting's piles, the quarters of Filling's pictures and Puzzle's four pieces
are marks (a pile of 1-3 sprites, a quarter of a sprite, a shape tile). The backpack strip shows the
release's four slots (a key on its colour). The hint panel shows the side bar: Selection's items to remember,
the code tables of Decode, Memory Decode and Decode Maze (rows left -> right; Decode's target below
them), Memory Decode's target, and the picture of Filling, Puzzle and Memory Filling.
"""

from __future__ import annotations

from typing import Optional, Union

from cogsim.benchmarks.kidgym import catalog
from cogsim.benchmarks.kidgym.cogsim_look import (
    CellMark,
    GridScene,
    Item,
    Mark,
    Pile,
    ShapeTile,
    SlotMark,
    SpriteQuarter,
    Target,
)
from cogsim.benchmarks.kidgym.scene import IMAGES

# The release's names that are not the names of cogsim's sprites.
SPRITES = {
    "chick": "chicken",
    "tortoise": "turtle",
    "goldfish": "fish",
    "cherry": "cherries",
    "grape": "grapes",
    "kiwifruit": "kiwi",
    "hotdog": "hot_dog",
    "doll": "nesting_dolls",
    "football": "soccer_ball",
    "toy_ball": "volleyball",
    "toy_bear": "teddy_bear",
    "toy_plane": "airplane",
    "toy_train": "train",
}
COLOURS = {"red": (222, 70, 60), "blue": (70, 120, 226), "green": (70, 176, 90), "yellow": (238, 200, 48)}
HEDGE = (58, 104, 52)  # maze walls: the "tree" sprite on dark green
# Puzzle's four pieces (the release's one jigsaw figure) as the tiles of one figure, quarters 1-4.
PUZZLE_TILES = (
    ShapeTile("triangle", (220, 64, 56)),
    ShapeTile("circle", (52, 110, 220)),
    ShapeTile("square", (56, 164, 80)),
    ShapeTile("star", (236, 188, 36)),
)
# The release's backgrounds (folder/name) as cogsim's scenes.
BACKGROUNDS = {
    "animal/farm": "farm",
    "fruit/shop": "supermarket",
    "food/canteen": "canteen",
    "toy/toy_house": "playroom",
    "mixed/park": "meadow",
    "figure/gallery": "beach",
    "maze/maze": "meadow",
}
_PILES = {
    f"{folder}/{name}_{n}": (name, n) for folder, names in catalog.COUNTING.items() for name in names for n in (1, 2, 3)
}
_PIECES = {f"animal/{picture}_{q}": (picture, q - 1) for picture in catalog.PICTURES for q in (1, 2, 3, 4)}

Drawing = Union[Item, Mark, Target]  # what one release image is in cogsim's look, before it has a cell


def _name(image: str) -> str:
    """ "assets/imgs/fruit/apple.png" -> "fruit/apple"."""
    return image[len(IMAGES) : -len(".png")]


def sprite(name: str) -> str:
    """cogsim's sprite of a release item ("fruit/kiwifruit" -> "kiwi")."""
    base = name.rsplit("/", 1)[1]
    return SPRITES.get(base, base)


def drawing(image: str) -> Drawing:
    """What cogsim's look draws for one release image: an item (row and column 0, to be placed), a
    mark (pile, quarter or tile), or a target (roman tile)."""
    name = _name(image)
    folder, base = name.split("/", 1)
    if name in _PILES:
        item, count = _PILES[name]
        return Pile(sprite(f"{folder}/{item}"), count)
    if name in _PIECES:
        picture, quarter = _PIECES[name]
        return SpriteQuarter(sprite(f"animal/{picture}"), quarter)
    if folder == "toy" and base in catalog.PUZZLE:
        return PUZZLE_TILES[catalog.PUZZLE.index(base)]
    if folder == "roman":
        return Target(0, 0, catalog.ROMAN.index(base) + 1)
    if folder in ("basket", "key", "door"):
        return Item(folder, 0, 0, cell_colour=COLOURS[base])
    if name == "maze/wall":
        return Item("tree", 0, 0, cell_colour=HEDGE)
    if name == "maze/treasure":
        return Item("chest", 0, 0)
    return Item(sprite(name), 0, 0)


def grid_scene(scene: dict, cell_size: int = 64) -> GridScene:
    """The grid scene cogsim's look draws for a release scene (``scene.scene``)."""
    items, targets, marks = [], [], []
    numerals = {}
    for o in scene["objects"]:
        shown = drawing(o["image"])
        if o["shown"] and isinstance(shown, Target):
            numerals[tuple(o["cell"])] = shown.numeral
    for o in scene["objects"]:
        if not o["shown"]:
            continue
        col, row = o["cell"]
        label = o["label"] if scene["labels"] else None
        shown = drawing(o["image"])
        if isinstance(shown, Target):
            targets.append(Target(row, col, shown.numeral))
        elif isinstance(shown, Item):
            items.append(Item(shown.sprite, row, col, label=label, cell_colour=shown.cell_colour))
        else:
            marks.append(CellMark(shown, row, col, label=label, numeral=numerals.get((col, row))))
    backpack, colours = [], []
    for slot, image in enumerate(scene["backpack"]):
        shown = drawing(image) if image is not None else None
        if isinstance(shown, Item):
            backpack.append(shown.sprite)
            colours.append(shown.cell_colour)
            continue
        backpack.append(None)
        colours.append(None)
        if shown is not None and not isinstance(shown, Target):
            marks.append(SlotMark(shown, slot))
    hint_text, hint_sprites, figure = hint(scene["side_bar"])
    col, row = scene["agent"]["cell"]
    return GridScene(
        items=tuple(items),
        targets=tuple(targets),
        agent=(row, col),
        backpack=tuple(backpack),
        backpack_colours=tuple(colours),
        bag_slots=len(scene["backpack"]),
        hint_text=hint_text,
        hint_sprites=hint_sprites,
        scene=BACKGROUNDS[_name(scene["background"])],
        cell_size=cell_size,
        marks=tuple(marks),
        hint_figure=figure,
    )


def hint(side_bar: Optional[dict]) -> tuple[str, tuple[str, ...], tuple]:
    """The hint panel of a side bar: (text, sprites in rows of two, figure of four pieces)."""
    if side_bar is None:
        return "", (), ()
    kind = side_bar["kind"]
    if kind == "remember":
        return "Remember", tuple(sprite(_name(i)) for i in side_bar["items"]), ()
    if kind == "target":
        return "Target", (sprite(_name(side_bar["target"])),), ()
    if kind == "picture":
        return "Target", (), tuple(drawing(piece) for piece in side_bar["pieces"])
    pairs = [(_name(left), _name(right)) for left, right in side_bar["pairs"]]
    if pairs[0][0].startswith("key/"):  # Decode Maze: which key opens which door, by colour
        return " ".join(["key->door"] + [f"{k.split('/')[1]}->{d.split('/')[1]}" for k, d in pairs]), (), ()
    sprites = tuple(sprite(name) for pair in pairs for name in pair)
    if "target" in side_bar:  # Decode: the target on the row below the table
        return "Pairs left->right, target below", sprites + (sprite(_name(side_bar["target"])),), ()
    return "Remember pairs left->right", sprites, ()
