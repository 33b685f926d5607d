"""Text of Matching Pairs: the task prompt, the text board, the memory map, and the strict parser.

Coordinates are 1-based (row, column), as labelled on both the text board and the rendered board.
"""

from __future__ import annotations

import re
from typing import Optional

import numpy as np

from cogsim.pairs._pairs import FACE_UP, REMOVED

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_ACTION_MARKER = re.compile(r"(?:^|[^A-Za-z])\**action\**\s*:", re.IGNORECASE)
_COORDINATE = re.compile(r"\s*\**\s*\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)")
_DIRECT = re.compile(r"\**action\**\s*:\s*\**\s*\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)\s*\**", re.IGNORECASE)


class ParseError(ValueError):
    """A response the strict parser rejects; the message says what was expected."""


def card_label(identity: int) -> str:
    return f"{identity + 1:02d}"


def task_prompt(rows: int, cols: int, budget: int, modality: str, cot: bool, duel: bool) -> str:
    pairs = rows * cols // 2
    lines = [
        f"You are playing Matching Pairs on a board of {rows} rows x {cols} columns: {pairs} pairs of cards lie face down.",
        "Each response flips ONE card. Two flips make a turn: if the two cards show the same picture they are removed "
        "(a match); otherwise both are turned face down again after you have seen them.",
        "Cards you have seen are not shown again: remember where each picture is.",
    ]
    if modality == "text":
        lines.append("On the board, ?? is a face-down card, -- a removed card, and a number is a face-up card's picture.")
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
    action = "`Action: (row, column)`, e.g. `Action: (2, 3)`"
    if cot:
        lines.append(f"You may think step by step first; end your answer with one line {action}.")
    else:
        lines.append(f"Answer with exactly one line {action} and nothing else.")
    return "\n".join(lines)


def board_text(identities: np.ndarray, state: np.ndarray, revealed: tuple = ()) -> str:
    """The visible board: face-up and ``revealed`` cards show their label, removed cards --."""
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


def memory_text(known: dict[int, list[tuple[int, int]]]) -> str:
    """The oracle interface: every revealed identity still on the board and where it lies."""
    if not known:
        return "Memory map: no card still on the board has been revealed yet."
    entries = [
        f"{card_label(identity)} at " + " and ".join(f"({r + 1}, {c + 1})" for r, c in positions)
        for identity, positions in known.items()
    ]
    return "Memory map (revealed cards still on the board): " + "; ".join(entries) + "."


def format_flip(row: int, col: int) -> str:
    return f"Action: ({row + 1}, {col + 1})"


def parse_flip(text: str, cot: bool = True) -> tuple[int, int]:
    """(row, col), 0-based, of a response. CoT: the coordinate right after the last `Action:`;
    direct: the response must be exactly that line. Range is checked by the game (invalid, not a
    parse failure). Raises ParseError."""
    body = _THINK.sub("", text)
    if not cot:
        match = _DIRECT.fullmatch(body.strip())
        if not match:
            raise ParseError("direct mode expects exactly one line `Action: (row, column)`")
    else:
        markers = list(_ACTION_MARKER.finditer(body))
        if not markers:
            raise ParseError("no `Action:` line; end the answer with `Action: (row, column)`")
        match = _COORDINATE.match(body, markers[-1].end())
        if not match:
            raise ParseError("`Action:` must be followed by a coordinate `(row, column)` of two whole numbers")
    return int(match.group(1)) - 1, int(match.group(2)) - 1


def describe_flip(who: str, row: int, col: int, identity: Optional[int]) -> str:
    shows = f": it shows {card_label(identity)}" if identity is not None else ""
    return f"{who} flipped ({row + 1}, {col + 1}){shows}."
