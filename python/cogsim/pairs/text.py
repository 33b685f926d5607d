"""Text of Matching Pairs: the task prompt, the text board, the memory map, and the strict parsers.

Two coordinate styles (the env's ``coords`` option):
  "letters" (default, the released harness): a row letter a, b, c, ... and a column letter A, B, C, ...,
      written together ("cD" = third row, fourth column); answers end with ``Action: cD``; the text
      board is a grid of bracketed cells ([*] face down, [ ] removed, [7] a card's symbol).
  "numbers" (cogsim's earlier style): 1-based ``Action: (row, column)`` and a numbered grid
      (?? face down, -- removed, 07 a card's label).
Every parser here scans the reply with str.find and bounded loops: linear time on any input.
"""

from __future__ import annotations

import string
from typing import Optional

import numpy as np

from cogsim.pairs._pairs import FACE_UP, REMOVED

COORDS = ("letters", "numbers")
ROW_LETTERS, COL_LETTERS = string.ascii_lowercase, string.ascii_uppercase
# The released board's card symbols: digits, then upper-case, then lower-case letters (62 in all);
# a board with more pairs than that numbers its cards 0, 1, 2, ... instead.
SYMBOLS = string.digits + string.ascii_uppercase + string.ascii_lowercase
_ASCII_LETTERS = frozenset(string.ascii_letters)


class ParseError(ValueError):
    """A response the strict parser rejects; the message says what was expected."""


def card_label(identity: int) -> str:
    """A card's label on the numbered board (coords="numbers")."""
    return f"{identity + 1:02d}"


def card_symbol(identity: int, pairs: int) -> str:
    """A card's symbol on the released board (coords="letters"): SYMBOLS[identity] up to 62 pairs,
    else the identity in decimal."""
    return SYMBOLS[identity] if pairs <= len(SYMBOLS) else str(identity)


def coordinate(row: int, col: int, coords: str = "letters") -> str:
    """0-based (row, col) as the players write it: "cD" or "(3, 4)"."""
    if coords == "letters":
        return f"{ROW_LETTERS[row]}{COL_LETTERS[col]}"
    return f"({row + 1}, {col + 1})"


def check_coords(coords: str, rows: int, cols: int) -> str:
    if coords not in COORDS:
        raise ValueError(f"coords must be one of {', '.join(COORDS)}, got {coords!r}")
    if coords == "letters" and max(rows, cols) > len(ROW_LETTERS):
        raise ValueError(f"coords='letters' names at most {len(ROW_LETTERS)} rows and columns, got {rows}x{cols}")
    return coords


