"""Reading a Matching Pairs reply: the strict flip parsers (and ``format_flip``, the reply they read).
Every parser here scans the reply with str.find and bounded loops: linear time on any input."""

from __future__ import annotations

from typing import Optional

from cogsim.benchmarks.rngbench.pairs.prompts import (
    _ASCII_LETTERS,
    COL_LETTERS,
    ROW_LETTERS,
    card_label,
    card_symbol,
    coordinate,
)


class ParseError(ValueError):
    """A response the strict parser rejects; the message says what was expected."""


def format_flip(row: int, col: int, coords: str = "numbers") -> str:
    return f"Action: {coordinate(row, col, coords)}"


# -- linear-time scanning ------------------------------------------------------------------------
def strip_think(text: str, ignore_case: bool = False) -> str:
    """Removes every <think>...</think> block (leftmost, shortest, non-overlapping, as a lazy
    regex would); an unclosed <think> is left in place. One pass of str.find: linear time."""
    haystack = text.lower() if ignore_case and len(text.lower()) == len(text) else text
    pieces, start = [], 0
    while True:
        open_at = haystack.find("<think>", start)
        if open_at < 0:
            break
        close_at = haystack.find("</think>", open_at + 7)
        if close_at < 0:
            break
        pieces.append(text[start:open_at])
        start = close_at + 8
    pieces.append(text[start:])
    return "".join(pieces)


def _skip(text: str, at: int, chars: Optional[str] = None) -> int:
    """First index from ``at`` that is not whitespace (chars=None) or not in ``chars``."""
    n = len(text)
    if chars is None:
        while at < n and text[at].isspace():
            at += 1
    else:
        while at < n and text[at] in chars:
            at += 1
    return at


def _marker_end(text: str, at: int) -> int:
    """If an `Action:` marker (any case, optional ** around the word, spaces before the colon)
    has its word at ``at``, the index after its colon, else -1."""
    if at > 0 and text[at - 1] in _ASCII_LETTERS:
        return -1
    end = _skip(text, _skip(text, at + 6, "*"))
    return end + 1 if end < len(text) and text[end] == ":" else -1


def last_action_end(text: str) -> int:
    """The index just after the colon of the last `Action:` marker, or -1. Scans the occurrences of
    "action" from the end; each check looks only at the stars and spaces after its word."""
    lowered = text.lower()
    if len(lowered) != len(text):  # a few characters change length when lower-cased; fold ASCII only
        lowered = "".join(ch.lower() if ch.isascii() else ch for ch in text)
    at = len(text)
    while True:
        at = lowered.rfind("action", 0, at)
        if at < 0:
            return -1
        end = _marker_end(text, at)
        if end >= 0:
            return end


def _letter_coordinate(text: str, at: int) -> Optional[tuple[int, int]]:
    """A lower-case row letter and an upper-case column letter (spaces allowed between), after
    optional spaces and stars, not followed by another ASCII letter."""
    at = _skip(text, _skip(text, _skip(text, at), "*"))
    if at >= len(text) or not ("a" <= text[at] <= "z"):
        return None
    row = ord(text[at]) - ord("a")
    at = _skip(text, at + 1)
    if at >= len(text) or not ("A" <= text[at] <= "Z"):
        return None
    col = ord(text[at]) - ord("A")
    if at + 1 < len(text) and text[at + 1] in _ASCII_LETTERS:
        return None
    return row, col


def _number(text: str, at: int) -> tuple[Optional[int], int]:
    """1 to 3 decimal digits at ``at`` (not 4 or more), and the index after them."""
    end = at
    while end < len(text) and end - at < 4 and text[end].isdecimal():
        end += 1
    if not 1 <= end - at <= 3:
        return None, at
    return int(text[at:end]), end


def _number_coordinate(text: str, at: int) -> tuple[Optional[tuple[int, int]], int]:
    """`(row, column)` after optional spaces and stars; returns ((row, col) 1-based, end) or (None, at)."""
    at = _skip(text, _skip(text, _skip(text, at), "*"))
    if at >= len(text) or text[at] != "(":
        return None, at
    row, at = _number(text, _skip(text, at + 1))
    if row is None:
        return None, at
    at = _skip(text, at)
    if at >= len(text) or text[at] != ",":
        return None, at
    col, at = _number(text, _skip(text, at + 1))
    if col is None:
        return None, at
    at = _skip(text, at)
    if at >= len(text) or text[at] != ")":
        return None, at
    return (row, col), at + 1


def parse_letters(text: str, rows: int, cols: int) -> tuple[int, int]:
    """The released parser: (row, col), 0-based, from the coordinate right after the LAST `Action:`
    (after removing <think> blocks). Same rule with or without chain of thought. A coordinate off
    the board is a parse failure, as in the release. Raises ParseError."""
    body = strip_think(text)
    end = last_action_end(body)
    if end < 0:
        raise ParseError("no `Action:` line; end the answer with `Action: <coordinate>`, e.g. `Action: cD`")
    found = _letter_coordinate(body, end)
    if found is None:
        raise ParseError("`Action:` must be followed by a row letter and a column letter, e.g. `Action: cD`")
    row, col = found
    if not (row < rows and col < cols):
        raise ParseError(
            f"{ROW_LETTERS[row]}{COL_LETTERS[col]} is off the board: rows a..{ROW_LETTERS[rows - 1]}, "
            f"columns A..{COL_LETTERS[cols - 1]}"
        )
    return row, col


def parse_flip(text: str, cot: bool = True, coords: str = "numbers", rows: int = 26, cols: int = 26) -> tuple[int, int]:
    """(row, col), 0-based, of a response. coords="letters": the released parser (parse_letters).
    coords="numbers": CoT: the coordinate right after the last `Action:`; direct: the response must
    be exactly that line; the range is checked by the game (invalid, not a parse failure). Raises
    ParseError."""
    if coords == "letters":
        return parse_letters(text, rows, cols)
    body = strip_think(text, ignore_case=True)
    if not cot:
        body = body.strip()
        at = _skip(body, 0, "*")
        end = _marker_end(body, at) if body[at : at + 6].lower() == "action" else -1
        found, at = _number_coordinate(body, end) if end >= 0 else (None, 0)
        if found is None or _skip(body, _skip(body, at), "*") != len(body):
            raise ParseError("direct mode expects exactly one line `Action: (row, column)`")
    else:
        end = last_action_end(body)
        if end < 0:
            raise ParseError("no `Action:` line; end the answer with `Action: (row, column)`")
        found, _ = _number_coordinate(body, end)
        if found is None:
            raise ParseError("`Action:` must be followed by a coordinate `(row, column)` of two whole numbers")
    return found[0] - 1, found[1] - 1


def describe_flip(
    who: str, row: int, col: int, identity: Optional[int], coords: str = "numbers", pairs: int = 0
) -> str:
    if identity is None:
        shows = ""
    else:
        shows = f": it shows {card_symbol(identity, pairs) if coords == 'letters' else card_label(identity)}"
    return f"{who} flipped {coordinate(row, col, coords)}{shows}."
