"""Every prompt of Cube Bench, in one place and versioned: a change to any text here must bump
PROMPT_VERSION, which every episode records, so results from different prompt texts never mix.

The texts follow the protocol of the paper's released harness (github.com/dana-23/cube-bench,
``prompts/prompts.yaml``, ``prompts/reflection.yaml`` and the move-effect / abstention prompts
written in its evaluators): a system prompt stating the task, decision rule and strict output
format, and a user prompt carrying the state, the current distance where the paper states it,
the candidate moves as ``A: <move>`` lines and the answer line to write. The newest release line
adds the verification claims (a statement about the Front face, affirmative or negated, in three
surface forms per polarity), the invariance sweep's prompt and the image+text prompt without the
authority rule (``image+text-no-authority``); cogsim states each in its own words.
"""

from __future__ import annotations

from typing import Sequence

from cogsim.benchmarks.cubebench.cogsim_look import COLOUR_RGB

PROMPT_VERSION = "cubebench-prompts/5"

NET_LAYOUT = (
    "The cube is shown as an unfolded net in a fixed pose: Top above Front; Left, Front, Right and Back "
    "in a row; Down below Front. Each face is read row by row, left to right, top row first, as seen from "
    "outside the cube."
)
COLOUR_KEY = "Colours: W white, Y yellow, R red, O orange, G green, B blue."
NOTATION = (
    "Notation (face-turn metric): X = a 90-degree clockwise quarter-turn of face X (as seen looking at "
    "that face); X' = a 90-degree counter-clockwise quarter-turn; X2 = a single 180-degree half-turn."
)
AUTHORITY = "If the text and the image disagree, the textual state is authoritative; the image is for reference only."
SAME_STATE = "The text and the image show the same state; read it from either or both."

MODALITIES = ("image+text", "image", "text", "image+text-no-authority")


def state_block(modality: str, state_text: str) -> str:
    """How the state is presented in each modality (the image travels beside the text)."""
    if modality == "text":
        return f"{NET_LAYOUT}\n{COLOUR_KEY}\nTextual cube state (authoritative):\n{state_text}"
    if modality == "image":
        return f"No text is provided: infer the state from the image of the cube. {NET_LAYOUT}\n{COLOUR_KEY}"
    if modality == "image+text-no-authority":
        return f"{NET_LAYOUT}\n{COLOUR_KEY}\n{SAME_STATE}\nTextual cube state:\n{state_text}"
    return f"{NET_LAYOUT}\n{COLOUR_KEY}\n{AUTHORITY}\nTextual cube state (authoritative):\n{state_text}"


def option_lines(labels: Sequence[str], options: Sequence[str]) -> str:
    return "\n".join(f"{label}: {text}" for label, text in zip(labels, options))


def tag_format(labels: Sequence[str], idk: bool = False, reasoning: bool = False) -> str:
    """The strict tagged answer of the move-choice tests: one line, or (``reasoning``) a
    <REASONING> block followed by the answer alone on the final line."""
    allowed = "/".join(labels) + ("/IDK" if idk else "")
    if reasoning:
        return (
            f"Show your reasoning in <REASONING>...</REASONING>, then output the final answer alone on the last "
            f"line as:\n<ANSWER> X </ANSWER>\nwhere X is one of {allowed}."
        )
    return f"Reply with exactly one line:\n<ANSWER> X </ANSWER>\nwhere X is one of {allowed}. No other text."


# -- 1. face reconstruction (paper: Cube Face Reconstruction) -----------------------------------------
_NAMES = {"W": "White", "Y": "Yellow", "R": "Red", "O": "Orange", "B": "Blue", "G": "Green"}
# The paper lists the sticker colours with their RGB values; these are the values our renderer draws.
STICKER_RGB = "\n".join(f"  - {name}: {COLOUR_RGB[letter]}" for letter, name in _NAMES.items())
RECONSTRUCTION_SYSTEM = (
    "You are a precise AI assistant with advanced image analysis capabilities.\n"
    "The sticker colours and their RGB values in the image are:\n" + STICKER_RGB + "\n"
    "When given the cube-net image:\n"
    "  1. Locate the 'Front' face (the centre of the net).\n"
    "  2. Extract its 3*3 sticker colours, row by row.\n"
    "  3. Verify each cell by cross-referencing its RGB against the table above.\n"
    "  4. Output strictly in this format:\n"
    "ANSWER:\n"
    "Row 1: [Color1, Color2, Color3]\n"
    "Row 2: [Color4, Color5, Color6]\n"
    "Row 3: [Color7, Color8, Color9]\n"
    "  5. Finally, append exactly this line: Answer verified for correctness.\n"
    "Each colour is one of White, Yellow, Red, Orange, Green, Blue (or its initial W, Y, R, O, G, B).\n"
    "Do not include your reasoning; anything else counts as unparseable."
)
RECONSTRUCTION = (
    "Here is the image of the Rubik's Cube laid out in a net diagram. The front face is labeled as 'Front'. "
    "Please analyze the image and report the colors on the front face in a 3*3 grid.\n{layout}\n{colours}"
)

