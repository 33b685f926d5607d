"""The WILT conversation: the paper's instruction, the response parser and the harness replies."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Union

from cogsim._template import load_template

INSTRUCTION = (
    "You are an AI tasked with discovering a hidden rule that takes three numbers as input and returns a boolean. "
    "These numbers can be any float or integer number that can be typed in 3 or fewer digits, not including signs "
    "and decimal characters (e.g. -11.3 is a valid value). In each response, you will take one of two actions:\n\n"
    '1. Provide a single test case to observe the output of a rule (e.g. "Test Case: ```(1, 2, 3)```" which '
    "corresponds to x=1, y=2, z=3. In this case only provide one test case.\n"
    '2. Provide a final "guess" in the form of a python lambda function (e.g. "Final Guess: '
    "```lambda x,y,z: x < y < z```\"). You only get to select this action one time, so don't use it unless you "
    "are confident or are forced to.\n\n"
    "You will have up to {max_attempts} attempts at test cases, and you will have exactly one attempt at guessing "
    "the final function. You should prioritize getting the rule as correct as possible, since an incorrect answer "
    "will get no points. You should therefore not guess the function unless you are quite confident, or if you "
    "are very close to running out of attempts.\n\n"
    "You must return your responses in the format laid out above at the very bottom of your message. For example, "
    'if you want to submit a test case, you must conclude with the string "Test Case: ```(x,y,z)```", where x,y,z '
    "are replaced with your guesses. If you want to submit a final guess, you must conclude with the string "
    '"Final Guess: ```<function>```" where <function> is replaced with a python lambda function. Do not include '
    "any comments or additional text on the same lines as these two things. If it's helpful to include reasoning "
    "about your thought process, or reflections upon previous outcomes, feel free to do so, since your test case "
    "and final guess will be parsed out of your response as long as they follow the above formats. \n"
)

FORMAT_REMINDER = (
    "Please make sure your test and final guess are wrapped in backticks as instructed, e.g. "
    "Test Case: ```(0,0,0)``` and Final Guess: ```lambda x,y,z: x < y < z```"
)
NUMBERS_REMINDER = "Please provide exactly three numbers for the test case."
MAX_ATTEMPTS_REPLY = "Maximum attempts reached. Please make a guess."
CORRECT_REPLY = "Congratulations! Your guess is correct."
WRONG_REPLY = "Sorry, that's not the correct rule."
INVALID_GUESS_REPLY = "Invalid lambda function."

MAX_RESPONSE_CHARS = 200_000
_NUMBER = r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"  # ASCII digits; no quadratic backtracking
MAX_TEST_CASE_CHARS = 400
# Labels may be bold (**Final Guess:** or **Final Guess**:); the answer itself is never touched, since
# ``**`` inside a lambda is Python's power operator.
# one optional run of spaces before the colon (two adjacent ones would backtrack quadratically on spaces)
_MARKERS = re.compile(r"(test\s*case|final\s*guess)(?:\s*(?:\*\*|__))?\s*:\s*(?:\*\*|__)?", re.IGNORECASE | re.ASCII)
_TRIPLE = re.compile(rf"^\(?\s*({_NUMBER})\s*,\s*({_NUMBER})\s*,\s*({_NUMBER})\s*\)?", re.ASCII)


@dataclass(frozen=True)
class TestCase:
    point: tuple[float, float, float]
    typed: tuple[str, str, str]


@dataclass(frozen=True)
class FinalGuess:
    source: str


@dataclass(frozen=True)
class ParseFailure:
    reason: str
    reply: str


Parsed = Union[TestCase, FinalGuess, ParseFailure]


def _after_marker(text: str) -> str:
    """The answer text following a marker: the first code span or fenced block, else the rest of the line."""
    text = text.lstrip()
    fence = re.match(r"`{3,}(?:[A-Za-z]*\n)?(.*?)`{3,}", text, re.DOTALL) or re.match(r"`+(.*?)`+", text, re.DOTALL)
    if fence:
        return fence.group(1).strip()
    return text.split("\n", 1)[0].strip()


def count_digits(typed: str) -> int:
    mantissa = re.split(r"[eE]", typed)[0]
    return sum(ch.isdigit() for ch in mantissa)


def parse_response(text: str, strict_inputs: bool = False) -> Parsed:
    """Reads the last "Test Case:" or "Final Guess:" of a response. Tolerates markdown bold, code
    spans and fenced blocks. ``strict_inputs`` enforces the prompt's limit of 3 typed digits per
    number (signs and decimal point excluded) and plain decimal notation."""
    if not isinstance(text, str):
        raise TypeError(f"response must be a str, got {type(text).__name__}")
    text = text[-MAX_RESPONSE_CHARS:]
    markers = list(_MARKERS.finditer(text))
    if not markers:
        return ParseFailure("no 'Test Case:' or 'Final Guess:' found", FORMAT_REMINDER)
    last = markers[-1]
    body = _after_marker(text[last.end() :])
    if last.group(1).lower().startswith("final"):
        if not body:
            return ParseFailure("empty final guess", INVALID_GUESS_REPLY)
        return FinalGuess(body)
    match = _TRIPLE.match(body.strip()[:MAX_TEST_CASE_CHARS])
    if not match:
        return ParseFailure("test case is not three numbers", NUMBERS_REMINDER)
    typed = match.groups()
    try:
        point = tuple(float(t) for t in typed)
    except ValueError:  # pragma: no cover - the pattern only admits numbers
        return ParseFailure("test case is not three numbers", NUMBERS_REMINDER)
    if any(p != p or p in (float("inf"), float("-inf")) for p in point):
        return ParseFailure("test case values must be finite", NUMBERS_REMINDER)
    if strict_inputs:
        bad = [t for t in typed if count_digits(t) > 3 or "e" in t.lower()]
        if bad:
            return ParseFailure(
                f"values {bad} have more than 3 digits",
                "Each number must be typed with 3 or fewer digits, not counting the sign and decimal point "
                "(e.g. -11.3). Please provide another test case.",
            )
    return TestCase(point, typed)  # type: ignore[arg-type]


def format_number(value: float) -> str:
    return repr(float(value))


def result_reply(point, result: bool, remaining: int) -> str:
    x, y, z = (format_number(v) for v in point)
    return f"({x}, {y}, {z}): {result}. Attempts Remaining: {remaining}"


def test_case_text(point) -> str:
    return "Test Case: ```({}, {}, {})```".format(*(_short(v) for v in point))


def final_guess_text(source: str) -> str:
    return f"Final Guess: ```{source}```"


def _short(value: float) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)


def swap_prompt(tests: list, max_attempts: int) -> str:
    """The one-turn test-swap prompt: another agent's test cases, stripped of reasoning."""
    lines = [
        INSTRUCTION.format(max_attempts=max_attempts),
        "",
        "Another player already used the test cases below on the hidden rule. You have no test cases left; "
        "reply with your Final Guess.",
    ]
    lines += [f"({format_number(x)}, {format_number(y)}, {format_number(z)}): {bool(r)}" for x, y, z, r in tests]
    return "\n".join(lines)


