"""WILT fidelity: "approximately correct" by the deterministic proxy (agreement with the labelled
examples measured here) and by a model judge built from any agent spec."""

import json
from pathlib import Path

import pytest

import cogsim
from cogsim.agents import Completion, ModelBackend, register_backend
from cogsim.benchmarks.wilt import equivalent
from cogsim.benchmarks.wilt.judge import NEAR, judge_category

EXAMPLES = json.loads((Path(__file__).parent / "data" / "wilt_approx_examples.json").read_text())["examples"]


def predicted(verdict, near) -> str:
    return "Correct" if verdict.equivalent else ("near" if near else "Completely Different")


def expected(category: str) -> str:
    return "near" if category in NEAR else category


def test_proxy_agrees_with_every_labelled_example_and_the_old_rule_does_not():
    verdicts = [equivalent(e["guess"], e["hidden"]) for e in EXAMPLES]
    proxy = [predicted(v, v.approximately_correct) == expected(e["category"]) for v, e in zip(verdicts, EXAMPLES)]
    jaccard = [
        predicted(v, v.jaccard_approximately_correct) == expected(e["category"]) for v, e in zip(verdicts, EXAMPLES)
    ]
    assert sum(proxy) == len(EXAMPLES) == 4  # stated in docs/fidelity.md: 4 of 4
    assert sum(jaccard) == 2  # Jaccard >= 0.9 misses both "near" examples


class ScriptedJudge(ModelBackend):
    prompts: list = []

    def __init__(self, model, **options):
        self.answer = options.get("answer", "Close.\nCategory: Missing Edge Case")

    def complete(self, conversations):
        ScriptedJudge.prompts.append(conversations[0][-1].text)
        return [Completion(self.answer) for _ in conversations]


register_backend("wiltjudge", ScriptedJudge)


@pytest.mark.parametrize(
    "answer, near",
    [
        ("Category: Missing Edge Case", True),
        ("Category: Near-Miss Magnitudes", True),
        ("Not a missing edge case.\nCategory: Completely Different", False),
        (None, False),
    ],
)
def test_model_judge_decides_and_is_named_in_the_episode(answer, near):
    ScriptedJudge.prompts = []
    env = cogsim.make("wilt/lite", rule_index=3, judge="wiltjudge:m", judge_options={"answer": answer})
    env.reset(seed=0)
    _, reward, done, _, info = env.step("Final Guess: ```lambda x, y, z: x < y < z```")
    episode = info["episode"]
    assert done and reward == 0.0 and episode["approx_correct"] is near
    assert episode["approx_method"] == "judge:wiltjudge:m"
    assert "lambda x, y, z: x <= y <= z" in ScriptedJudge.prompts[0] and "x < y < z" in ScriptedJudge.prompts[0]


def test_judge_is_not_asked_about_correct_guesses_and_methods_are_recorded():
    ScriptedJudge.prompts = []
    env = cogsim.make("wilt/lite", rule_index=3, judge="wiltjudge:m")
    env.reset(seed=0)
    _, _, _, _, info = env.step("Final Guess: ```lambda x, y, z: x <= y and y <= z```")
    assert info["episode"]["correct"] and not info["episode"]["approx_correct"] and ScriptedJudge.prompts == []
    for approx, near in (("proxy", True), ("jaccard", False)):
        env = cogsim.make("wilt/lite", rule_index=3, approx=approx)
        env.reset(seed=0)
        _, _, _, _, info = env.step("Final Guess: ```lambda x, y, z: x < y < z```")
        assert info["episode"]["approx_method"] == approx and info["episode"]["approx_correct"] is near
    with pytest.raises(ValueError, match="approx"):
        cogsim.make("wilt/lite", approx="vibes")


def test_judge_reply_parser_takes_the_last_label_and_is_linear():
    assert judge_category("Missing Edge Case? No. Category: Completely Different") == "Completely Different"
    assert judge_category("category: near-miss magnitudes") == "Near-Miss Magnitudes"
    assert judge_category("Category:" + " " * 1_000_000) is None
    assert judge_category("correct " * 200_000) == "Correct"


def test_metrics_name_the_method_behind_the_figure():
    from cogsim.benchmarks.wilt import metrics as wilt_metrics

    env = cogsim.make("wilt/lite", rule_index=3)
    env.reset(seed=0)
    episode = env.step("Final Guess: ```lambda x, y, z: x < y < z```")[4]["episode"]
    row = wilt_metrics.summary_row([{**episode, "num_tests": 0}])
    assert row["approx_method"] == "proxy" and row["approx_correct"].value == 1.0
