"""What Matching Pairs says: the task prompt, the text board, the memory map and coordinates.

Two coordinate styles (the env's ``coords`` option):
  "letters" (default, the released harness): a row letter a, b, c, ... and a column letter A, B, C, ...,
      written together ("cD" = third row, fourth column); answers end with ``Action: cD``; the text
      board is a grid of bracketed cells ([*] face down, [ ] removed, [7] a card's symbol).
  "numbers" (cogsim's earlier style): 1-based ``Action: (row, column)`` and a numbered grid
      (?? face down, -- removed, 07 a card's label)."""

from __future__ import annotations

import string
from typing import Optional

import numpy as np

from cogsim.benchmarks.rngbench.pairs.game import FACE_UP, REMOVED

COORDS = ("letters", "numbers")

ROW_LETTERS, COL_LETTERS = string.ascii_lowercase, string.ascii_uppercase

# The released board's card symbols: digits, then upper-case, then lower-case letters (62 in all);
# a board with more pairs than that numbers its cards 0, 1, 2, ... instead.
SYMBOLS = string.digits + string.ascii_uppercase + string.ascii_lowercase

_ASCII_LETTERS = frozenset(string.ascii_letters)


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
