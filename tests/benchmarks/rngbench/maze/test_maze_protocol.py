"""3D Maze against the released harness (InternLM/RNGBench 2_3d_maze): generator and seeds, slide
movement, L* and budgets, the per-turn text, transcripts, history window, unreadable answers."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

import cogsim
from cogsim.agents import register_backend
from cogsim.agents.base import Completion, Message, ModelBackend
from cogsim.agents.history import HistoryPolicy
from cogsim.benchmarks.rngbench import maze
from cogsim.benchmarks.rngbench.maze import rules

DATA = Path(__file__).parent / "data"
MAZES = json.loads((DATA / "maze_release_mazes.json").read_text())
TRANSCRIPTS = json.loads((DATA / "maze_release_transcripts.json").read_text())
N, E, S, W = 1, 2, 4, 8


def test_the_data_says_where_it_comes_from():
    for data in (MAZES, TRANSCRIPTS):
        assert "InternLM/RNGBench@" in data["source"] and "2_3d_maze/game.py" in data["source"]


@pytest.mark.parametrize("case", MAZES["mazes"], ids=lambda m: f"{m['maze_type']}-{m['size']}-{m['seed']}")
def test_a_seed_gives_the_release_maze_l_star_and_budget(case):
    m = maze.generate(case["size"], case["seed"], generator=case["maze_type"])
    assert np.array_equal(m.walls, rules.grid_to_walls(case["grid"]))
    assert m.optimal_actions == case["optimal_v5"]
    assert m.step_budget() == case["max_steps"] == max(4 * case["optimal_v5"], 80)
    # an oracle that can only take real slides needs exactly the release's L*
    n = case["size"]
    assert len(rules.shortest_actions(m.walls, 0, 0, 1, (n - 1, n - 1))) == case["optimal_v5"]


def corridor():
    """A 3x3 maze by hand. Row 0: (0,0)-(0,1)-(0,2) open east-west; (0,1) also opens south to
    (1,1); (1,1)-(2,1) open; (0,2)-(1,2)-(2,2) open; everything else walled.

        +--+--+--+
        |        |
        +--+  +  +
        |  |  |  |
        +--+  +  +
        |  |  |  |
        +--+--+--+
    """
    walls = np.full((3, 3), N | E | S | W, np.uint8)

    def open_between(a, b):
        (r1, c1), (r2, c2) = a, b
        if r1 == r2:
            walls[r1, min(c1, c2)] &= 15 ^ E
            walls[r1, max(c1, c2)] &= 15 ^ W
        else:
            walls[min(r1, r2), c1] &= 15 ^ S
            walls[max(r1, r2), c1] &= 15 ^ N

    for a, b in [
        ((0, 0), (0, 1)),
        ((0, 1), (0, 2)),
        ((0, 1), (1, 1)),
        ((1, 1), (2, 1)),
        ((0, 2), (1, 2)),
        ((1, 2), (2, 2)),
    ]:
        open_between(a, b)
    return maze.check_walls(walls)


def test_slide_stops_at_junctions_walls_and_the_goal_by_hand():
    walls = corridor()
    goal = (2, 2)
    # east from (0,0): enters (0,1), which opens south (on the right): a junction, stop there
    assert rules.advance(walls, 0, 0, 1, goal) == [(0, 1)]
    # east from (0,1): (0,2) has its south side open (right of east): stop
    assert rules.advance(walls, 0, 1, 1, goal) == [(0, 2)]
    # south from (0,2): (1,2) has no side opening, keep going; (2,2) is the goal: stop
    assert rules.advance(walls, 0, 2, 2, goal) == [(1, 2), (2, 2)]
    # south from (0,1) to a dead end: slides two cells and stops at the wall
    assert rules.advance(walls, 0, 1, 2, (9, 9)) == [(1, 1), (2, 1)]
    # a wall straight ahead: no movement (a failed action, a wall bump)
    assert rules.advance(walls, 0, 0, 0, goal) == []
    # the cell mode moves one cell only
    assert rules.advance(walls, 0, 2, 2, goal, "cell") == [(1, 2)]
    # L* by hand from (0,0) facing east: forward (to (0,1)), forward (to (0,2)), turn_right, forward (slides to the goal)
    assert rules.optimal_actions(walls, goal) == 4
    assert rules.shortest_actions(walls, 0, 0, 1, goal) == [0, 0, 2, 0]
    assert len(rules.shortest_actions(walls, 0, 0, 1, goal, "cell")) == 5


def test_available_actions_and_the_local_text_by_hand():
    walls = corridor()
    assert rules.available_actions(walls, 0, 0, 0) == ["turn_left", "turn_right"]
    assert rules.available_actions(walls, 0, 0, 1) == ["move_forward", "turn_left", "turn_right"]
    assert rules.local_text(walls, 0, 2, 2, (1, 2)).splitlines() == [
        "Local surroundings (world-aligned, no history shown):",
        "  North: OUT-OF-BOUNDS",
        "  East : OUT-OF-BOUNDS",
        "  South: OPEN (GOAL) ◀ FACING",
        "  West : OPEN",
    ]


def test_budget_example_13x13_release_units_against_cell_units():
    m, cells = maze.generate(13, 2), maze.generate(13, 2, step="cell")
    assert (m.optimal_actions, m.step_budget()) == (46, 184)  # the release's numbers (data file, v6 13x13 seed 2)
    assert cells.optimal_actions > m.optimal_actions and cells.step_budget() == 4 * cells.optimal_actions


def answer(action):
    return f"Thought: following the plan.\nAction: {action}"


def release_text(parts):
    return "\n\n".join(part.rstrip("\n") for part in parts)


@pytest.mark.parametrize("case", TRANSCRIPTS["transcripts"], ids=lambda t: f"{t['maze_type']}-{t['size']}-{t['seed']}")
def test_a_fixed_action_list_gives_the_release_transcript(case):
    env = cogsim.make("maze3d/nav", size=case["size"], generator=case["maze_type"], modality="text")
    obs, _ = env.reset(seed=case["seed"])
    assert env.maze.optimal_actions == case["optimal"]
    assert np.array_equal(env.walls, rules.grid_to_walls(case["grid"]))
    terminated = False
    for record in case["steps"]:
        assert obs["text"] == release_text(record["prompt_texts"])
        obs, reward, terminated, truncated, info = env.step(answer(record["action"]))
        assert (env.row, env.col) == tuple(record["position_after"])
        assert "NESW"[env.heading] == record["facing_after"]
        assert info["action_ok"] == record["success"]
        assert int(env.visited.sum()) == record["explored"] and env.actions_taken == record["step_count"]
        assert terminated == record["game_over"]
    assert terminated == case["reached_goal"]
    if terminated:
        prefix = case["next_prompt_texts"][0]
        assert (
            obs["text"]
            == f"{prefix}Game over! You reached the goal in {len(case['steps'])} steps! Optimal was {case['optimal']} actions."
        )
        episode = info["episode"]
        assert episode["collisions"] == case["wall_bumps"] and episode["turns"] == case["turns"]
        assert episode["visited_cells"] == case["explored"] and episode["steps"] == len(case["steps"])
    else:
        assert obs["text"] == release_text(case["next_prompt_texts"])
        assert env.collisions == case["wall_bumps"] and env.turns == case["turns"]
    visited = {tuple(cell) for cell in case["path_history"]}
    assert {tuple(cell) for cell in np.argwhere(env.visited)} == visited


def test_the_cell_option_keeps_one_cell_moves():
    env = cogsim.make("maze3d/nav", size=7, generator="v6", step="cell", modality="text")
    env.reset(seed=2)
    env.step(answer("turn_right"))
    env.step(answer("move_forward"))
    assert (env.row, env.col) == (1, 0)  # the release's slide goes on to (3, 0) (first transcript)
    assert env.maze.optimal_actions == len(rules.shortest_actions(env.walls, 0, 0, 1, env.goal, "cell"))


def test_history_window_counts_as_the_release_trims():
    # the release keeps system + messages[1:][-2K:], the current user message included
    past = [(Message("user", f"u{i}"), f"a{i}") for i in range(1, 5)]
    current = Message("user", "u5")

    def release_trim(k):
        history = []
        for user, reply in past:
            history += [user.text, reply]
        history.append(current.text)
        return ["sys"] + history[-(2 * k) :]

    for k in (1, 2, 3, 4, 5, 10):
        got = HistoryPolicy.parse(f"window:{k}").messages("sys", past, current)
        assert [m.text for m in got] == release_trim(k)
    assert [m.text for m in HistoryPolicy.parse("window:0").messages("sys", past, current)][-3:] == ["u4", "a4", "u5"]
    assert cogsim.make("maze3d/nav", history="last:3").default_history == "window:3"
    assert cogsim.make("maze3d/nav", history="last:3", window="exchanges").default_history == "last:3"


def test_unreadable_answers_are_re_asked_then_a_random_available_action_is_taken():
    env = cogsim.make("maze3d/nav", size=7, modality="text")
    env.reset(seed=2)
    available = env.available_actions()
    for attempt in (1, 2):
        obs, _, terminated, truncated, info = env.step("I am not sure.")
        assert info["parse"] == "parse_failure" and info["retry"] == attempt and env.actions_taken == 0
        assert obs["text"].startswith(
            "Invalid action. Please choose exactly one of: move_forward, turn_left, turn_right."
        )
    obs, _, _, _, info = env.step("still nothing")
    assert info["fallback"] == random.Random(0).choice(available) and env.actions_taken == 1
    # the cogsim option: a failed parse costs a step and does nothing
    env = cogsim.make("maze3d/nav", size=7, modality="text", parse_failure="step")
    env.reset(seed=2)
    obs, _, _, _, info = env.step("I am not sure.")
    assert env.actions_taken == 1 and (env.row, env.col, env.heading) == (0, 0, 1) and "Steps taken: 1" in obs["text"]


class _Replies(ModelBackend):
    """Answers "nonsense", then turns left; keeps every prompt it was given."""

    prompts: list = []

    def __init__(self, model: str, **options):
        self.replies = iter(["nonsense", "Action: turn_left", "Action: turn_left"])

    def complete(self, conversations, decoding=None):
        _Replies.prompts += [list(c) for c in conversations]
        return [Completion(next(self.replies)) for _ in conversations]


register_backend("mazereplies", _Replies)


def test_the_prompt_after_a_parse_failure_carries_no_new_frame_as_the_release_sends(tmp_path):
    """The release's re-ask (runner.py ``_choose_action``) appends the unreadable reply and a text-only
    "Invalid action" user message to the conversation: the failed turn's frame stays in the history
    and the next frame comes with the next step. cogsim's runner sends the same."""
    from cogsim.harness import RunConfig, Task, run

    run(RunConfig([Task("maze3d/nav", 1, {"size": 5})], ["mazereplies:m"], max_turns=3), tmp_path)
    first, retry, after = _Replies.prompts
    assert [(m.role, len(m.images)) for m in first] == [("system", 0), ("user", 1)]
    assert [(m.role, len(m.images)) for m in retry] == [("system", 0), ("user", 1), ("assistant", 0), ("user", 0)]
    assert retry[1].images[0] is first[1].images[0] and retry[2].text == "nonsense"
    assert retry[3].text.startswith("Invalid action. Please choose exactly one of:")
    assert [len(m.images) for m in after if m.role == "user"] == [1, 0, 1]  # the turn taken shows a new frame


