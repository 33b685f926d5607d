"""maze3d/nav: scripted agents, budget, the strict parser, ask-output Traj-Match, views and options."""

from __future__ import annotations

import json

import numpy as np
import pytest

import cogsim
from cogsim.benchmarks.rngbench import maze
from cogsim.benchmarks.rngbench.maze import parser as reply_parser
from cogsim.benchmarks.rngbench.maze import prompts
from cogsim.envs import play_scripted


def play(env, policy, seed, rng_seed=0):
    played = play_scripted(env, policy, seed, rng_seed)
    return played.infos, played.observations, played.terminated, played.truncated


@pytest.mark.parametrize("size", [5, 9, 15])
def test_oracle_reaches_the_goal_in_exactly_l_star_steps(size):
    env = cogsim.make("maze3d/nav", size=size, modality="text")
    for seed in range(3):
        infos, _, terminated, _ = play(env, "oracle", seed)
        episode = infos[-1]["episode"]
        json.dumps(episode)
        assert terminated and episode["success"]
        assert episode["steps"] == episode["optimal_steps"] == maze.generate(size, seed).optimal_actions
        assert episode["efficiency"] == 1.0 and episode["collisions"] == 0
        assert episode["budget"] == max(80, 4 * episode["optimal_steps"])


def test_explorer_never_collides_and_random_runs_out_of_budget():
    env = cogsim.make("maze3d/nav", size=9, modality="text")
    episode = play(env, "explorer", 2)[0][-1]["episode"]
    assert episode["collisions"] == 0 and episode["steps"] >= episode["optimal_steps"]
    infos, _, terminated, truncated = play(cogsim.make("maze3d/nav", size=15, modality="text"), "random", 2)
    episode = infos[-1]["episode"]
    assert truncated and not terminated and not episode["success"] and episode["steps"] == episode["budget"]
    assert episode["efficiency"] is None and 0 < episode["explore"] < 1 and episode["collisions"] > 0


def test_parse_failures_do_not_move_but_use_the_budget():
    # cogsim's rule (parse_failure="step"); the release's re-ask rule is in tests/benchmarks/rngbench/maze/test_maze_protocol.py
    env = cogsim.make("maze3d/nav", size=5, modality="text", max_steps=3, parse_failure="step")
    env.reset(seed=0)
    assert env.step("go north")[4]["parse"] == "parse_failure"
    info = env.step("Action: jump")[4]
    assert info["parse"] == "parse_failure"
    obs, _, terminated, truncated, info = env.step("Action: turn_left")
    assert truncated and info["parsed"] == "turn_left"
    assert info["episode"]["parse_failures"] == 2 and info["episode"]["steps"] == 3


def test_strict_action_parser():
    assert reply_parser.parse_action("I'll go. Action: turn_left\nAction: **move_forward**") == 0
    assert reply_parser.parse_action("<think>Action: turn_left</think>Action: `turn_right`") == 2
    assert reply_parser.parse_action("Action: move_forward", cot=False) == 0
    assert reply_parser.parse_action("Map:\n3?\n??\nAction: turn_left", cot=False, ask_output=True) == 1
    for bad, cot in [
        ("Go. Action: move_forward", False),
        ("move_forward", True),
        ("Action: forward", True),
        ("Action:", True),
    ]:
        with pytest.raises(reply_parser.ParseError):
            reply_parser.parse_action(bad, cot=cot)


def test_traj_match_by_hand():
    walls = np.array([[9, 3], [12, 6]], np.uint8)
    visited = np.array([[True, True], [False, False]])
    assert reply_parser.traj_match(reply_parser.parse_map("Map:\n93\n??", 2), walls, visited) == 1.0
    assert reply_parser.traj_match(reply_parser.parse_map("Map:\n9?\nff", 2), walls, visited) == 0.5
    assert (
        reply_parser.traj_match(reply_parser.parse_map("Map:\n1b\n??", 2), walls, visited) == 6 / 8
    )  # each cell gets its west side wrong
    assert reply_parser.traj_match(None, walls, visited) == 0.0
    assert reply_parser.parse_map("Map:\n9\n??", 2) is None


