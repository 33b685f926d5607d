"""Reading a WILT reply: the last "Test Case:" or "Final Guess:" (cogsim's parser and the release's
extraction), and the reply texts scripted agents write. Every pattern runs in linear time."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Union

from cogsim.benchmarks.wilt.prompts import (
    FORMAT_REMINDER,
    INVALID_GUESS_REPLY,
    NUMBERS_REMINDER,
    RELEASE_NO_TEST,
    RELEASE_UNPARSEABLE_TEST,
)

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


def test_case_text(point) -> str:
    return "Test Case: ```({}, {}, {})```".format(*(_short(v) for v in point))


def final_guess_text(source: str) -> str:
    return f"Final Guess: ```{source}```"


def _short(value: float) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)


def describe(parsed: Parsed) -> Optional[dict]:
    if isinstance(parsed, TestCase):
        return {"action": "test", "point": list(parsed.point)}
    if isinstance(parsed, FinalGuess):
        return {"action": "guess", "source": parsed.source}
    return None


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
