#!/usr/bin/env python3
"""Rasterises named colour-emoji sprites into the renderer's committed sprite atlas.

Source: Noto Color Emoji (Debian package fonts-noto-color-emoji, SIL Open Font License 1.1).
Output: python/cogsim/render/assets/sprites.png (RGBA, CELL x CELL per sprite, row-major) and
sprites.json (name -> [x, y, w, h]), plus the font's licence next to them. Users of cogsim need no
font at run time; rerun this script only to change the sprite list.

    python scripts/build_sprite_atlas.py [--font /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf]
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

CELL = 96  # atlas cell; the picture fills INNER and the rest stays transparent so mipmaps don't bleed
INNER = 88
NOTO_SIZE = 109  # the only size the CBDT bitmaps come in
ASSETS = Path(__file__).resolve().parents[1] / "python" / "cogsim" / "render" / "assets"
LICENCE_SOURCE = Path("/usr/share/doc/fonts-noto-color-emoji/copyright")

# category -> name -> emoji: KidGym's item categories, then game objects.
CATEGORIES = {
    "animals": {
        "cat": "\U0001f408",
        "dog": "\U0001f415",
        "mouse": "\U0001f401",
        "rabbit": "\U0001f407",
        "fox": "\U0001f98a",
        "bear": "\U0001f43b",
        "panda": "\U0001f43c",
        "koala": "\U0001f428",
        "tiger": "\U0001f405",
        "lion": "\U0001f981",
        "cow": "\U0001f404",
        "pig": "\U0001f416",
        "frog": "\U0001f438",
        "monkey": "\U0001f412",
        "chicken": "\U0001f413",
        "penguin": "\U0001f427",
        "owl": "\U0001f989",
        "duck": "\U0001f986",
        "horse": "\U0001f40e",
        "unicorn": "\U0001f984",
        "elephant": "\U0001f418",
        "giraffe": "\U0001f992",
        "zebra": "\U0001f993",
        "camel": "\U0001f42a",
        "snail": "\U0001f40c",
        "butterfly": "\U0001f98b",
        "bee": "\U0001f41d",
        "ladybug": "\U0001f41e",
        "turtle": "\U0001f422",
        "snake": "\U0001f40d",
        "crocodile": "\U0001f40a",
        "whale": "\U0001f40b",
        "dolphin": "\U0001f42c",
        "fish": "\U0001f41f",
        "octopus": "\U0001f419",
        "crab": "\U0001f980",
        "hedgehog": "\U0001f994",
        "sheep": "\U0001f411",
        "kangaroo": "\U0001f998",
        "hippopotamus": "\U0001f99b",
        "rhinoceros": "\U0001f98f",
        "squirrel": "\U0001f43f",
        "bat": "\U0001f987",
        "dinosaur": "\U0001f995",
    },
    "fruits": {
        "apple": "\U0001f34e",
        "green_apple": "\U0001f34f",
        "pear": "\U0001f350",
        "orange": "\U0001f34a",
        "lemon": "\U0001f34b",
        "banana": "\U0001f34c",
        "watermelon": "\U0001f349",
        "grapes": "\U0001f347",
        "strawberry": "\U0001f353",
        "cherries": "\U0001f352",
        "peach": "\U0001f351",
        "pineapple": "\U0001f34d",
        "mango": "\U0001f96d",
        "kiwi": "\U0001f95d",
        "coconut": "\U0001f965",
        "blueberries": "\U0001fad0",
        "melon": "\U0001f348",
        "avocado": "\U0001f951",
        "tomato": "\U0001f345",
    },
    "foods": {
        "bread": "\U0001f35e",
        "cheese": "\U0001f9c0",
        "egg": "\U0001f95a",
        "pizza": "\U0001f355",
        "hamburger": "\U0001f354",
        "hot_dog": "\U0001f32d",
        "french_fries": "\U0001f35f",
        "taco": "\U0001f32e",
        "sandwich": "\U0001f96a",
        "chicken_leg": "\U0001f357",
        "cookie": "\U0001f36a",
        "cake": "\U0001f370",
        "doughnut": "\U0001f369",
        "ice_cream": "\U0001f366",
        "lollipop": "\U0001f36d",
        "candy": "\U0001f36c",
        "chocolate": "\U0001f36b",
        "popcorn": "\U0001f37f",
        "carrot": "\U0001f955",
        "corn": "\U0001f33d",
        "broccoli": "\U0001f966",
        "cupcake": "\U0001f9c1",
        "croissant": "\U0001f950",
        "pretzel": "\U0001f968",
        "sushi": "\U0001f363",
        "spaghetti": "\U0001f35d",
        "milk": "\U0001f95b",
        "pancakes": "\U0001f95e",
    },
    "toys": {
        "teddy_bear": "\U0001f9f8",
        "soccer_ball": "\u26bd",
        "basketball": "\U0001f3c0",
        "volleyball": "\U0001f3d0",
        "badminton": "\U0001f3f8",
        "kite": "\U0001fa81",
        "yo_yo": "\U0001fa80",
        "balloon": "\U0001f388",
        "puzzle_piece": "\U0001f9e9",
        "robot": "\U0001f916",
        "die": "\U0001f3b2",
        "toy_car": "\U0001f697",
        "train": "\U0001f682",
        "airplane": "\u2708\ufe0f",
        "rocket": "\U0001f680",
        "drum": "\U0001f941",
        "guitar": "\U0001f3b8",
        "trumpet": "\U0001f3ba",
        "nesting_dolls": "\U0001fa86",
        "magic_wand": "\U0001fa84",
    },
    "game_objects": {
        "agent": "\U0001f9d2",
        "key": "\U0001f511",
        "old_key": "\U0001f5dd\ufe0f",
        "door": "\U0001f6aa",
        "chest": "\U0001f9f0",
        "box": "\U0001f4e6",
        "diamond": "\U0001f48e",
        "basket": "\U0001f9fa",
        "lock": "\U0001f512",
        "unlock": "\U0001f513",
        "flag": "\U0001f6a9",
        "star": "\u2b50",
        "heart": "\u2764\ufe0f",
        "trophy": "\U0001f3c6",
        "crown": "\U0001f451",
        "gift": "\U0001f381",
        "coin": "\U0001fa99",
        "bell": "\U0001f514",
        "house": "\U0001f3e0",
        "tree": "\U0001f333",
        "flower": "\U0001f338",
        "mushroom": "\U0001f344",
        "shopping_cart": "\U0001f6d2",
        "fire": "\U0001f525",
    },
}
# Sprites added after the first atlas take the cells after all others, so that every earlier sprite keeps
# its cell and the frames drawn with it keep their pixels.
ADDED_LATER = ("chicken_leg", "volleyball", "badminton")
_ALL = {name: emoji for sprites in CATEGORIES.values() for name, emoji in sprites.items()}
SPRITES = {name: emoji for name, emoji in _ALL.items() if name not in ADDED_LATER} | {n: _ALL[n] for n in ADDED_LATER}


def rasterise(font: ImageFont.FreeTypeFont, emoji: str) -> Image.Image:
    canvas = Image.new("RGBA", (160, 160), (0, 0, 0, 0))
    ImageDraw.Draw(canvas).text((8, 8), emoji, font=font, embedded_color=True)
    box = canvas.getbbox()
    if box is None:
        raise ValueError(f"the font has no picture for {emoji!r}")
    picture = canvas.crop(box)
    scale = INNER / max(picture.size)
    size = (max(1, round(picture.width * scale)), max(1, round(picture.height * scale)))
    return picture.resize(size, Image.LANCZOS)


def build(font_path: Path) -> None:
    font = ImageFont.truetype(str(font_path), NOTO_SIZE)
    columns = math.ceil(math.sqrt(len(SPRITES)))
    rows = math.ceil(len(SPRITES) / columns)
    atlas = Image.new("RGBA", (columns * CELL, rows * CELL), (0, 0, 0, 0))
    index = {}
    for i, (name, emoji) in enumerate(SPRITES.items()):
        x, y = (i % columns) * CELL, (i // columns) * CELL
        picture = rasterise(font, emoji)
        atlas.paste(picture, (x + (CELL - picture.width) // 2, y + (CELL - picture.height) // 2))
        index[name] = [x, y, CELL, CELL]
    ASSETS.mkdir(parents=True, exist_ok=True)
    atlas.save(ASSETS / "sprites.png", optimize=True)
    meta = {
        "source": "Noto Color Emoji (SIL OFL 1.1), see LICENSE-NotoColorEmoji.txt",
        "cell": CELL,
        "sprites": index,
        "categories": {category: list(sprites) for category, sprites in CATEGORIES.items()},
    }
    (ASSETS / "sprites.json").write_text(json.dumps(meta, indent=1) + "\n")
    if LICENCE_SOURCE.exists():
        shutil.copyfile(LICENCE_SOURCE, ASSETS / "LICENSE-NotoColorEmoji.txt")
    print(f"{len(index)} sprites -> {ASSETS / 'sprites.png'} ({(ASSETS / 'sprites.png').stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--font", type=Path, default=Path("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"))
    build(parser.parse_args().font)
