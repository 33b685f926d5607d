"""Test 5, closed loop: solve the cube one A-D move per step (optional IDK abstention)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cogsim import cube
from cogsim.benchmarks.cubebench import items as items_mod
from cogsim.benchmarks.cubebench import parser as parsers
from cogsim.benchmarks.cubebench import prompts
from cogsim.benchmarks.cubebench.envs.base import ABSTAIN_LABEL, CubeBenchEnv, choice_info, tagged_answer
from cogsim.benchmarks.cubebench.items import LABELS
from cogsim.cube import Cube
from cogsim.envs.base import observation
from cogsim.envs.options import choice, flag

ABSTAIN_POLICIES = ("teacher_on_abstain", "skip_item")

CREDITS = ("release", "progress", "teacher")


class ClosedLoopEnv(CubeBenchEnv):
    """From a depth-d state, choose one of four moves per step; the chosen move is executed. The
    options hold the teacher's move, one other progress move when there is one, and non-progress
    moves (under layout "release" the newest release's seeded set, whose correct letter is the first
    progress option). ``credit``: "release" is the line's rule. "progress" (the newest line's, and
    cogsim's reading of the paper): any progress move is credited, the teacher replans after a
    non-teacher one, the prompt states the true distance. "teacher" (the older line 1ca7d58): only
    the teacher's move is credited; another progress move is executed uncredited and the episode
    goes on along the teacher's original path; the prompt states the depth less the credited and
    teacher-helped steps. Either way it stops at the first non-progress step or parse failure, when
    solved, or after d decisions. With ``abstention`` a fifth option E (IDK) is offered:
    teacher_on_abstain applies the teacher's move and goes on, skip_item ends the item."""

    test = "closed-loop"
    test_options = ("abstention", "abstain_policy", "credit")

    def __init__(
        self,
        env_id: str = "",
        abstention: bool = False,
        abstain_policy: str = "teacher_on_abstain",
        credit: str = "release",
        **options: Any,
    ):
        super().__init__(env_id, abstention=abstention, abstain_policy=abstain_policy, credit=credit, **options)
        given = {"abstention": abstention, "abstain_policy": abstain_policy, "credit": credit}
        self.credit = choice(given, "credit", "release", CREDITS)
        if credit == "release":
            credit = "progress" if self.newest else "teacher"
        self.credit_rule = credit
        self.abstention = abstention = flag(given, "abstention", False)
        self.abstain_policy = choice(given, "abstain_policy", "teacher_on_abstain", ABSTAIN_POLICIES)
        self.labels = LABELS + (ABSTAIN_LABEL if abstention else "")
        # The paper's step prompt asks for <REASONING> then the answer on the final line; its
        # abstention prompt asks for the answer line alone.
        self.reasoning = not abstention
        self.system_prompt = step_system_prompt(abstention, self.reasoning)

    def _reset(self, seed: int, options: dict) -> dict:
        self.item = self._load_item(seed)
        self.state, self.plan = Cube.from_facelets(self.item["facelets"]), list(self.item["teacher"])
        self.outcomes: list = []
        return self._step_observation()

    def _step_observation(self) -> dict:
        step, facelets = len(self.outcomes), self.state.to_facelets()
        recorded = self.item["steps"][step] if step < len(self.item["steps"]) else None
        if recorded is not None and recorded["facelets"] == facelets and self.plan[0] == self.item["teacher"][step]:
            self.current = recorded  # still on the teacher path: the item already holds this step
        elif self.item.get("layout") == "release":
            self.current = items_mod.release_closed_loop_step(
                self.depth, self.item["seed"], step, self.state, self.plan[0]
            )
        else:
            self.current = items_mod.closed_loop_step(
                self.depth, self.item["seed"], self.item["index"], step, self.state, self.plan[0]
            )
        option_texts = list(self.current["options"]) + ([prompts.ABSTAIN_OPTION] if self.abstention else [])
        text = prompts.STEP.format(
            distance=self._stated_distance(),
            state=self._state_block(facelets),
            options=prompts.option_lines(self.labels, option_texts),
            answer_format=prompts.tag_format(LABELS, idk=self.abstention, reasoning=self.reasoning),
        )
        return observation(text, self._images(facelets), option_texts)

    def _step(self, action: str):
        parsed = self._parse_choice(action, allow_idk=self.abstention, last_line=self.reasoning)
        if not parsed.ok:
            outcome = parsed.status
        elif parsed.value == parsers.IDK:
            outcome = "abstain"
            if self.abstain_policy == "teacher_on_abstain":
                self.state, self.plan = self.state.apply(self.plan[0]), self.plan[1:]
        else:
            outcome = self._execute(self.current["options"][LABELS.index(parsed.value)])
        self.outcomes.append(outcome)
        advance = outcome in ("teacher", "progress") or (
            outcome == "abstain" and self.abstain_policy == "teacher_on_abstain"
        )
        done = not advance or self.state.is_solved() or len(self.outcomes) == self.depth
        info = choice_info(parsed)
        reward = float(outcome in self._credited())
        if not done:
            return self._step_observation(), reward, False, False, info
        info["episode"] = self._summary()
        return observation(""), reward, True, False, info

    def _protocol_options(self) -> dict:
        line_rule = "progress" if self.newest else "teacher"
        return {
            **super()._protocol_options(),
            "credit": "release" if self.credit_rule == line_rule else self.credit_rule,
        }

    def _stated_distance(self) -> int:
        """The distance the step prompt states. The older line states the scramble depth less the
        credited and the teacher-helped (abstained) steps, which is stale after an uncredited
        detour or for a scramble shorter than its depth; under progress credit (the newest line) it
        is the true distance."""
        if self.credit_rule == "teacher":
            helped = self.outcomes.count("abstain") if self.abstain_policy == "teacher_on_abstain" else 0
            return self.depth - self.outcomes.count("teacher") - helped
        return int(cube.distance(self.state))

    def _credited(self) -> tuple:
        return ("teacher",) if self.credit_rule == "teacher" else ("teacher", "progress")

    def _execute(self, chosen: str) -> str:
        """Progress credit: applies a progress move (teacher's: pop the plan; another: replan); a
        non-progress move is not applied and the episode stops there. Teacher credit (the older
        line's step-by-step test): the teacher's move is applied and credited even where an earlier
        detour made it stale; another progress move is applied without credit and the teacher's path
        is NOT replanned (its next move is simply the next one); anything else stops the episode."""
        if self.credit_rule == "teacher":
            if chosen == self.plan[0]:
                self.state, self.plan = self.state.apply(chosen), self.plan[1:]
                return "teacher"
            if self.current["effects"][chosen] != "DECREASE":
                return "wrong"
            self.state, self.plan = self.state.apply(chosen), self.plan[1:]
            return "progress"
        if self.current["effects"][chosen] != "DECREASE":
            return "wrong"
        self.state = self.state.apply(chosen)
        if chosen == self.plan[0]:
            self.plan = self.plan[1:]
            return "teacher"
        self.plan = cube.solve(self.state)
        return "progress"

    def _summary(self) -> dict:
        count = self.outcomes.count
        progress = count("teacher") + count("progress")
        correct = sum(count(o) for o in self._credited())
        parse_failures = count(parsers.PARSE_FAILURE) + count(parsers.INVALID)
        return self._episode(
            abstention=self.abstention,
            abstain_policy=self.abstain_policy if self.abstention else None,
            credit=self.credit_rule,
            steps_total=self.depth,
            outcomes=list(self.outcomes),
            adherent=correct,
            progress_moves=progress,
            teacher_moves=count("teacher"),
            abstained=count("abstain"),
            answered=progress + count("wrong"),
            decisions=len(self.outcomes),
            parse_failures=parse_failures,
            solved=self.state.is_solved(),
            perfect_solve=self.state.is_solved() and correct == self.depth and count("abstain") == 0,
        )

    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        self._check_policy(policy)
        choice = self._oracle_label() if policy == "oracle" else str(rng.choice(list(self.labels)))
        answer = tagged_answer("IDK" if choice == ABSTAIN_LABEL else choice)  # the prompt's abstention answer
        return f"<REASONING>Scripted {policy} choice.</REASONING>\n{answer}" if self.reasoning else answer

    def _oracle_label(self) -> str:
        """The step's gold letter; under teacher credit the teacher's move, which the newest line's
        gold (the first progress option) need not be."""
        options = list(self.current["options"])
        if self.credit_rule == "teacher" and self.plan and self.plan[0] in options:
            return LABELS[options.index(self.plan[0])]
        return self.current["gold"]


def step_system_prompt(abstention: bool, reasoning: bool = False) -> str:
    choices = "A, B, C, D or IDK" if abstention else "A, B, C or D"
    return prompts.STEP_SYSTEM.format(
        choices=choices,
        notation=prompts.NOTATION,
        abstain_rule=prompts.ABSTAIN_RULE if abstention else "",
        output_rule=prompts.STEP_REASONING if reasoning else prompts.STEP_ONE_LINE,
    )
