"""Matching Pairs core: deals, flip rules, and the perfect-memory policy against a Python reference."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from cogsim.benchmarks.rngbench import pairs
from cogsim.benchmarks.rngbench.pairs import FIRST_FLIP, GAME_OVER, INVALID, MATCH, MISMATCH, PairsBatch


@pytest.mark.parametrize("shape", [(1, 2), (4, 4), (6, 5), (10, 10), (12, 14), (16, 16)])
def test_every_deal_holds_exactly_two_of_each_identity(shape):
    for seed in range(20):
        board = pairs.deal(*shape, seed)
        assert board.shape == shape
        counts = np.bincount(board.ravel())
        assert len(counts) == board.size // 2 and (counts == 2).all()


def test_deals_are_reproducible_and_fixed_across_machines():
    assert np.array_equal(pairs.deal(6, 6, 9), pairs.deal(6, 6, 9))
    assert len({pairs.deal(4, 4, s).tobytes() for s in range(50)}) == 50
    digest = hashlib.sha256(
        b"".join(pairs.deal(r, c, 2024, method="cogsim").tobytes() for r, c in ((4, 4), (8, 10), (12, 14)))
    ).hexdigest()
    assert digest[:16] == GOLDEN_DIGEST


GOLDEN_DIGEST = "98f946d45b0409fb"


def test_bad_shapes_and_seeds_raise_value_errors():
    with pytest.raises(ValueError, match="even"):
        pairs.deal(3, 3, 0)
    with pytest.raises(ValueError, match="rows"):
        pairs.deal(0, 4, 0)
    with pytest.raises(ValueError, match="cols"):
        pairs.deal(4, 17, 0)
    with pytest.raises(ValueError, match="seed"):
        pairs.deal(4, 4, -3)
    with pytest.raises(ValueError, match="exactly twice"):
        PairsBatch.from_boards([np.array([[0, 0], [0, 1]])])


def test_flip_rules_by_hand():
    board = np.array([[0, 1], [1, 0]])
    games = PairsBatch.from_boards([board, board], players=2)
    # game 0: (0,0) then (1,1) match -> scored by player 0, who keeps the turn
    assert games.flip([0, 0]).tolist() == [FIRST_FLIP, FIRST_FLIP]
    assert games.flip([0, 1]).tolist() == [INVALID, MISMATCH]  # flipping the face-up card again is invalid
    assert games.player(1) == 1 and games.state(1).tolist() == [[0, 0], [0, 0]]
    assert games.flip([3, 1]).tolist() == [MATCH, FIRST_FLIP]
    assert games.scores(0) == (1, 0) and games.player(0) == 0 and games.remaining(0) == 1
    assert games.flip([3, 2]).tolist() == [INVALID, MATCH]  # (1,1) was removed in game 0
    assert games.scores(1) == (0, 1)
    assert games.flip([-1, 4]).tolist() == [INVALID, INVALID]
    assert games.flip([1, 0]).tolist() == [FIRST_FLIP, FIRST_FLIP]
    assert games.flip([2, 3]).tolist() == [MATCH, MATCH]
    assert games.flip([0, 0]).tolist() == [GAME_OVER, GAME_OVER]
    assert games.scores(0) == (2, 0) and games.scores(1) == (0, 2)
    single = PairsBatch.from_boards([board])
    single.flip([0])
    single.flip([1])
    assert single.player(0) == 0  # a single player always moves


def reference_optimal(board: np.ndarray) -> list[int]:
    """The perfect-memory policy written independently in Python: the flips it makes."""
    ids = board.ravel().tolist()
    seen, removed, flips = set(), set(), []
    pending = None
    while len(removed) < len(ids):
        if pending is None:
            known = [
                k
                for k in range(len(ids))
                if k in seen
                and k not in removed
                and any(j != k and ids[j] == ids[k] and j in seen for j in range(len(ids)))
            ]
            card = known[0] if known else next(k for k in range(len(ids)) if k not in seen)
        else:
            partner = next(j for j in range(len(ids)) if j != pending and ids[j] == ids[pending])
            card = partner if partner in seen else next(k for k in range(len(ids)) if k not in seen and k != pending)
        flips.append(card)
        seen.add(card)
        if pending is None:
            pending = card
        else:
            if ids[pending] == ids[card]:
                removed |= {pending, card}
            pending = None
    return flips


@pytest.mark.parametrize("shape", [(2, 2), (4, 4), (6, 6), (8, 10)])
def test_optimal_policy_matches_the_python_reference(shape):
    boards = [pairs.deal(*shape, seed) for seed in range(15)]
    games = PairsBatch.from_boards(boards)
    flips = [[] for _ in boards]
    while (games.arrays["remaining"] > 0).any():
        cards = games.optimal(threads=2)
        for i, card in enumerate(cards):
            if card >= 0:
                flips[i].append(int(card))
        outcomes = games.flip(cards)
        assert INVALID not in outcomes.tolist()
    for board, made in zip(boards, flips):
        assert made == reference_optimal(board)
        assert len(made) == pairs.optimal_responses(board)


def test_optimal_policy_never_flips_a_known_card_needlessly():
    for seed in range(40):
        board = pairs.deal(6, 6, seed)
        games = PairsBatch.from_boards([board])
        while games.remaining() > 0:
            card = int(games.optimal()[0])
            seen = games.seen().ravel()
            if seen[card]:
                partner = next(j for j in range(board.size) if j != card and board.ravel()[j] == board.ravel()[card])
                pending = games.pending()
                # a seen card is flipped only to make a match: its partner is the face-up card,
                # or (as the first flip) its partner is known and will be flipped next
                assert pending == partner or (pending < 0 and seen[partner])
            games.flip([card])


def test_optimal_play_in_the_core_equals_stepping_it():
    boards = [pairs.deal(8, 8, s) for s in range(30)]
    responses = PairsBatch.from_boards(boards).play_optimal(threads=2)
    for board, used in zip(boards, responses):
        assert used == len(reference_optimal(board))
        assert 64 <= used <= 2 * 64  # every card flipped at least once, at most twice


def test_batch_dict_is_validated():
    games = PairsBatch.from_boards([pairs.deal(4, 4, 0)])
    games.arrays["pending"][0] = 99
    with pytest.raises(ValueError, match="pending"):
        games.flip([0])
    games = PairsBatch.from_boards([pairs.deal(4, 4, 0)])
    games.arrays["partner"][0] = 0
    with pytest.raises(ValueError, match="partner"):
        games.optimal()
    games = PairsBatch.from_boards([pairs.deal(4, 4, 0)])
    games.arrays["state"] = games.arrays["state"].astype(np.int32)
    with pytest.raises(ValueError, match="state"):
        games.optimal()