def first_prompt(max_attempts: int) -> str:
    return INSTRUCTION.format(max_attempts=max_attempts)


def describe(parsed: Parsed) -> Optional[dict]:
    if isinstance(parsed, TestCase):
        return {"action": "test", "point": list(parsed.point)}
    if isinstance(parsed, FinalGuess):
        return {"action": "guess", "source": parsed.source}
    return None


# ---------------------------------------------------------------------------------------------------
# The release's episode rules (RiotGames/WILT, harness/llm_reasoning_harness.py, interact_with_llm and
# its helpers), the default protocol. The instruction below is cogsim's own wording with the
# structure and instructions of the release's prompts/instruction.txt (step-by-step reasoning in every
# reply, one test at a time, unique tests, one final guess, answer format at the bottom, reasons for
# each test). ``load_prompt`` reads another text (e.g. the published prompt) from a file.

RELEASE_INSTRUCTION = (
    "Your task is to find a hidden rule. The rule takes three numbers, x, y and z, and returns True or False. "
    "The numbers may be integers or floats that can be written with at most 3 digits, not counting the sign or "
    "the decimal point (-11.3 is allowed). In every reply, first explain step by step how you plan to go on, "
    "then take exactly one of these two actions:\n\n"
    '1. Ask for one test case and see the rule\'s output on it, e.g. "Test Case: ```(1, 2, 3)```" for x=1, '
    "y=2, z=3. Ask for a single test case per reply.\n"
    '2. Give your final guess as a Python lambda function, e.g. "Final Guess: ```lambda x,y,z: x < y < z```". '
    "You can do this only once, so do it when you are confident or have no choice left.\n\n"
    "You have at most {max_attempts} test cases and exactly one final guess. Every test case you send should "
    "differ from the ones you already tried: the rule is deterministic and always gives the same answer for "
    "the same numbers. A wrong final guess scores nothing, so aim for the exact rule and do not guess early "
    "unless you are sure or nearly out of test cases.\n\n"
    "Put your action at the very end of your reply, in the format above: to test, end with "
    '"Test Case: ```(x,y,z)```" with your three numbers in place of x,y,z; to guess, end with '
    '"Final Guess: ```<function>```" with a Python lambda function in place of <function>. Nothing else may '
    "stand on the line of the test case or of the final guess.\n\n"
    "Explain the reasoning behind each test: what it checks and why you chose it.\n"
)