def test_the_release_parser_reads_what_the_release_reads():
    from cogsim.benchmarks.rngbench.maze.parser import ParseError, parse_action

    read = lambda text: parse_action(text, parser="release")
    assert read("Thought: move_forward is blocked.\nAction: turn_right") == 2
    assert read("Action: forward") == 0
    assert read("I will rotate left now") == 1
    assert read("<think>Action: turn_left</think>Action: Move Forward") == 0
    assert read("<reasoning>turn right</reasoning>Action: turn_left") == 1
    with pytest.raises(ParseError):
        read("Action: jump")


def test_the_minimap_shows_what_the_release_uncovers():
    walls = corridor()
    visited = np.zeros((3, 3), bool)
    visited[0, 0] = True
    assert rules.revealed_cells(walls, visited).tolist() == [
        [True, True, False],
        [False, False, False],
        [False, False, False],
    ]
    visited[0, 1] = True  # standing on (0,1) uncovers (0,2) and (1,1)
    assert rules.revealed_cells(walls, visited).tolist() == [
        [True, True, True],
        [False, True, False],
        [False, False, False],
    ]
    sides = rules.revealed_sides(walls, visited)
    assert sides[1, 2, 3] and not sides[2, 2, 0]  # the wall between (1,1) and (1,2) is drawn, (1,2)-(2,2) not yet


