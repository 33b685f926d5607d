"""KidGym against the release (BoBo-Ye/KidGym): step budgets, goal and action texts, the answer
decoder, the turn text (no feedback the release does not give) and prompt templates from a file.
Expected data: data/kidgym_*.json beside this file (their "source" fields say how they were read)."""

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cogsim
from cogsim import _core
from cogsim.benchmarks.kidgym import PAPER_TASKS, TASKS
from cogsim.benchmarks.kidgym.parser import decode_answer, tagged_span

DATA = Path(__file__).parent / "data"
RELEASE = json.loads((DATA / "kidgym_budgets.json").read_text())
BUDGETS = RELEASE["budgets"]
TEMPLATES = json.loads((DATA / "kidgym_templates.json").read_text())["tasks"]
LEVELS = (1, 2, 3)


def test_budgets_are_the_releases_for_every_task_and_level():
    assert sorted(BUDGETS) == sorted(TASKS)
    for name, per_level in BUDGETS.items():
        for level, budget in zip(LEVELS, per_level):
            assert _core.kidgym_default_budget(TASKS[name].core_id, level) == budget, (name, level)
            env = cogsim.make(f"kidgym/{name}", level=level, images=False)
            env.reset(seed=3)
            assert env.state.budget == budget, (name, level)


def test_the_thirteen_families_are_the_releases_and_the_paper_reports_twelve():
    assert {spec.code: name for name, spec in TASKS.items()} == RELEASE["families"]
    assert sorted(PAPER_TASKS) == sorted(set(TASKS) - {"decode"})
    assert sorted(f"kidgym/{name}" for name in TASKS) == [e for e in cogsim.list_envs() if e.startswith("kidgym/")]
    assert TASKS["decode"].capabilities == ("Learning",) and not TASKS["decode"].memory


@pytest.mark.parametrize("level", LEVELS)
def test_decode_is_one_choice_among_the_partner_and_2l_plus_1_others(level):
    """The release's Decode: the code table and the target from the first turn (no 'continue'), one
    'choose the item with label N' per item, the partner among 2L+1 others; the first choice decides."""
    env = cogsim.make("kidgym/decode", level=level, images=False)
    rng = np.random.default_rng(level)
    for seed in range(6):
        obs, _ = env.reset(seed=seed)
        assert len(obs["options"]) == 2 * level + 2 and all(
            o.startswith("choose the item with label ") for o in obs["options"]
        )
        right = decode_answer(env.scripted_response("oracle", rng), obs["options"])
        wrong = "ABCDEFGH"[(right + 1) % len(obs["options"])]
        obs, reward, terminated, truncated, info = env.step(f"<answer>{wrong}</answer>")
        assert terminated and reward == 0.0 and info["episode"]["steps"] == 1 <= info["episode"]["budget"] == level


def _pattern(template: str) -> re.Pattern:
    parts = re.split(r"\{[a-z_0-9]+\}", template)
    return re.compile("(.+?)".join(re.escape(p) for p in parts), re.DOTALL)


def _entry(name: str, level: int) -> dict:
    return next(e for e in TEMPLATES[name] if level in e["levels"])


def _turns(name: str, level: int, seeds=range(4)):
    """(goal line, option texts, started) of every turn of oracle and random episodes."""
    env = cogsim.make(f"kidgym/{name}", level=level, images=False)
    for seed in seeds:
        for policy in ("oracle", "random"):
            obs, _ = env.reset(seed=seed)
            rng = np.random.default_rng(seed)
            while True:
                started = env.state.started or not TASKS[name].memory
                goal = next(line[len("Goal: ") :] for line in obs["text"].splitlines() if line.startswith("Goal: "))
                yield goal, list(obs["options"]), started
                obs, _, terminated, truncated, _ = env.step(env.scripted_response(policy, rng))
                if terminated or truncated:
                    break


@pytest.mark.parametrize("name", sorted(TASKS))
@pytest.mark.parametrize("level", LEVELS)
def test_goal_and_action_texts_are_the_release_templates(name, level):
    entry = _entry(name, level)
    actions = [_pattern(t) for t in entry["actions"].values()]
    for goal, options, started in _turns(name, level):
        template = entry["goal_1"] if (started and entry["goal_1"]) else entry["goal"]
        assert _pattern(template).fullmatch(goal), (name, level, goal)
        for option in options:
            assert any(p.fullmatch(option) for p in actions), (name, level, option)