# -- 2. cross-modal verification ---------------------------------------------------------------------
VERIFICATION_SYSTEM = (
    "You are a specialized Rubik's Cube verification assistant with independent textual and visual analysis "
    "capabilities. You are given two separate inputs: (1) a textual representation of the front face of a "
    "3x3x3 Rubik's Cube, and (2) an image of a Rubik's Cube showing all its faces. Your tasks are:\n"
    "  1. Independently identify the front face in the image.\n"
    "  2. Compare the nine colour positions on the front face from the image with the provided textual "
    "representation. Do not assume the text is derived from or automatically matches the image.\n"
    "  3. If all nine positions match exactly in colour, respond with 'Answer: Yes'. If any position does not "
    "match, respond with 'Answer: No'.\n"
    "Always perform the verification independently; do not default to 'Answer: Yes' without a thorough comparison."
)
VERIFICATION = (
    "1. A textual representation of the front face of a 3x3x3 Rubik's Cube (top row first):\n{grid}\n"
    "2. An image of a Rubik's Cube showing all its faces.\n{layout}\n{colours}\n\n"
    "Task:\n"
    "  - Determine the front face of the Rubik's Cube in the image.\n"
    "  - Compare the colours of the front face with the provided textual representation.\n"
    "  - Output 'Answer: Yes' if they match exactly in all nine positions, or 'Answer: No' if there is any "
    "mismatch. Reply with that one line only."
)

# The newest release's verification: a claim about the Front face, true or false. Three surface forms
# per polarity (the cell's form is (index // 4) % 3); {grid} is the Front face's rows.
CLAIMS = {
    "affirmative": (
        "The Front face of the cube in the image is exactly this grid:\n{grid}",
        "The grid below shows the Front face of the pictured cube, all nine stickers as they are:\n{grid}",
        "All nine stickers of the pictured cube's Front face are as this grid says:\n{grid}",
    ),
    "negated": (
        "The Front face of the cube in the image is NOT this grid:\n{grid}",
        "The grid below does NOT show the Front face of the pictured cube (at least one sticker differs):\n{grid}",
        "At least one of the nine stickers of the pictured cube's Front face differs from this grid:\n{grid}",
    ),
}
CLAIM_SYSTEM = (
    "You are a specialized Rubik's Cube verification assistant with independent textual and visual analysis "
    "capabilities. You are given (1) an image of a Rubik's Cube showing all its faces and (2) a claim about the "
    "front face of that cube. Your tasks are:\n"
    "  1. Independently identify the front face in the image.\n"
    "  2. Read the claim carefully, including whether it says the face matches the grid or that it does not. Do "
    "not assume the claim is true, nor that its grid was taken from the image.\n"
    "  3. Compare the nine colour positions of the front face in the image with the grid in the claim.\n"
    "  4. If the claim is true, respond with 'Answer: Yes'; if it is false, respond with 'Answer: No'.\n"
    "'Answer: Yes' means the claim is correct, which is not the same as the two matching: check whether the claim "
    "is stated affirmatively or negatively before you answer."
)
CLAIM = (
    "1. An image of a Rubik's Cube showing all its faces.\n{layout}\n{colours}\n"
    "2. A claim about the front face of that cube (rows top first):\n{claim}\n\n"
    "Task:\n"
    "  - Determine the front face of the Rubik's Cube in the image.\n"
    "  - Decide whether the claim above is true or false.\n"
    "  - Output 'Answer: Yes' if the claim is true, or 'Answer: No' if it is false. Reply with that one line only."
)

# -- the invariance sweep (newest release line): one text, four image variants -------------------------
INVARIANCE_SYSTEM = (
    "You are given an image of a Rubik's Cube net and a multiple-choice question, together with a textual "
    "serialization of the same state. If the image and the text disagree (for example recoloured stickers), "
    "follow the text. Choose exactly one option, A, B, C or D, and answer with the tag <ANSWER> A </ANSWER> or "
    "the line 'ANSWER: A', one letter only."
)
INVARIANCE = (
    "Textual state:\n{state}\n\n"
    "The cube was scrambled with {depth} move(s). Which next move follows the inverse of the scramble (the "
    "teacher's path back to solved)?\n\n{options}\n\n"
    "Answer with exactly one letter (A-D): <ANSWER> A </ANSWER> or 'ANSWER: A'."
)


def lettered_options(labels: Sequence[str], options: Sequence[str]) -> str:
    """Options as ``A) <move>`` lines (the invariance sweep's layout)."""
    return "\n".join(f"{label}) {text}" for label, text in zip(labels, options))


# -- 3. optimal move prediction (paper: prediction, image+text / image / text) -----------------------
OPTIMAL_MOVE_SYSTEM = (
    "You are an expert Rubik's Cube solver. You will be given the cube state and four candidate moves (A-D). "
    "The cube is exactly {distance} move(s) from solved. Choose the single option whose move brings the cube "
    "one move closer to solved ({target} move(s) from solved).\n"
    "Contract: exactly ONE of A/B/C/D is correct. Output EXACTLY one of A, B, C or D wrapped in <ANSWER> tags, "
    "nothing else: no explanations and no move strings.\n"
    "{notation}\n"
    "Faces are identified by their centre colours.\n"
    "Decision procedure (internal only): interpret the state, mentally apply each candidate, select the one "
    "that reduces the distance; if a tie somehow occurs, break it by letter: A < B < C < D."
)
OPTIMAL_MOVE = "{state}\n\nCandidate moves:\n{options}\n\n{answer_format}"

