"""Reading a reply: the integer after the last "Guess:" (any case). A reply is untrusted text of any
length, so the parser is one ``rfind`` and a bounded scan of digits: linear time, no regex."""

from __future__ import annotations

from typing import Optional

MARKER = "guess:"
MAX_DIGITS = 9
_DIGITS = "0123456789"


def format_guess(number: int) -> str:
    """The reply the parser reads (the scripted agents answer with it)."""
    return f"Guess: {number}"


def parse_guess(reply: str) -> Optional[int]:
    """The guessed integer, or None when the reply holds no "Guess: N" with at most 9 digits."""
    text = reply.lower()
    at = text.rfind(MARKER)
    if at < 0:
        return None
    start = at + len(MARKER)
    while start < len(text) and text[start] in " \t":
        start += 1
    sign = 1
    if start < len(text) and text[start] == "-":
        sign, start = -1, start + 1
    end = start
    while end < len(text) and end - start <= MAX_DIGITS and text[end] in _DIGITS:
        end += 1
    if not start < end <= start + MAX_DIGITS:
        return None
    return sign * int(text[start:end])
