"""Test 4, reflection: a draft answer, one reflection pass, then a re-answer."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from cogsim.benchmarks.cubebench import parser as parsers
from cogsim.benchmarks.cubebench import prompts, release_lines
from cogsim.benchmarks.cubebench.envs.base import answer_line, choice_info, tagged_answer
from cogsim.benchmarks.cubebench.envs.optimal_move import OptimalMoveEnv
from cogsim.benchmarks.cubebench.items import LABELS
from cogsim.envs.base import QuickReply, observation, option_replies
from cogsim.envs.options import choice, flag

REGIMES = ("guided-redacted", "guided-unredacted")


class ReflectionEnv(OptimalMoveEnv):
    """The paper's reflection protocol, three calls on one optimal-move item: a draft answer; one
    guided reflection (told, as in the paper, that its answer did not solve the cube, whatever the
    draft was); a re-answer given the reflection, one line
    ``ANSWER: X``. guided-redacted: the correct option is [REDACTED]; guided-unredacted: the correct
    option's letter is revealed (the oracle upper bound of reflection). Each call has its own system
    prompt (``system_prompt`` changes with the turn) and restates the state: history "current".

    ``reveal_choice`` (default True): the reflection prompt names the draft's letter, as the paper's
    appendix prompt reads; False shows it as [HIDDEN], as the harness's default code path did (the
    harness documents both arms; an unparsed draft is [HIDDEN] either way)."""

    test = "reflection"
    test_options = ("regime", "reveal_choice")
    default_history = "current"
    scripted_policies = ("oracle", "random", "random_then_hint")

    def __init__(self, env_id: str = "", regime: str = "guided-redacted", reveal_choice: bool = True, **options: Any):
        super().__init__(env_id, regime=regime, reveal_choice=reveal_choice, **options)
        given = {"regime": regime, "reveal_choice": reveal_choice}
        self.regime = choice(given, "regime", "guided-redacted", REGIMES)
        self.reveal_choice = flag(given, "reveal_choice", True)

    def _reset(self, seed: int, options: dict) -> dict:
        self.item = self._load_item(seed)
        self.draft: Optional[dict] = None
        self.reflection: Optional[str] = None
        self.system_prompt = self._draft_system_prompt()
        self._decode_reflection_turn(False)
        return self._question()

    def _decode_reflection_turn(self, reflecting: bool) -> None:
        """The line's decoding for the next turn: the older line sampled the reflection at 0.4."""
        decoding = self._decoding()
        if reflecting:
            decoding["temperature"] = release_lines.REFLECTION_TURN_TEMPERATURE[self.release]
        self.metadata = {**self.metadata, "cogsim.decoding": decoding}

    def _step(self, action: str):
        if self.draft is None:
            parsed = self._parse_choice(action, options=self.item["options"])
            self.draft = self._outcome(parsed)
            self.system_prompt = prompts.REFLECTION_SYSTEM
            self._decode_reflection_turn(True)
            return self._turn(self._reflection_prompt()), 0.0, False, False, choice_info(parsed)
        if self.reflection is None:  # free text: any reflection is accepted and passed on verbatim
            self.reflection = (
                action if len(action) <= parsers.MAX_RESPONSE_CHARS else action[: parsers.MAX_RESPONSE_CHARS]
            )
            self.system_prompt = prompts.REANSWER_SYSTEM
            self._decode_reflection_turn(False)
            return self._turn(self._reanswer_prompt()), 0.0, False, False, {"parse": parsers.OK, "parsed": None}
        parsed = self._parse_choice(action)
        final = self._outcome(parsed)
        episode = self._episode(
            regime=self.regime,
            reveal_choice=self.reveal_choice,
            gold=self.item["gold"],
            initial_parse=self.draft["parse"],
            initial_answer=self.draft["answer"],
            initial_correct=self.draft["correct"],
            final_parse=final["parse"],
            final_answer=final["answer"],
            final_correct=final["correct"],
            reflection_chars=len(self.reflection),
        )
        return observation(""), float(final["correct"]), True, False, {**choice_info(parsed), "episode": episode}

    def _turn(self, text: str) -> dict:
        return observation(text, self._images(self.item["facelets"]), self.item["options"])

    def _reflection_prompt(self) -> str:
        correct = (
            prompts.CORRECT_UNREDACTED.format(gold=self.item["gold"])
            if self.regime == "guided-unredacted"
            else prompts.CORRECT_REDACTED
        )
        return prompts.REFLECTION.format(
            state=self._state_block(self.item["facelets"]),
            distance=self.depth,
            options=prompts.option_lines(LABELS, self.item["options"]),
            choice=self._shown_choice(),
            correct_line=correct,
        )

    def _shown_choice(self) -> str:
        answer = self.draft["answer"] if self.draft else None
        return answer if self.reveal_choice and answer in tuple(LABELS) else prompts.HIDDEN_CHOICE

    def _reanswer_prompt(self) -> str:
        return prompts.REANSWER.format(
            state=self._state_block(self.item["facelets"]),
            options=prompts.option_lines(LABELS, self.item["options"]),
            reflection=self.reflection,
        )

    def quick_replies(self) -> tuple[QuickReply, ...]:
        """The draft's options as tagged answers, none for the reflection (free text), the re-answer's as
        its ``ANSWER: X`` line."""
        if self.draft is None or not self._running:
            return super().quick_replies()
        return () if self.reflection is None else option_replies(self.item["options"], answer_line)

    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        self._check_policy(policy)
        gold = self.item["gold"]
        hinted = policy == "oracle" or (policy == "random_then_hint" and self.regime == "guided-unredacted")
        if self.draft is None:
            return tagged_answer(gold if policy == "oracle" else str(rng.choice(list(LABELS))))
        if self.reflection is None:
            return f"The correct option is {gold}." if hinted else "I cannot tell which option was correct."
        if hinted:
            return answer_line(gold)
        if policy == "random_then_hint":
            return answer_line(self.draft["answer"] or "A")
        return answer_line(str(rng.choice(list(LABELS))))
