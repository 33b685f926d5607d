"""RNG-Bench Matching Pairs: deals and games in the core, text views, the strict parser. Duels
between agents (``cogsim.harness.tournament``) and SFT rollouts (``cogsim.harness.sft``) run envs,
so they live in the harness.

    from cogsim import pairs
    board = pairs.deal(4, 4, seed=1)         # identities 0..7, each twice, row-major
    games = pairs.PairsBatch.from_boards([board])
    games.flip([games.optimal()[0]])          # one flip per response; the perfect-memory policy
"""

from cogsim.benchmarks.rngbench.pairs.game import (
    FACE_DOWN,
    FACE_UP,
    FIRST_FLIP,
    GAME_OVER,
    INVALID,
    MATCH,
    MISMATCH,
    REMOVED,
    PairsBatch,
    deal,
    known_cards,
    optimal_responses,
)
from cogsim.benchmarks.rngbench.pairs.parser import ParseError, format_flip, parse_flip

__all__ = [
    "FACE_DOWN",
    "FACE_UP",
    "FIRST_FLIP",
    "GAME_OVER",
    "INVALID",
    "MATCH",
    "MISMATCH",
    "REMOVED",
    "PairsBatch",
    "ParseError",
    "deal",
    "format_flip",
    "known_cards",
    "optimal_responses",
    "parse_flip",
]