def test_memory_decode_adapted_wording_is_a_named_option():
    release = cogsim.make("kidgym/memory_decode", level=1, images=False)
    adapted = cogsim.make("kidgym/memory_decode", level=1, images=False, goal_texts="adapted")
    assert "black box in the upper left corner" in release.reset(seed=0)[0]["text"]
    assert "hint bar on the left" in adapted.reset(seed=0)[0]["text"]
    with pytest.raises(ValueError, match="goal_texts must be one of release, adapted"):
        cogsim.make("kidgym/memory_decode", goal_texts="mine")


def test_turn_text_has_no_feedback_unless_asked():
    for feedback in (False, True):
        env = cogsim.make("kidgym/classification", level=2, images=False, feedback=feedback)
        env.reset(seed=1)
        obs, *_ = env.step("A")
        assert ("You chose A" in obs["text"]) is feedback
        obs, *_ = env.step("no letter here at all")
        assert ("named none of the options" in obs["text"]) is feedback


RELEASE_TAG = re.compile(r"<answer>(.*?)</answer>")  # the release's pattern, no flags
TOKENS = [
    "<answer>",
    "</answer>",
    "<ANSWER>",
    "</Answer>",
    "\n",
    "A",
    "B",
    "C",
    " ",
    "x",
    "'pick up the item with label 1'",
    "All",
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=30).map("".join))
def test_the_tag_scan_reads_what_the_releases_pattern_reads(reply):
    match = RELEASE_TAG.search(reply)
    assert tagged_span(reply) == (match.group(1) if match else None)


def _release_decode(answer: str, actions: list[str]):
    """The release's process_answer, restated here as the reference (src/eval/evaluation.py)."""
    match = RELEASE_TAG.search(answer)
    if match:
        answer = match.group(1)
    for i, action in enumerate(actions):
        if f"'{action}'" in answer:
            return i
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[: len(actions)]
    match = re.search(f"\\b([{letters}])\\b", answer) or re.search(f"([{letters}])", answer)
    return letters.index(match.group(1)) if match else None


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=30).map("".join), st.integers(1, 4))
def test_the_decoder_is_the_releases(reply, count):
    actions = [f"pick up the item with label {i}" for i in range(count)]
    assert decode_answer(reply, actions) == _release_decode(reply, actions)


def test_any_case_tags_are_a_named_option():
    actions = ["a", "b", "c"]
    reply = "All of it: C\n<ANSWER>\nB\n</ANSWER>"
    assert decode_answer(reply, actions) == 2  # release: no lowercase tag; "A" of "All" is no word, C is
    assert decode_answer(reply, actions) == _release_decode(reply, actions)
    assert decode_answer(reply, actions, tags="any_case") == 1


def test_a_published_prompt_can_be_loaded_as_a_template(tmp_path):
    template = tmp_path / "turn.txt"
    template.write_text(
        "Step {step} of {max_steps}. {{Task}}: {goal}\nOptions: {actions}\nReply with {letters}.{feedback}"
    )
    env = cogsim.make("kidgym/maze", level=1, images=False, prompt_template=str(template))
    obs, _ = env.reset(seed=2)
    assert obs["text"].startswith("Step 1 of 3. {Task}: There is a diamond") and "Reply with A/" in obs["text"]
    bad = tmp_path / "bad.txt"
    bad.write_text("{goal} {answer_format} {goal.__class__}")
    with pytest.raises(
        ValueError, match=r"unknown placeholder\(s\) \{answer_format\}, \{goal.__class__\}; allowed: \{goal\}"
    ):
        cogsim.make("kidgym/maze", prompt_template=str(bad))
    with pytest.raises(ValueError, match="cannot read"):
        cogsim.make("kidgym/maze", prompt_template=str(tmp_path / "missing.txt"))
    broken = tmp_path / "broken.txt"
    broken.write_text("{goal")
    with pytest.raises(ValueError, match="not a valid template"):
        cogsim.make("kidgym/maze", prompt_template=str(broken))
