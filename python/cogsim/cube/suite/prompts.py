"""Every prompt of Cube Bench, in one place and versioned: a change to any text here must bump
PROMPT_VERSION, which every episode records, so results from different prompt texts never mix."""

from __future__ import annotations

from typing import Sequence

PROMPT_VERSION = "cubebench-prompts/1"

NET_LAYOUT = (
    "The cube is shown as an unfolded net in a fixed pose: Top above Front; Left, Front, Right and Back "
    "in a row; Down below Front. Each face is read row by row as seen from outside the cube."
)
COLOUR_KEY = "Colours: W white, Y yellow, R red, O orange, G green, B blue."
NOTATION = (
    "Moves use Singmaster notation in the face-turn metric: U, D, F, B, L, R turn that face 90 degrees "
    "clockwise as seen looking at the face; a prime (') turns it counter-clockwise; a 2 turns it 180 degrees."
)
DISTANCE = "The distance of a state is the fewest face turns that solve the cube from it."

MODALITIES = ("image+text", "image", "text")


def state_block(modality: str, state_text: str) -> str:
    """How the state is presented in each modality (the image travels beside the text)."""
    if modality == "text":
        return f"{NET_LAYOUT}\n{COLOUR_KEY}\nCube state:\n{state_text}"
    if modality == "image":
        return f"The image shows the cube. {NET_LAYOUT}\n{COLOUR_KEY}"
    return f"The image shows the cube; the text below gives the same state. {NET_LAYOUT}\n{COLOUR_KEY}\nCube state:\n{state_text}"


def option_lines(labels: Sequence[str], options: Sequence[str]) -> str:
    return "\n".join(f"{label}) {text}" for label, text in zip(labels, options))


def choice_format(labels: Sequence[str], idk_label: str | None = None) -> str:
    allowed = ", ".join(labels)
    text = (
        f"Reply with exactly one line of the form ANSWER: X, where X is one of {allowed}. "
        "(X alone or <ANSWER>X</ANSWER> are accepted too; anything else counts as unparseable.)"
    )
    if idk_label:
        text += f" If you are not sure, you may abstain with ANSWER: {idk_label} (or ANSWER: IDK)."
    return text


RECONSTRUCTION = (
    "{layout}\n{colours}\n"
    "Look at the image and write the colours of the Front face as a 3x3 grid, top row first.\n"
    "Reply with exactly three lines of three colour letters separated by single spaces, for example:\n"
    "W G B\nR R O\nY G W\nNothing else: any other text counts as unparseable."
)

VERIFICATION = (
    "{layout}\n{colours}\n"
    "Here is a claimed Front face of the cube in the image, top row first:\n{grid}\n"
    "Does this grid match the Front face in the image exactly?\n"
    "Reply with exactly one line: ANSWER: Yes or ANSWER: No. (Yes or No alone, or <ANSWER>Yes</ANSWER>, "
    "are accepted too; anything else counts as unparseable.)"
)

OPTIMAL_MOVE = (
    "{state}\n{notation}\n{distance}\n"
    "Which one of these moves brings the cube closest to solved (reduces its distance by one)?\n"
    "{options}\n{answer_format}"
)

CLOSED_LOOP_STEP = (
    "{state}\n{notation}\n{distance}\n"
    "Step {step} of solving the cube. The move you choose is applied to the cube. "
    "Which one of these moves makes progress towards solved (reduces the distance by one)?\n"
    "{options}\n{answer_format}"
)

MOVE_EFFECT = (
    "{state}\n{notation}\n{distance}\n"
    "Candidate moves:\n{options}\n"
    "Without applying it, predict what move {query}) {move} would do to the distance to solved.\n"
    "Reply with exactly one line: ANSWER: DECREASE, ANSWER: NO_CHANGE or ANSWER: INCREASE. "
    "(The label alone or <ANSWER>LABEL</ANSWER> are accepted too; anything else counts as unparseable.)"
)

REFLECTION_REDACTED = (
    "Reflect on your previous answer once. For each option, think through how that face turn moves the "
    "stickers and whether the result is closer to solved. Then re-answer: write your reflection, and put "
    "your final answer alone on the last line as ANSWER: X (X one of {labels})."
)

REFLECTION_UNREDACTED = (
    "Reflect on your previous answer once. Guidance: the correct option is {gold}) {gold_move}. Think "
    "through why that face turn brings the cube closer to solved. Then re-answer: write your reflection, "
    "and put your final answer alone on the last line as ANSWER: X (X one of {labels})."
)

RECOVERY_STEP = (
    "{state}\n{notation}\n{distance}\n"
    "Recovery step {step} of at most {budget}: an earlier move took the cube off the solving path. "
    "The move you choose is applied to the cube. Which one of these moves makes progress towards solved?\n"
    "{options}\n{answer_format}"
)

ABSTAIN_OPTION = "I don't know (abstain)"
