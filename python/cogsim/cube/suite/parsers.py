"""Strict answer parsers of Cube Bench. Anything outside the documented formats is a parse failure,
which the metrics count against the model (never silently repaired).

Accepted wrappers around an answer token X, each the whole response (surrounding whitespace allowed):
    X                       the bare token
    <ANSWER>X</ANSWER>      spaces inside the tags allowed (the paper's move-choice format)
    ANSWER: X               spaces after the colon allowed; "Answer: X" too (the paper's Yes/No format)

Move-effect answers are the paper's four tagged lines ``<A> LABEL </A>`` ... ``<D> LABEL </D>`` (or
``A: LABEL``), one per option in order. Reconstruction answers are the paper's ``ANSWER:`` block of
``Row k: [c, c, c]`` lines (colour names or initials), or three bare rows of initials.

Tokens are case-sensitive (A-D, DECREASE/NO_CHANGE/INCREASE, W/Y/R/O/G/B) except Yes/No and the
abstention variants (IDK, I don't know, I do not know), which accept any case. The closed-loop step,
where the paper's prompt asks for a <REASONING> block first, reads only the last non-empty line
(``last_line=True``), which must be the answer alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Sequence, Union

OK, PARSE_FAILURE, INVALID = "ok", "parse_failure", "invalid"
IDK = "IDK"
EFFECT_LABELS = ("DECREASE", "NO_CHANGE", "INCREASE")
COLOURS = "WYROGB"
MAX_RESPONSE_CHARS = 1 << 16  # longer answers are not one-line formats; refuse before any regex work

_TAGGED = re.compile(r"<ANSWER>[ \t]*([^\n<>]*?)[ \t]*</ANSWER>")
_PREFIXED = re.compile(r"(?:ANSWER|Answer):[ \t]*([^\n]*?)")
_IDK = re.compile(r"idk|i (?:don['\u2019]?t|do not) know", re.IGNORECASE)
_LETTER = re.compile(r"[A-Z]")
_GRID_ROW = re.compile(rf"[{COLOURS}] [{COLOURS}] [{COLOURS}]")
_COLOUR_WORDS = {"white": "W", "yellow": "Y", "red": "R", "orange": "O", "green": "G", "blue": "B"}
_COLOUR = r"[ \t]*([A-Za-z]+)[ \t]*"
_ROW_LINE = re.compile(rf"Row[ \t]*([123])[ \t]*:[ \t]*\[{_COLOUR},{_COLOUR},{_COLOUR}\]", re.IGNORECASE)
_VERIFIED = "answer verified for correctness."
_EFFECT_LINE = re.compile(r"<([ABCD])>[ \t]*([A-Z_]+)[ \t]*</([ABCD])>|([ABCD]):[ \t]*([A-Z_]+)")


@dataclass(frozen=True)
class Parsed:
    """status: "ok" | "parse_failure" | "invalid" (well-formed but not an allowed answer)."""

    status: str
    value: Optional[Union[str, tuple]] = None

    @property
    def ok(self) -> bool:
        return self.status == OK


def _answer_text(response: object, last_line: bool) -> Optional[str]:
    if not isinstance(response, str) or len(response) > MAX_RESPONSE_CHARS:
        return None
    text = response.strip()
    if last_line:
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        text = lines[-1] if lines else ""
    return text


def _token(text: str) -> Optional[str]:
    """The answer token inside one of the three wrappers, or None when the text is no such line."""
    if "\n" in text or "\r" in text:
        return None
    for wrapper in (_TAGGED, _PREFIXED):
        match = wrapper.fullmatch(text)
        if match:
            return match.group(1)
    return text


def parse_choice(
    response: str, labels: Sequence[str] = "ABCD", allow_idk: bool = False, idk_label: Optional[str] = None,
    last_line: bool = False,
) -> Parsed:
    """A multiple-choice letter. With ``allow_idk``, IDK variants (and ``idk_label`` if the
    abstention option has a letter) parse to "IDK"; without, they are "invalid"."""
    text = _answer_text(response, last_line)
    token = _token(text) if text is not None else None
    if not token:
        return Parsed(PARSE_FAILURE)
    if _IDK.fullmatch(token) or (idk_label is not None and token == idk_label):
        return Parsed(OK, IDK) if allow_idk else Parsed(INVALID, IDK)
    if token in tuple(labels):  # a tuple: "AB" is not a label even though it is in "ABCD"
        return Parsed(OK, token)
    if _LETTER.fullmatch(token):
        return Parsed(INVALID, token)
    return Parsed(PARSE_FAILURE)


def parse_yes_no(response: str, last_line: bool = False) -> Parsed:
    text = _answer_text(response, last_line)
    token = _token(text) if text is not None else None
    if token and token.lower() in ("yes", "no"):
        return Parsed(OK, token.capitalize())
    return Parsed(PARSE_FAILURE)


def parse_effect(response: str, last_line: bool = False) -> Parsed:
    """One of DECREASE, NO_CHANGE, INCREASE (the move's effect on the distance to solved)."""
    text = _answer_text(response, last_line)
    token = _token(text) if text is not None else None
    if token in EFFECT_LABELS:
        return Parsed(OK, token)
    return Parsed(PARSE_FAILURE)


def parse_grid(response: str) -> Parsed:
    """A 3x3 grid of colours, top row first; the value is a tuple of three 3-letter strings.
    Either the paper's block (``ANSWER:`` then ``Row 1: [Green, White, Red]`` ... ``Row 3``, colour
    names or initials in any case, optionally followed by the line "Answer verified for
    correctness."), or three lines "X X X" of initials W Y R O G B, bare or between <ANSWER> tags."""
    text = _answer_text(response, last_line=False)
    if text is None:
        return Parsed(PARSE_FAILURE)
    if text.upper().startswith("ANSWER:"):
        return _parse_row_block(text)
    if text.startswith("<ANSWER>") and text.endswith("</ANSWER>"):
        text = text[len("<ANSWER>") : -len("</ANSWER>")].strip()
    rows = [line.strip() for line in text.splitlines()]
    if len(rows) != 3 or not all(_GRID_ROW.fullmatch(row) for row in rows):
        return Parsed(PARSE_FAILURE)
    return Parsed(OK, tuple(row.replace(" ", "") for row in rows))


def _colour_letter(word: str) -> Optional[str]:
    word = word.lower()
    if word in _COLOUR_WORDS:
        return _COLOUR_WORDS[word]
    return word.upper() if len(word) == 1 and word.upper() in COLOURS else None


def _parse_row_block(text: str) -> Parsed:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if lines and lines[-1].lower() == _VERIFIED:
        lines = lines[:-1]
    head = lines[0][len("ANSWER:"):].strip() if lines else ""
    rows = ([head] if head else []) + lines[1:]
    if len(rows) != 3:
        return Parsed(PARSE_FAILURE)
    grid = []
    for number, line in enumerate(rows, start=1):
        match = _ROW_LINE.fullmatch(line)
        if not match or int(match.group(1)) != number:
            return Parsed(PARSE_FAILURE)
        letters = [_colour_letter(word) for word in match.groups()[1:]]
        if None in letters:
            return Parsed(PARSE_FAILURE)
        grid.append("".join(letters))
    return Parsed(OK, tuple(grid))


def parse_effects(response: str, labels: Sequence[str] = "ABCD") -> Parsed:
    """The move-effect answer: one line per option, in order, ``<A> DECREASE </A>`` or
    ``A: DECREASE`` with labels DECREASE / NO_CHANGE / INCREASE. The value is a tuple of labels in
    option order; anything else (a missing, extra, reordered or unknown line) is a parse failure."""
    text = _answer_text(response, last_line=False)
    if text is None:
        return Parsed(PARSE_FAILURE)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) != len(labels):
        return Parsed(PARSE_FAILURE)
    values = []
    for label, line in zip(labels, lines):
        match = _EFFECT_LINE.fullmatch(line)
        if not match:
            return Parsed(PARSE_FAILURE)
        opening, tagged, closing, plain_label, plain = match.groups()
        line_label, value = (opening, tagged) if opening else (plain_label, plain)
        if line_label != label or (opening and closing != opening) or value not in EFFECT_LABELS:
            return Parsed(PARSE_FAILURE)
        values.append(value)
    return Parsed(OK, tuple(values))
