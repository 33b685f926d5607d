"""Poker card faces as the released harness picks them for a seed, and letter labels on images
(expected faces from the release's CardAssets.select run offline: data/pairs_release_poker.json)."""

import json
from pathlib import Path

import numpy as np
import pytest

import cogsim
from cogsim.benchmarks.rngbench import pairs
from cogsim.benchmarks.rngbench.pairs.cogsim_look import RELEASE_POKER_DECK, CardBoard, release_poker_faces

DATA = json.loads((Path(__file__).parent / "data" / "pairs_release_poker.json").read_text())
SUITS = {"spades": 0, "hearts": 1, "diamonds": 2, "clubs": 3}
RANKS = {"ace": "A", "jack": "J", "queen": "Q", "king": "K"}


def face_of(name: str) -> tuple:
    if name.endswith("joker"):
        return ("joker", (30, 30, 36) if name.startswith("black") else (204, 22, 36))
    rank, suit = name.split("_of_")
    return ("poker", RANKS.get(rank, rank), SUITS[suit])


def test_deck_is_the_release_deck():
    assert len(RELEASE_POKER_DECK) == 54 and len(set(RELEASE_POKER_DECK)) == 54
    assert "CardAssets" in DATA["source"]


@pytest.mark.parametrize("case", DATA["boards"], ids=lambda c: f"{c['rows']}x{c['cols']}-s{c['seed']}")
def test_poker_faces_per_identity_are_the_release_faces(case):
    chosen = release_poker_faces(case["seed"], case["rows"] * case["cols"] // 2)
    assert list(chosen) == [face_of(name) for name in case["faces"]]


def test_env_images_use_release_faces_and_letter_labels():
    env = cogsim.make("pairs/single", rows=2, cols=4, modality="image", theme="poker", card_width=24, look="cogsim")
    obs, _ = env.reset(seed=1)
    assert env.face_order == "release" and len(obs["images"]) == 1
    up = np.ones((2, 4), np.uint8)
    from cogsim.render import shared_renderer

    release, cogsim_faces, numbered = shared_renderer().cards(
        [
            CardBoard(env.board, up, theme="poker", seed=1, card_width=24, face_order="release", labels="letters"),
            CardBoard(env.board, up, theme="poker", seed=1, card_width=24, labels="letters"),
            CardBoard(env.board, up, theme="poker", seed=1, card_width=24, face_order="release"),
        ]
    )
    assert not np.array_equal(release, cogsim_faces)  # the faces differ
    assert not np.array_equal(release, numbered)  # the labels differ
    assert cogsim.make("pairs/single", theme="poker", faces="cogsim").face_order == "cogsim"
    assert cogsim.make("pairs/single", theme="noise").face_order == "cogsim"


def test_release_faces_are_poker_only_and_bounded():
    with pytest.raises(ValueError, match="face_order"):
        CardBoard(np.zeros((2, 2), int), np.zeros((2, 2), np.uint8), theme="noise", face_order="release").validate()
    ids = pairs.deal(12, 10, 0)  # 60 pairs: more than the 54-card deck
    with pytest.raises(ValueError, match="54"):
        CardBoard(ids, np.zeros(ids.shape, np.uint8), theme="poker", face_order="release").validate()