# -- 4. reflection-guided re-answering (paper: Guided-Redacted / Guided-Unredacted) ------------------
REFLECTION_SYSTEM = (
    "You are an expert Rubik's Cube solver. The cube has 6 faces, each a 3x3 grid of colours read left to "
    "right, top row first: Front (F), Back (B), Left (L), Right (R), Up (U) and Down (D).\n"
    "You previously answered the following multiple-choice question incorrectly.\n"
    "Your task is to reflect on your mistake, understand why it occurred, and improve your reasoning.\n"
    "Complete the following steps clearly and concisely:\n"
    "1. Explain why you answered incorrectly.\n"
    "2. List keywords describing your mistake type from most general to most specific.\n"
    "3. Solve the problem again step-by-step using the correct answer provided.\n"
    "4. Write detailed instructions to avoid making this mistake again (no more than 200 words).\n"
    "5. Provide general advice to improve your performance on similar problems in the future."
)
REFLECTION = (
    "The cube's state was:\n{state}\n"
    "The cube was {distance} move(s) away from being solved.\n"
    "The four options were:\n{options}\n"
    "You chose the option: {choice}, which did not solve the cube.\n"
    "{correct_line}"
)
CORRECT_REDACTED = "The correct solution was option: [REDACTED]. Correct answer is hidden, to avoid answer leakage into the reflection."
CORRECT_UNREDACTED = "The correct solution was option: {gold}."
HIDDEN_CHOICE = "[HIDDEN]"

REANSWER_SYSTEM = (
    "You are an expert Rubik's-Cube assistant.\n"
    "Allowed moves: F B L R U D with optional ' and 2 (e.g., R, U', F2). Centres never move.\n"
    "If an image is attached, treat the text state as authoritative.\n"
    "You are in a RE-ANSWER phase: use the provided reflection to avoid the prior mistake.\n"
    "Return exactly ONE line in the format: ANSWER: A|B|C|D\n"
    "Do NOT include explanations, quotes, JSON, or extra text."
)
REANSWER = (
    "{state}\n\nCandidate moves:\n{options}\n\nReflection:\n{reflection}\n\n"
    "Respond EXACTLY as: ANSWER: A  or ANSWER: B  or ANSWER: C  or ANSWER: D"
)

# -- 5. closed-loop step-by-step (and 7. the learning-curve steps) -----------------------------------
STEP_SYSTEM = (
    "You are an expert Rubik's Cube solver. Your task is to pick exactly ONE move ({choices}) that best "
    "improves the cube toward solved.\n"
    "Context: each message states how many moves the cube is from solved under God's distance (face-turn metric). "
    "You receive a textual cube state (ground truth) and an image (for reference only); the text is authoritative.\n"
    "Decision rule: for each candidate, internally simulate the move on the textual state and estimate the "
    "resulting distance d1; if any candidate solves the cube, choose it; otherwise choose the lowest d1; break "
    "ties by letter: A < B < C < D.{abstain_rule}\n"
    "{notation}\n"
    "{output_rule}"
)
STEP_ONE_LINE = "Output format (STRICT): return exactly one line containing only <ANSWER> X </ANSWER>. No explanations."
STEP_REASONING = (
    "Output format (STRICT): first show your step-by-step reasoning inside <REASONING>...</REASONING> tags, walking "
    "through each candidate and its estimated d1. Then, on the final line, output exactly the answer tag "
    "<ANSWER> X </ANSWER>; nothing may follow it."
)
ABSTAIN_RULE = " If you are less than 50% confident, abstain with IDK."
STEP = "The cube is {distance} move(s) away from being solved.\n\n{state}\n\nCandidate moves:\n{options}\n\n{answer_format}"
ABSTAIN_OPTION = "I don't know (abstain)"

# -- 6. causal move-effect ---------------------------------------------------------------------------
MOVE_EFFECT_SYSTEM = (
    "You are an expert Rubik's Cube evaluator. The cube is scrambled.\n"
    "For EACH option (A-D), label how it changes distance-to-solved: DECREASE, NO_CHANGE, INCREASE.\n"
    "Rules:\n- The textual cube state is ground truth.\n- Use the centres to map colours to faces.\n"
    "- Output exactly four lines <A> ... </A> ... <D> ... </D>\n"
    "{notation}"
)
MOVE_EFFECT = (
    "Face centres:\n{centres}\n\n{state}\n\nCandidate moves:\n{options}\n\n"
    "Output exactly:\n"
    "<A> DECREASE|NO_CHANGE|INCREASE </A>\n<B> DECREASE|NO_CHANGE|INCREASE </B>\n"
    "<C> DECREASE|NO_CHANGE|INCREASE </C>\n<D> DECREASE|NO_CHANGE|INCREASE </D>"
)