def task_prompt(
    rows: int,
    cols: int,
    budget: int,
    modality: str,
    cot: bool,
    duel: bool,
    coords: str = "letters",
    max_retries: Optional[int] = None,
) -> str:
    pairs = rows * cols // 2
    lines = [
        f"You are playing Matching Pairs on a board of {rows} rows x {cols} columns: {pairs} pairs of cards lie face down.",
        "Each response flips ONE card. Two flips make a turn: if the two cards show the same picture they are removed "
        "(a match); otherwise both are turned face down again after you have seen them.",
        "Cards you have seen are not shown again: remember where each picture is.",
    ]
    if coords == "letters":
        if modality == "text":
            lines.append(
                "On the board, [*] is a face-down card (the only kind you may flip), [ ] an empty slot whose pair "
                "was removed, and any other symbol a card that is face up right now."
            )
        else:
            lines.append(
                "Each image shows the board: card backs are face down, empty slots were removed; rows and columns "
                "are lettered on its edges."
            )
        lines.append(
            "A coordinate is a row letter (a, b, c, ...) followed by a column letter (A, B, C, ...): "
            "cD is row c, column D."
        )
    elif modality == "text":
        lines.append(
            "On the board, ?? is a face-down card, -- a removed card, and a number is a face-up card's picture."
        )
    else:
        lines.append("Each image shows the board; rows and columns are numbered on its edges.")
    if duel:
        lines.append(
            "You play against an opponent on the same board; you both see every flip. A match scores a pair and grants "
            "another turn; a mismatch passes the turn. Whoever holds more pairs at the end wins."
        )
        lines.append(f"The game ends when every pair is matched or after {budget} responses in total.")
    else:
        lines.append(f"Match every pair within {budget} responses, using as few as you can.")
    if max_retries is not None:
        passes = " and the turn passes to your opponent" if duel else ""
        lines.append(
            f"A reply that cannot be parsed, or that names an invalid card (off the board, already removed, or the "
            f"card already up this round), changes nothing and may be retried {max_retries} time(s); one more "
            f"failure forfeits the round: a card already up is turned face down again{passes}."
        )
    if coords == "letters":
        if cot:
            lines.append(
                "Answer with two lines: `Thought: <a few sentences at most>` and then `Action: <coordinate>`, "
                "e.g. `Action: cD`. A reply without an Action line is not executed."
            )
        else:
            lines.append(
                "Answer with the line `Action: <coordinate>`, e.g. `Action: cD`, and no reasoning. "
                "A reply without an Action line is not executed."
            )
        return "\n".join(lines)
    action = "`Action: (row, column)`, e.g. `Action: (2, 3)`"
    if cot:
        lines.append(f"You may think step by step first; end your answer with one line {action}.")
    else:
        lines.append(f"Answer with exactly one line {action} and nothing else.")
    return "\n".join(lines)


def board_text(identities: np.ndarray, state: np.ndarray, revealed: tuple = (), coords: str = "numbers") -> str:
    """The visible board: face-up and ``revealed`` cards show their face, removed cards an empty mark."""
    if coords == "letters":
        return _letter_board(identities, state, revealed)
    rows, cols = identities.shape
    header = "    " + " ".join(f"{c + 1:>3}" for c in range(cols))
    lines = [header]
    for r in range(rows):
        cells = []
        for c in range(cols):
            if state[r, c] == REMOVED and (r, c) not in revealed:
                cells.append("--")
            elif state[r, c] == FACE_UP or (r, c) in revealed:
                cells.append(card_label(int(identities[r, c])))
            else:
                cells.append("??")
        lines.append(f"{r + 1:>3} " + " ".join(f"{cell:>3}" for cell in cells))
    return "\n".join(lines)


def _letter_board(identities: np.ndarray, state: np.ndarray, revealed: tuple) -> str:
    """The released text board: a header of bracketed column letters, then one line per row, its
    letter and a bracketed cell per card, every cell padded to the widest symbol."""
    rows, cols = identities.shape
    pairs = rows * cols // 2
    width = len(card_symbol(pairs - 1, pairs))
    cell = lambda value: f"[{value:>{width}}]"
    lines = ["  " + "".join(cell(COL_LETTERS[c]) for c in range(cols))]
    for r in range(rows):
        cells = []
        for c in range(cols):
            if (r, c) in revealed or state[r, c] == FACE_UP:
                cells.append(cell(card_symbol(int(identities[r, c]), pairs)))
            elif state[r, c] == REMOVED:
                cells.append(cell(" "))
            else:
                cells.append(cell("*"))
        lines.append(f"{ROW_LETTERS[r]} " + "".join(cells))
    return "\n".join(lines)


def memory_text(known: dict[int, list[tuple[int, int]]], coords: str = "numbers", pairs: int = 0) -> str:
    """The oracle interface: every revealed identity still on the board and where it lies."""
    if not known:
        return "Memory map: no card still on the board has been revealed yet."
    label = (lambda i: card_symbol(i, pairs)) if coords == "letters" else card_label
    entries = [
        f"{label(identity)} at " + " and ".join(coordinate(r, c, coords) for r, c in positions)
        for identity, positions in known.items()
    ]
    return "Memory map (revealed cards still on the board): " + "; ".join(entries) + "."


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
        # no earlier "action" can overlap this one's failed tail; keep looking left


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