def test_ask_output_mode_scores_the_oracle_map_perfectly():
    env = cogsim.make("maze3d/nav", size=5, modality="text", ask_output=True)
    episode = play(env, "oracle", 1)[0][-1]["episode"]
    assert episode["traj_match"] == 1.0
    assert play(env, "random", 1)[0][-1]["episode"]["traj_match"] == 0.0


def test_symbolic_view_describes_the_corridor_ahead():
    walls = np.full((4, 4), 15, np.uint8)
    walls[0, :3] &= ~np.uint8(2)  # corridor along row 0
    walls[0, 1:] &= ~np.uint8(8)
    view = prompts.symbolic_view(walls, 0, 0, 1, (0, 3), vision_range=4)
    assert view.splitlines() == [
        "Here: wall on the left, wall on the right, open ahead.",
        "1 cell ahead: wall on the left, wall on the right, open ahead.",
        "2 cells ahead: wall on the left, wall on the right, open ahead.",
        "3 cells ahead: wall on the left, wall on the right, wall ahead. The goal is here.",
    ]
    assert prompts.symbolic_view(walls, 0, 0, 1, (3, 3), vision_range=1).endswith("too dark to see.")


def test_memory_map_is_the_oracle_condition():
    env = cogsim.make("maze3d/nav", size=5, modality="text", memory_map=True)
    obs, _ = env.reset(seed=0)
    assert "Memory map" in obs["text"] and "You are at row 1, column 1, facing east." in obs["text"]
    assert "Memory map" not in cogsim.make("maze3d/nav", size=5, modality="text").reset(seed=0)[0]["text"]


def test_image_modalities_render_frames_and_the_minimap():
    env = cogsim.make("maze3d/nav", size=5, image_size=64, minimap=True, wall_tags=True)
    obs, _ = env.reset(seed=0)
    assert len(obs["images"]) == 2 and all(i.shape == (64, 64, 3) and i.dtype == np.uint8 for i in obs["images"])
    before = obs["images"][0]
    obs = env.step("Action: turn_right")[0]
    assert np.abs(obs["images"][0].astype(int) - before).mean() > 1  # the view turned
    patch = cogsim.make("maze3d/nav", size=5, modality="patch", image_size=64)
    assert patch.reset(seed=0)[0]["images"][0].shape == (64, 64, 3)
    assert cogsim.make("maze3d/nav", size=5, modality="text").reset(seed=0)[0]["images"] == ()


def test_options_are_validated_and_history_is_kept():
    assert cogsim.make("maze3d/nav", history="last:3").default_history == "window:3"  # the release's trim
    assert cogsim.make("maze3d/nav", history="last:3", window="exchanges").default_history == "last:3"
    for options, name in [
        ({"size": 1}, "size"),
        ({"size": 6}, "size"),
        ({"generator": "prim"}, "generator"),
        ({"step": "run"}, "step"),
        ({"parser": "loose"}, "parser"),
        ({"parse_failure": "skip"}, "parse_failure"),
        ({"modality": "vr"}, "modality"),
        ({"loop_rate": 2}, "loop_rate"),
        ({"history": "some"}, "history"),
        ({"minimap": 1}, "minimap"),
    ]:
        with pytest.raises(ValueError, match=name):
            cogsim.make("maze3d/nav", **options)


def test_forgetful_explorer_with_the_memory_map_is_the_explorer():
    def actions(policy, memory_map, seed, size=11):
        env = cogsim.make("maze3d/nav", size=size, modality="text", memory_map=memory_map)
        infos = play(env, policy, seed)[0]
        return [i["parsed"] for i in infos], infos[-1]["episode"]

    differs = False
    for seed in range(4):
        explorer, _ = actions("explorer", False, seed)
        assert actions("forgetful", True, seed)[0] == explorer
        forgetful, episode = actions("forgetful", False, seed)
        assert episode["collisions"] == 0  # the side ahead is always freshly seen
        differs |= forgetful != explorer
    assert differs


def test_memory_map_drawing_by_hand():
    walls = np.array([[9, 3], [12, 6]], np.uint8)
    seen = np.ones((2, 2, 4), bool)
    seen[1, 1, 1] = False  # the goal cell's east side: unseen
    drawing = prompts.memory_map(walls, seen, np.ones((2, 2), bool), 0, 0, 1, (1, 1)).splitlines()[1:6]
    assert drawing == ["+-+-+", "|> .|", "+ + +", "|. G?", "+-+-+"]
