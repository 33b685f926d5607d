"""Matching Pairs episode rules against the released harness: the retry/forfeit rule (two retries
per flip, then the round is forfeited) and the response budget (5 per pair, its launchers' value)."""

import pytest

import cogsim
from cogsim.benchmarks.rngbench import pairs
from cogsim.benchmarks.rngbench.pairs import prompts


def test_budget_is_five_responses_per_pair():
    env = cogsim.make("pairs/single", rows=10, cols=10)
    assert env.budget == 250 and env.max_retries == 2


def test_third_failure_forfeits_the_round_and_turns_the_first_card_down():
    env = cogsim.make("pairs/single", rows=2, cols=4)
    env.reset(seed=3)
    assert env.step("Action: aA")[4]["outcome"] == "first"
    assert env.game.pending() == 0
    assert "forfeit" not in env.step("no action")[4]
    assert "forfeit" not in env.step("Action: aA")[4]  # the card already up: invalid
    obs, _, done, truncated, info = env.step("Action: zZ")  # off the board: parse failure
    assert info["forfeit"] and not (done or truncated)
    assert env.game.pending() == -1 and env.game.state()[0, 0] == pairs.FACE_DOWN
    assert "forfeited" in obs["text"] and "aA is face down again" in obs["text"] and "Round 2" in obs["text"]
    # a valid flip resets the count: two more failures do not forfeit
    env.step("Action: aB")
    assert "forfeit" not in env.step("?")[4] and "forfeit" not in env.step("?")[4]
    assert env.game.pending() == 1
    assert env.step("?")[4]["forfeit"]


def test_forfeit_passes_the_turn_in_a_duel():
    env = cogsim.make("pairs/duel", rows=2, cols=2)
    env.reset(seed=0, options={"players": ["p", "q"]})
    for _ in range(2):
        obs, *_ = env.step("pass")
        assert obs["player"] == 0
    obs, _, _, _, info = env.step("pass")
    assert info["forfeit"] and obs["player"] == 1
    assert "Your opponent made no valid flip in 3 attempts" in obs["text"]


def test_unlimited_retries_stay_available():
    env = cogsim.make("pairs/single", rows=2, cols=2, max_retries=None, max_responses=20)
    env.reset(seed=0)
    env.step("Action: aA")
    for _ in range(10):
        assert "forfeit" not in env.step("nothing")[4]
    assert env.game.pending() == 0
    with pytest.raises(ValueError, match="max_retries"):
        cogsim.make("pairs/single", max_retries=-1)


def test_oracle_condition_shows_a_memory_aid_board():
    env = cogsim.make("pairs/single", rows=2, cols=4, memory_map=True)
    env.reset(seed=2)
    board = env.board
    other = next((r, c) for r in range(2) for c in range(4) if board[r, c] != board[0, 0])
    env.step("Action: aA")
    obs, *_ = env.step(f"Action: {'ab'[other[0]]}{'ABCD'[other[1]]}")
    aid = obs["text"].split("Memory aid")[1]
    sym = lambda rc: prompts.card_symbol(int(board[rc]), 4)
    assert f"[{sym((0, 0))}]" in aid and f"[{sym(other)}]" in aid
    assert aid.count("[*]") == 6


def test_the_prompt_states_the_retry_rule():
    def prompt(env_id, **options):
        env = cogsim.make(env_id, **options)
        env.reset(seed=0)
        return env.system_prompt

    assert "retried 2 time(s)" in prompt("pairs/single")
    assert "the turn passes" in prompt("pairs/duel")
    assert "retried" not in prompt("pairs/single", max_retries=None)