def test_the_3d_turn_carries_the_release_label_and_info_block():
    case = TRANSCRIPTS["transcripts"][0]
    env = cogsim.make("maze3d/nav", size=case["size"], generator=case["maze_type"])
    obs, _ = env.reset(seed=case["seed"])
    info_block = case["steps"][0]["prompt_texts"][-1]
    assert obs["text"] == "Current 3D View:\n\n" + info_block and len(obs["images"]) == 1
    assert obs["images"][0].shape == (420, 640, 3)  # the release's frame, its HUD drawn in
    obs, *_ = env.step(answer(case["steps"][0]["action"]))
    second = case["steps"][1]["prompt_texts"]
    assert obs["text"] == release_text([second[0], "Current 3D View:", second[-1]])
    env.close()


def test_a_published_prompt_can_be_loaded_from_a_file(tmp_path):
    path = tmp_path / "prompt.txt"
    path.write_text(
        "Maze Config: {maze_size}×{maze_size} cells | Vision: {vision_range} cells | Max Steps: {max_steps}"
    )
    env = cogsim.make("maze3d/nav", size=7, modality="text", prompt_file=str(path))
    env.reset(seed=2)
    assert env.system_prompt == "Maze Config: 7×7 cells | Vision: 4 cells | Max Steps: 112"
    path.write_text("{unknown}")
    with pytest.raises(ValueError, match="prompt_file"):
        cogsim.make("maze3d/nav", size=7, modality="text", prompt_file=str(path)).reset(seed=2)
    with pytest.raises(ValueError, match="prompt_file"):
        cogsim.make("maze3d/nav", prompt_file=str(tmp_path / "missing.txt"))
    default = cogsim.make("maze3d/nav", size=7, modality="text")
    default.reset(seed=2)
    assert default.system_prompt.endswith("Maze Config: 7×7 cells | Vision: 4 cells | Max Steps: 112")
    assert "Action: <move_forward|turn_left|turn_right>" in default.system_prompt