PROMPT_PLACEHOLDERS = ("{max_attempts}",)
RELEASE_MAX_ATTEMPTS_REPLY = MAX_ATTEMPTS_REPLY  # "Maximum attempts reached. Please make a guess."
RELEASE_FORMAT_COMPLAINT = (
    "Please make sure to send your response in the format specified, where the string 'Test Case:' or "
    "'Final Guess:' appears, followed by your response wrapped in triple backticks, e.g. "
    "'Test Case: ```(0,0,0)```' or 'Final Guess: ```lambda x: x```'."
)
RELEASE_WRAP_COMPLAINT = "Please wrap your function in backticks, e.g., 'Final Guess: ```lambda x, y, z: True```'."
RELEASE_UNPARSEABLE_TEST = "Unable to parse test case."
RELEASE_NO_TEST = "Looks like you didn't provide a test case."
RELEASE_ABORT_GUESS = "Aborting."
RELEASE_ABORT = "Aborting..."
CORRECT_POINTS = 1000


def load_prompt(source, max_attempts: int) -> str:
    """An instruction text from a file (or a run's recorded copy of one). The one placeholder,
    ``{max_attempts}``, is replaced by the test budget (a text without it, such as the published prompt
    with its literal "30", is used as is); no other brace is interpreted."""
    template = load_template(source, ("max_attempts",), "prompt_file", syntax="literal")
    text = template.fill(max_attempts=max_attempts)
    if not text.strip():
        raise ValueError("prompt_file: the instruction text is empty")
    return text


def release_numbers_reply(count: int = 3) -> str:
    return f"Please provide exactly {count} numbers for the test case."


def release_result_reply(point, result: bool, remaining: int) -> str:
    """The release's per-test feedback; ``remaining`` counts this test as not yet used (30 on the first)."""
    return (
        f"Result for input ({', '.join(str(float(v)) for v in point)}): {bool(result)}. Attempts Remaining: {remaining}"
    )


def release_correct_reply(points: int = CORRECT_POINTS) -> str:
    return f"Congratulations! Your guess is correct. SCORE: {points}. SIZE_PRINCIPLE_SCORE: 0"


