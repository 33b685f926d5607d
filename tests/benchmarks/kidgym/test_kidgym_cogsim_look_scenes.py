"""cogsim's look of KidGym draws the release's scenes (``cogsim_scene``) with cogsim's own sprites, and
a look never changes the game: ``look="cogsim"`` and ``look="release"`` play the same episodes (the same
``env.scene()``, cells, texts, actions and outcomes) for every task and level."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import cogsim
from cogsim import render
from cogsim.benchmarks.kidgym import LEVELS, TASKS, catalog, cogsim_scene, scene
from cogsim.benchmarks.kidgym.cogsim_look import CellMark, GridScene, Item, Pile, SlotMark, SpriteQuarter, Target
from render_helpers import assert_matches_golden

ALL = [(name, level) for name in TASKS for level in LEVELS]
ITEM_FOLDERS = ("animal", "fruit", "food", "toy")


def walk(env, seed: int, policy: str):
    """(scene, observation, reward, info) of every step of one scripted episode, the first with no reward."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    yield env.scene(), obs, None, info
    while True:
        obs, reward, terminated, truncated, info = env.step(env.scripted_response(policy, rng))
        yield env.scene(), obs, reward, info
        if terminated or truncated:
            return


@pytest.mark.parametrize("name, level", ALL)
def test_the_two_looks_play_the_same_game(name, level):
    release = cogsim.make(f"kidgym/{name}", level=level)  # the release's look (a stand-in of its files here)
    own = cogsim.make(f"kidgym/{name}", level=level, look="cogsim", cell_size=32)
    for policy in ("oracle", "random"):
        for (s1, o1, r1, i1), (s2, o2, r2, i2) in zip(walk(release, 0, policy), walk(own, 0, policy), strict=True):
            assert s1 == s2 and (o1["text"], o1["options"], r1) == (o2["text"], o2["options"], r2)
            assert [f.shape[-1] for f in o1["images"]] == [4] * len(o1["images"])  # the release's RGBA
            assert [f.shape for f in o2["images"]] == [(288, 288, 3)] * len(o2["images"])
        outcome = {k: v for k, v in i1["episode"].items() if k not in ("look", "pillow", "release_assets")}
        assert outcome == {k: v for k, v in i2["episode"].items() if k not in ("look", "pillow")}
        assert (i1["episode"]["look"], i2["episode"]["look"]) == ("release", "cogsim")


def _places(grid: GridScene) -> Counter:
    """Cells (row, col) of everything drawn in the play area."""
    places = [(i.row, i.col) for i in grid.items] + [(t.row, t.col) for t in grid.targets]
    return Counter(places + [(m.row, m.col) for m in grid.marks if isinstance(m, CellMark)])


@pytest.mark.parametrize("name, level", ALL)
def test_everything_the_release_shows_is_drawn_in_its_cell(name, level):
    env = cogsim.make(f"kidgym/{name}", level=level, images=False)
    for seed in range(3):
        for release_scene, *_ in walk(env, seed, "random"):
            grid = cogsim_scene.grid_scene(release_scene, 32).validate()
            shown = [o for o in release_scene["objects"] if o["shown"]]
            assert _places(grid) == Counter((y, x) for x, y in (o["cell"] for o in shown))
            x, y = release_scene["agent"]["cell"]
            assert grid.agent == (y, x)
            labels = sorted(o["label"] for o in shown if o["label"] is not None and release_scene["labels"])
            drawn = [i.label for i in grid.items] + [m.label for m in grid.marks if isinstance(m, CellMark)]
            assert sorted(label for label in drawn if label is not None) == labels
            carried = sum(image is not None for image in release_scene["backpack"])
            slots = sum(s is not None for s in grid.backpack) + sum(isinstance(m, SlotMark) for m in grid.marks)
            assert slots == carried


def test_every_release_image_has_a_drawing_and_items_keep_their_own_sprite():
    items = {}
    for index in range(len(catalog.ASSETS)):
        image = scene.image(index)
        drawn = cogsim_scene.drawing(image)
        sprites = [drawn.sprite] if isinstance(drawn, (Item, Pile, SpriteQuarter)) else []
        assert all(sprite in render.SPRITES for sprite in sprites), image
        folder, name = catalog.ASSETS[index]
        if folder in ITEM_FOLDERS and isinstance(drawn, Item):
            items.setdefault(drawn.sprite, []).append(name)
    shared = {sprite: names for sprite, names in items.items() if len(names) > 1}
    assert shared == {}, shared  # every item the release names looks different from the others
    assert len(items) == sum(len(names) for names in catalog.RESOURCES.values()) + 0


def test_the_side_bar_is_the_hint_panel():
    assert cogsim_scene.hint(None) == ("", (), ())
    pairs = {"kind": "pairs", "pairs": [["assets/imgs/key/red.png", "assets/imgs/door/blue.png"]]}
    assert cogsim_scene.hint(pairs) == ("key->door red->blue", (), ())
    decode = {
        "kind": "pairs",
        "pairs": [["assets/imgs/fruit/grape.png", "assets/imgs/toy/toy_bear.png"]],
        "target": "assets/imgs/fruit/grape.png",
    }
    assert cogsim_scene.hint(decode) == ("Pairs left->right, target below", ("grapes", "teddy_bear", "grapes"), ())
    picture = {"kind": "picture", "pieces": [f"assets/imgs/animal/cat_{q}.png" for q in (1, 2, 3, 4)], "zoom": 0.9}
    assert cogsim_scene.hint(picture)[2] == tuple(SpriteQuarter("cat", q) for q in range(4))
    key = cogsim_scene.drawing("assets/imgs/key/yellow.png")
    assert key == Item("key", 0, 0, cell_colour=cogsim_scene.COLOURS["yellow"])
    assert cogsim_scene.drawing("assets/imgs/roman/IV.png") == Target(0, 0, 4)


def _first_frames() -> list[GridScene]:
    """The first scene of seed 0 of every task at level 2, in cogsim's look at 32 px cells."""
    grids = []
    for name in TASKS:
        env = cogsim.make(f"kidgym/{name}", level=2, images=False)
        env.reset(seed=0)
        grids.append(cogsim_scene.grid_scene(env.scene(), 32))
    return grids


def _mosaic(frames: np.ndarray) -> np.ndarray:
    """Frames tiled four to a row (black where a row is short)."""
    count, height, width, _ = frames.shape
    rows = -(-count // 4)
    out = np.zeros((rows * height, 4 * width, 3), np.uint8)
    for i, frame in enumerate(frames):
        row, col = divmod(i, 4)
        out[row * height : (row + 1) * height, col * width : (col + 1) * width] = frame
    return out


@pytest.mark.parametrize("path", ["gl", "compositor"])
def test_cogsim_look_of_every_task_matches_its_golden_on_both_render_paths(path):
    assert_matches_golden(_mosaic(render.Renderer(path=path).grid(_first_frames())), "kidgym_cogsim_look")
