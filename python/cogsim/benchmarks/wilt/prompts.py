"""The WILT conversation as the env speaks it: the paper's instruction (or the release's, or one
from a file) and the harness's replies to test cases and guesses."""

from __future__ import annotations

from cogsim.envs.options import load_template

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


def format_number(value: float) -> str:
    return repr(float(value))


def result_reply(point, result: bool, remaining: int) -> str:
    x, y, z = (format_number(v) for v in point)
    return f"({x}, {y}, {z}): {result}. Attempts Remaining: {remaining}"


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


STRICT_DIGITS_REPLY = (
    "Each number must be typed with 3 or fewer digits, not counting the sign and decimal point (e.g. -11.3). "
    "Please provide another test case."
)