def release_wrong_reply(hidden_source: str) -> str:
    return f"Sorry, that's not the correct rule. The rule was {hidden_source}. SCORE: 0"


def release_kind(text: str) -> str:
    """What the release reads a reply as: "empty", "guess" (contains "final guess:" or "### final guess",
    checked first), "test" (contains "test case:") or "other"."""
    if not text:
        return "empty"
    lower = text.lower()
    if "final guess:" in lower or "### final guess" in lower:
        return "guess"
    if "test case:" in lower:
        return "test"
    return "other"


def _first_parenthesized(text: str) -> Optional[str]:
    """The content of the first "(...)" with no newline inside (the release's ``\\((.*?)\\)`` without
    DOTALL), found in one left-to-right pass."""
    pos = 0
    while True:
        start = text.find("(", pos)
        if start < 0:
            return None
        close = text.find(")", start + 1)
        newline = text.find("\n", start + 1)
        if close < 0:
            return None
        if newline < 0 or close < newline:
            return text[start + 1 : close]
        pos = newline + 1  # every "(" before this newline meets the newline first too


def release_test_point(text: str) -> Union[tuple, str]:
    """The release's reading of a test-case reply: a tuple of floats, or the feedback line for a reply it
    cannot use. Numbers are what Python's float() accepts, comma separated, in the first parentheses after
    the last "test case:"."""
    start = text.lower().rfind("test case:")
    inner = _first_parenthesized(text[start:])
    if inner is None:
        return RELEASE_NO_TEST
    try:
        return tuple(float(part) for part in inner.split(","))
    except ValueError:
        return RELEASE_UNPARSEABLE_TEST


STRICT_DIGITS_REPLY = (
    "Each number must be typed with 3 or fewer digits, not counting the sign and decimal point (e.g. -11.3). "
    "Please provide another test case."
)


def release_typed_short(text: str) -> bool:
    """``strict_inputs`` under the release protocol: every number of the test case is plain decimal with at
    most 3 digits."""
    start = text.lower().rfind("test case:")
    inner = _first_parenthesized(text[start:]) or ""
    for part in inner.split(","):
        typed = part.strip()
        if "e" in typed.lower() or "_" in typed or count_digits(typed) > 3 or not any(c.isdigit() for c in typed):
            return False
    return True


def _fenced(tail: str) -> Optional[str]:
    """The release's triple-backtick pattern (```, optional "python", the code, ```): the stripped code,
    "" when the pattern matches only whitespace, None when it does not match."""
    fence = tail.find("```")
    if fence < 0:
        return None
    body = fence + 3
    for start in (body + 6, body) if tail.startswith("python", body) else (body,):
        rest = tail[start:]
        first = len(rest) - len(rest.lstrip())  # the code starts at the first non-space character
        close = rest.find("```", first + 1) if first < len(rest) else -1
        if close >= 0:
            return rest[first:close].strip()
        if first > 0 and rest.startswith("```", first):
            return ""  # only whitespace between the fences
    return None


def _ticked(tail: str) -> Optional[str]:
    """The release's single-backtick pattern (a run of backticks, the code, backticks)."""
    tick = tail.find("`")
    if tick < 0:
        return None
    run = tick
    while run < len(tail) and tail[run] == "`":
        run += 1
    close = tail.find("`", run + 1) if run < len(tail) else -1
    if close >= 0:
        return tail[run:close].strip()
    return "`" if run - tick >= 3 else None  # the pattern then matches inside the run itself


def release_guess_text(text: str) -> Optional[str]:
    """The release's reading of a final-guess reply: the code after the last "final guess", from the
    first triple-backtick block (an optional "python" tag dropped), else from the first backtick span;
    None when there is none or it is blank. A few str.find scans: linear in the reply."""
    start = text.lower().rfind("final guess")
    tail = text[start:]
    guess = _fenced(tail)
    if guess is None:
        guess = _ticked(tail)
    return guess or None
