"""Card boards: themes, distinct identities, seeding, states, validation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from cogsim.benchmarks.rngbench.pairs import cogsim_look as cards
from cogsim.benchmarks.rngbench.pairs.cogsim_look import FACE_DOWN, FACE_UP, REMOVED, CardBoard
from render_helpers import renderer


def _crop(frame, board: CardBoard, row: int, col: int) -> np.ndarray:
    x0, y0, x1, y1 = (int(round(v)) for v in board.card_rect(row, col))
    return frame[y0 + 2 : y1 - 2, x0 + 2 : x1 - 2].astype(int)


@pytest.mark.parametrize("theme", cards.THEMES)
def test_every_identity_of_a_theme_looks_different(theme):
    count = min(32, cards.theme_capacity(theme))
    cols = 8
    ids = np.arange(count).reshape(-1, cols)
    board = CardBoard(ids, np.full(ids.shape, FACE_UP, np.uint8), theme=theme, seed=3, card_width=40)
    frame = renderer().cards(board)[0]
    crops = [_crop(frame, board, *divmod(i, cols)) for i in range(count)]
    closest = min(np.abs(a - b).mean() for a, b in itertools.combinations(crops, 2))
    assert closest > 2.0, f"two identities of {theme} differ by only {closest:.2f} per channel on average"


@pytest.mark.parametrize("theme", cards.THEMES)
def test_a_pair_looks_the_same(theme):
    ids = np.array([[0, 1], [1, 0]])
    board = CardBoard(ids, np.full((2, 2), FACE_UP, np.uint8), theme=theme, seed=9)
    frame = renderer().cards(board)[0]
    assert np.abs(_crop(frame, board, 0, 0) - _crop(frame, board, 1, 1)).max() <= 2
    assert np.abs(_crop(frame, board, 0, 1) - _crop(frame, board, 1, 0)).max() <= 2


def test_faces_are_seeded():
    assert cards.faces("shapes", 1) == cards.faces("shapes", 1)
    assert cards.faces("shapes", 1) != cards.faces("shapes", 2)
    ids = np.array([[0, 1]])
    up = np.full((1, 2), FACE_UP, np.uint8)
    a, b, c = renderer().cards([CardBoard(ids, up, "ascii", seed=s) for s in (4, 4, 5)])
    assert np.abs(a.astype(int) - b).max() <= 2
    assert np.abs(a.astype(int) - c).max() > 50


def test_face_down_cards_hide_identity_and_removed_cards_show_the_table():
    ids = np.array([[0, 1, 2]])
    state = np.array([[FACE_DOWN, FACE_DOWN, REMOVED]], np.uint8)
    board = CardBoard(ids, state, theme="poker", seed=0)
    frame = renderer().cards(board)[0]
    assert np.abs(_crop(frame, board, 0, 0) - _crop(frame, board, 0, 1)).max() <= 2
    x0, y0, x1, y1 = (int(v) for v in board.card_rect(0, 2))
    assert tuple(frame[(y0 + y1) // 2, (x0 + x1) // 2]) == cards.FELT


def test_coordinates_are_labelled():
    ids = np.zeros((2, 2), int)
    state = np.full((2, 2), REMOVED, np.uint8)
    one, zero = renderer().cards([CardBoard(ids, state), CardBoard(ids, state, first_index=0)])
    assert np.abs(one.astype(int) - zero).max() > 100  # "1 2" versus "0 1"


@pytest.mark.parametrize(
    "board, field",
    [
        (CardBoard(np.zeros((2, 2), int), np.zeros((2, 2), np.uint8), theme="emoji"), "theme"),
        (CardBoard(np.zeros((2, 2), int), np.zeros((2, 3), np.uint8)), "state"),
        (CardBoard(np.zeros((2, 2), int), np.full((2, 2), 3, np.uint8)), "state"),
        (CardBoard(np.full((2, 2), 60), np.zeros((2, 2), np.uint8), theme="poker"), "identities"),
        (CardBoard(np.zeros((20, 2), int), np.zeros((20, 2), np.uint8)), "identities"),
        (CardBoard(np.zeros((2, 2), int), np.zeros((2, 2), np.uint8), card_width=4), "card_width"),
    ],
)
def test_bad_boards_raise_value_error(board, field):
    with pytest.raises(ValueError, match=field):
        renderer().cards(board)


def test_similar_colours_are_close_in_hue_but_apart():
    colours = np.array(cards._similar_colours(11), float)
    assert len(colours) >= 32
    distances = np.linalg.norm(colours[:, None] - colours[None], axis=-1)
    assert distances[np.triu_indices(len(colours), 1)].min() >= cards.MIN_COLOUR_DISTANCE
