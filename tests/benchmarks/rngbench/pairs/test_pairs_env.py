"""pairs/single and pairs/duel: scripted episodes, the strict parser, invalid flips, duel turns, images."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cogsim
from cogsim.benchmarks.rngbench import pairs
from cogsim.benchmarks.rngbench.maze import parser as maze_parser
from cogsim.benchmarks.rngbench.pairs.parser import ParseError, parse_flip
from cogsim.envs import play_scripted


def play(env, policies, seed, rng_seed=0, players=None):
    played = play_scripted(env, policies, seed, rng_seed, reset_options={"players": players} if players else None)
    return played.infos, played.terminated, played.truncated


@pytest.mark.parametrize("shape", [(2, 2), (4, 4), (6, 6)])
def test_oracle_clears_the_board_in_the_optimal_number_of_responses(shape):
    env = cogsim.make("pairs/single", coords="numbers", deal="cogsim", rows=shape[0], cols=shape[1])
    for seed in range(3):
        infos, terminated, _ = play(env, ["oracle"], seed)
        episode = infos[-1]["episode"]
        json.dumps(episode)
        assert terminated and episode["score"] == 1.0 and episode["matched"] == episode["pairs"]
        assert (
            episode["responses"]
            == episode["optimal_responses"]
            == pairs.optimal_responses(pairs.deal(*shape, seed, method="cogsim"))
        )
        assert all(i["parse"] == "ok" for i in infos) and episode["parse_failures"] == episode["invalid"] == 0


def test_random_agent_runs_out_of_budget_on_a_large_board():
    env = cogsim.make("pairs/single", coords="numbers", deal="cogsim", rows=6, cols=6, max_resp_per_pair=2)
    infos, terminated, truncated = play(env, ["random"], 1)
    episode = infos[-1]["episode"]
    assert truncated and not terminated and episode["responses"] == 36 == episode["budget"]
    assert episode["score"] < 1.0
    env = cogsim.make("pairs/single", coords="numbers", deal="cogsim", rows=4, cols=4, max_responses=7)
    assert play(env, ["random"], 1)[0][-1]["episode"]["responses"] == 7


def test_parse_failures_and_invalid_flips_are_counted_separately():
    env = cogsim.make("pairs/single", coords="numbers", deal="cogsim", rows=2, cols=2, max_responses=20)
    env.reset(seed=0)
    board = pairs.deal(2, 2, 0, method="cogsim")
    partner = next((r, c) for r in range(2) for c in range(2) if (r, c) != (0, 0) and board[r, c] == board[0, 0])
    assert env.step("I flip the top-left card")[4]["parse"] == "parse_failure"
    assert env.step("Action: (3, 1)")[4]["parse"] == "invalid"  # out of range
    info = env.step("Action: (1, 1)")[4]
    assert info["parse"] == "ok" and info["parsed"] == [1, 1] and info["outcome"] == "first"
    assert env.step("Action: (1, 1)")[4]["parse"] == "invalid"  # the card already face up
    assert env.step(f"Action: ({partner[0] + 1}, {partner[1] + 1})")[4]["outcome"] == "match"
    assert env.step("Action: (1, 1)")[4]["parse"] == "invalid"  # removed
    for r in range(2):
        for c in range(2):
            if board[r, c] != board[0, 0]:
                _, _, terminated, _, info = env.step(f"Action: ({r + 1}, {c + 1})")
    episode = info["episode"]
    assert terminated and episode["parse_failures"] == 1 and episode["invalid"] == 3 and episode["responses"] == 8


def test_strict_parser():
    assert parse_flip("thinking... Action: (1, 2)\nAction: **(3, 4)**".replace("**(3, 4)**", "(3, 4)")) == (2, 3)
    assert parse_flip("<think>Action: (9, 9)</think>**Action:** (2, 1)") == (1, 0)
    assert parse_flip("Action: (2, 1)", cot=False) == (1, 0)
    for bad, cot in [
        ("Let me see. Action: (2, 1)", False),
        ("Action: 2, 1", True),
        ("(2, 1)", True),
        ("Action: (a, 1)", True),
        ("", True),
    ]:
        with pytest.raises(ParseError):
            parse_flip(bad, cot=cot)
    env = cogsim.make("pairs/single", coords="numbers", deal="cogsim", cot=False)
    env.reset(seed=0)
    assert env.step("I choose. Action: (1, 1)")[4]["parse"] == "parse_failure"


def test_memory_map_lists_revealed_cards_still_on_the_board():
    env = cogsim.make("pairs/single", coords="numbers", deal="cogsim", rows=2, cols=4, memory_map=True)
    env.reset(seed=4)
    board = pairs.deal(2, 4, 4, method="cogsim")
    obs = env.step("Action: (1, 1)")[0]
    assert f"{board[0, 0] + 1:02d} at (1, 1)" in obs["text"]
    assert "Memory map" in obs["text"]
    plain = cogsim.make("pairs/single", coords="numbers", deal="cogsim", rows=2, cols=4)
    plain.reset(seed=4)
    assert "Memory map" not in plain.step("Action: (1, 1)")[0]["text"]


def test_duel_turns_follow_the_rules_and_both_players_see_every_flip():
    env = cogsim.make("pairs/duel", coords="numbers", deal="cogsim", rows=2, cols=2)
    obs, _ = env.reset(seed=0)
    board = pairs.deal(2, 2, 0, method="cogsim")
    cells = [(r, c) for r in range(2) for c in range(2)]
    a = cells[0]
    mismatch = next(x for x in cells if board[x] != board[a])
    match = next(x for x in cells if x != a and board[x] == board[a])
    flip = lambda cell: env.step(f"Action: ({cell[0] + 1}, {cell[1] + 1})")
    assert obs["player"] == 0
    assert flip(a)[0]["player"] == 0
    obs = flip(mismatch)[0]
    assert obs["player"] == 1  # a mismatch passes the turn
    assert obs["text"].count("Your opponent flipped") == 2
    assert flip(a)[0]["player"] == 1
    obs = flip(match)[0]
    assert obs["player"] == 1  # a match keeps it
    others = [x for x in cells if x not in (a, match)]
    flip(others[0])
    *_, terminated, _, info = flip(others[1])
    episode = info["episode"]
    assert terminated and episode["scores"] == [0, 2] and episode["winner"] == 1


def test_duel_between_oracle_and_random_records_players_and_a_winner():
    env = cogsim.make("pairs/duel", coords="numbers", deal="cogsim", rows=4, cols=4)
    infos, terminated, _ = play(env, ["oracle", "random"], 3, players=["oracle", "random"])
    episode = infos[-1]["episode"]
    assert terminated and sum(episode["scores"]) == 8 and episode["players"] == ["oracle", "random"]
    assert episode["winner"] in (0, 1, None)
    assert env.num_players == 2


def test_image_modality_renders_one_board_per_event():
    env = cogsim.make(
        "pairs/single",
        coords="numbers",
        deal="cogsim",
        rows=2,
        cols=4,
        modality="image",
        theme="abstract",
        card_width=24,
    )
    obs, _ = env.reset(seed=1)
    assert len(obs["images"]) == 1 and obs["images"][0].dtype == np.uint8
    first = obs["images"][0]
    obs = env.step("Action: (1, 1)")[0]
    assert len(obs["images"]) == 1 and obs["images"][0].shape == first.shape
    assert np.abs(obs["images"][0].astype(int) - first).sum() > 0  # the flipped card shows its face
    board = pairs.deal(2, 4, 1, method="cogsim")
    assert f"{board[0, 0] + 1:02d}" not in obs["text"].split("board")[0]  # identities are only in the image
    duel = cogsim.make("pairs/duel", coords="numbers", deal="cogsim", rows=2, cols=2, modality="image", card_width=24)
    duel.reset(seed=0)
    infos = [duel.step(duel.scripted_response("oracle", np.random.default_rng(0)))]
    assert infos[0][0]["images"]


def test_bad_options_raise_value_errors_naming_them():
    for options, name in [
        ({"rows": 3, "cols": 3}, "even"),
        ({"theme": "comic"}, "theme"),
        ({"modality": "audio"}, "modality"),
        ({"cot": "yes"}, "cot"),
        ({"max_resp_per_pair": 0}, "max_resp_per_pair"),
        ({"history": "last:4"}, "history"),
    ]:
        with pytest.raises(ValueError, match=name):
            cogsim.make("pairs/single", coords="numbers", deal="cogsim", **options)
    with pytest.raises(ValueError, match="policy"):
        env = cogsim.make("pairs/single", coords="numbers", deal="cogsim")
        env.reset(seed=0)
        env.scripted_response("genius", np.random.default_rng(0))


def test_history_option_sets_the_conversation_policy():
    assert cogsim.make("pairs/single", coords="numbers", deal="cogsim").default_history == "full"
    assert cogsim.make("pairs/single", coords="numbers", deal="cogsim", history="last:5").default_history == "last:5"
    assert {"pairs/single", "pairs/duel", "maze3d/nav"} <= set(cogsim.list_envs())


def test_forgetful_agent_shows_a_memory_gap_that_the_memory_map_closes():
    def mean_score(memory_map):
        env = cogsim.make(
            "pairs/single", coords="numbers", deal="cogsim", rows=6, cols=6, max_resp_per_pair=3, memory_map=memory_map
        )
        return np.mean([play(env, ["forgetful"], seed, rng_seed=seed)[0][-1]["episode"]["score"] for seed in range(8)])

    forgetful, with_map = mean_score(False), mean_score(True)
    assert with_map > forgetful + 0.1
    env = cogsim.make("pairs/single", coords="numbers", deal="cogsim", rows=6, cols=6, memory_map=True)
    infos, terminated, _ = play(env, ["forgetful"], 0)
    assert terminated and all(i["parse"] == "ok" for i in infos)  # it never flips an invalid card


def test_stepping_after_the_end_asks_for_a_reset():
    env = cogsim.make("pairs/single", coords="numbers", deal="cogsim", rows=2, cols=2)
    play(env, ["oracle"], 0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step("Action: (1, 1)")
    maze_env = cogsim.make("maze3d/nav", size=3, modality="text")
    obs, _ = maze_env.reset(seed=0)
    rng = np.random.default_rng(0)
    while not any(maze_env.step(maze_env.scripted_response("oracle", rng))[2:4]):
        pass
    with pytest.raises(RuntimeError, match="reset"):
        maze_env.step("Action: move_forward")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_model_text_is_parsed_or_rejected_with_a_parse_error(response):
    for cot in (True, False):
        for parse in (
            lambda r: parse_flip(r, cot=cot),
            lambda r: maze_parser.parse_action(r, cot=cot, ask_output=True),
        ):
            try:
                parse(response)
            except ParseError:
                pass
            except maze_parser.ParseError:
                pass
    maze_parser.parse_map(response, 5)
