"""KidGym prompts: a common preamble, the goal, the lettered action list; three variants.

``zero_shot``   the preamble, goal and actions; answer with one letter.
``cot``         the same, asking for reasoning in <think>...</think> and the letter in <answer>...</answer>
                (lowercase tags on one line: what the release's decoder reads).
``in_context``  zero-shot plus one fully worked example episode of the same task and level (its frames
                are sent before the current one, each step with its options, answer and reason).

What is the KidGym release's, word for word: the option list ``A) 'action1' B) 'action2' ...`` and the
letter list ``A/B/C`` (``decode.format_options``, ``decode.letter_list``), the goal and action texts
(``tasks``), and the one preamble sentence it keeps (as a comment in its ``eval/prompt.py``) that
applies to high-level play: ``MEMORY_NOTE``. Its worked examples (``examples/<task>/info.json``) give
per step the goal, the options, the chosen action and a reason naming the letter and the quoted
action ("..., so the next action should be B: 'put the item from backpack A into the basket with
label 3'."), which is the style of our example reasons.

Readings (the paper's prompt text is not in the release): the rest of ``PREAMBLE`` is ours and states
the layout facts the release's frames rely on (hint bar, backpack slots, number labels, roman
numerals, high-level actions); the release's other kept sentence, about facing an item with the red
arrow before interacting, concerns its low-level actions and is left out. The CoT instruction wording
and the in-context layout (example frames first, then "Example step k" lines) are ours too. The
decoder reads lowercase ``<answer>`` tags on one line, as the release's does (``answer_tags="any_case"``
for any case). A turn's text can be replaced by a template file (``prompt_template``, placeholders in
``TEMPLATE_FIELDS``), e.g. the paper's published prompt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from cogsim.benchmarks.kidgym.parser import format_options, letter_list
from cogsim.envs import options
from cogsim.envs.options import Template

VARIANTS = ("zero_shot", "cot", "in_context")

PREAMBLE = (
    "You are an agent in a 2D grid world. Each image shows the scene: the play area in the middle, a hint bar "
    "on the left and your backpack at the bottom, whose slots are lettered A, B, C, ... from the left. Items in "
    "the scene carry number labels and target positions carry roman numerals. Your character moves by itself "
    "when you choose a high-level action; you only decide which action to take. At each step choose exactly one "
    "action from the list of available actions."
)
MEMORY_NOTE = (
    "If multiple images are provided, all but the latest image represent previous states of the environment, "
    "while the last image shows the current state."
)
ANSWER_FORMAT = {
    "zero_shot": "Answer with the letter of your action only.",
    "in_context": "Answer with the letter of your action only.",
    "cot": "First think step by step inside <think>...</think>, then give the letter of your action inside <answer>...</answer>.",
}


def check_variant(variant: str) -> str:
    if variant not in VARIANTS:
        raise ValueError(f"prompt must be one of {', '.join(VARIANTS)}, got {variant!r}")
    return variant


def system_prompt(variant: str, memory: bool) -> str:
    parts = [PREAMBLE, MEMORY_NOTE] if memory else [PREAMBLE]
    return " ".join(parts + [ANSWER_FORMAT[check_variant(variant)]])


def turn_text(goal: str, actions: list[str], feedback: str = "", state_note: str = "") -> str:
    lines = []
    if feedback:
        lines.append(feedback)
    lines.append(f"Goal: {goal}")
    if state_note:
        lines.append(state_note)
    lines.append(f"Actions: {format_options(actions)}")
    lines.append(f"Choose one of {letter_list(len(actions))}.")
    return "\n".join(lines)


# Placeholders a turn template may use: the goal, the lettered options ("A) 'x' B) 'y'"), the letters
# ("A/B"), the backpack in words (mazes; else empty), feedback on the last answer (empty unless
# feedback=True), the step number and the budget.
TEMPLATE_FIELDS = ("goal", "actions", "letters", "backpack", "feedback", "step", "max_steps")


def load_template(source) -> Template:
    """A turn template: a path to a text file, or the recorded content of one (a run's config). Every
    placeholder must be a plain ``{name}`` of TEMPLATE_FIELDS (write ``{{`` and ``}}`` for literal braces)."""
    return options.load_template(source, TEMPLATE_FIELDS, "prompt_template")


def fill_template(template: Template, goal: str, actions: list[str], backpack: str, feedback: str, state) -> str:
    return template.fill(
        goal=goal,
        actions=format_options(actions),
        letters=letter_list(len(actions)),
        backpack=backpack,
        feedback=feedback,
        step=int(state.steps) + 1,
        max_steps=int(state.budget),
    )


@dataclass
class WorkedExample:
    """One episode played by the oracle: a frame per step, with the options, the answer and a reason."""

    goal: str
    frames: list[np.ndarray] = field(default_factory=list)
    steps: list[tuple[list[str], str, str]] = field(default_factory=list)  # (options, letter, reason)

    def text(self) -> str:
        lines = [
            "Here is a fully worked example of this task (its images come first, one per step, before the current image).",
            f"Example goal: {self.goal}",
        ]
        for number, (texts, letter, reason) in enumerate(self.steps, start=1):
            lines.append(f"Example step {number} (image {number}): Actions: {format_options(texts)}")
            lines.append(f"Answer: {letter}. Reason: {reason}")
        lines.append("Now the real task.")
        return "\n".join(lines)


def scripted_answer(variant: str, letter: str, action_text: str, why: Optional[str] = None) -> str:
    if variant == "cot":
        return f"<think>{why or 'This action moves me toward the goal.'}</think>\n<answer>{letter}</answer>"
    return letter
