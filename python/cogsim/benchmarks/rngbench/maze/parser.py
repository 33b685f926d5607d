"""Reading a 3D Maze reply: the strict action and map parsers and the release's, and the map score
(``traj_match``); ``format_action``/``format_map`` write the replies they read. Linear time on any input."""

from __future__ import annotations

import re
from typing import Optional

import numpy as np

from cogsim.benchmarks.rngbench.maze.game import ACTIONS, SIDE_BITS

_THINK_OPEN = re.compile("<think>", re.IGNORECASE)

_THINK_CLOSE = re.compile("</think>", re.IGNORECASE)

_REASONING_OPEN = re.compile("<reasoning>", re.IGNORECASE)

_REASONING_CLOSE = re.compile("</reasoning>", re.IGNORECASE)

_ACTION_KEY = re.compile("action", re.IGNORECASE)

_MAP_KEY = re.compile("map", re.IGNORECASE)

_MAP_ROW = re.compile(r"[0-9a-fA-F?]+")

# The released parser (game.parse_action, action space v5): the names first, then the aliases;
# each a word-bounded literal with single whitespace runs, so a search is linear in the text.
_RELEASE_NAMES = (
    (re.compile(r"\bmove[_\s]forward\b"), 0),
    (re.compile(r"\bturn[_\s]left\b"), 1),
    (re.compile(r"\bturn[_\s]right\b"), 2),
)

_RELEASE_ALIASES = (
    (re.compile(r"\bforward\b|\bgo\s+forward\b|\badvance\b|\bwalk\s+forward\b"), 0),
    (re.compile(r"\bturn\s+left\b|\brotate\s+left\b|\bleft\s+turn\b"), 1),
    (re.compile(r"\bturn\s+right\b|\brotate\s+right\b|\bright\s+turn\b"), 2),
)

PARSERS = ("release", "strict")


class ParseError(ValueError):
    """A response the strict parser rejects; the message says what was expected."""


def format_action(action: int, wall_map: Optional[np.ndarray] = None) -> str:
    text = f"Action: {ACTIONS[action]}"
    if wall_map is not None:
        text = format_map(wall_map) + "\n" + text
    return text


def format_map(wall_map: np.ndarray) -> str:
    rows = ["".join("?" if v < 0 else format(int(v), "x") for v in line) for line in np.asarray(wall_map)]
    return "Map:\n" + "\n".join(rows)


def _remove_blocks(text: str, opening: re.Pattern, closing: re.Pattern) -> str:
    """``re.sub(r"<tag>.*?</tag>", "", text, flags=DOTALL|IGNORECASE)`` in one linear scan: each
    opening tag up to the first closing tag after it goes; an opening tag with no closing tag
    after it ends the scan (no later one has a closing tag either)."""
    kept, position = [], 0
    while True:
        first = opening.search(text, position)
        if not first:
            break
        last = closing.search(text, first.end())
        if not last:
            break
        kept.append(text[position : first.start()])
        position = last.end()
    kept.append(text[position:])
    return "".join(kept)


def _strip(text: str) -> str:
    return _remove_blocks(text, _THINK_OPEN, _THINK_CLOSE)


def _skip(text: str, position: int, chars: str) -> int:
    while position < len(text) and text[position] in chars:
        position += 1
    return position


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def _markers(text: str, key: re.Pattern, inline_space: bool = False) -> list[tuple[int, int]]:
    """(start, end) of each ``**key**:`` marker (a keyword not preceded by a letter, optional
    asterisks around it, optional whitespace, a colon), found by literal search and bounded scans
    (linear: the scans around one occurrence stop at the next occurrence's letters)."""
    found = []
    for hit in key.finditer(text):
        begin = hit.start()
        while begin > 0 and text[begin - 1] == "*":
            begin -= 1
        if begin > 0 and text[begin - 1].isascii() and text[begin - 1].isalpha():
            continue
        position = _skip(text, hit.end(), "*")
        position = _skip_space(text, position)
        if position < len(text) and text[position] == ":":
            end = position + 1
            if inline_space:
                end = _skip(text, _skip(text, _skip(text, end, " \t"), "*"), " \t")
            found.append((begin, end))
    return found


def _word_at(body: str, position: int) -> str:
    """The word after optional whitespace, asterisks, whitespace and a backtick (greedy scans)."""
    position = _skip_space(body, _skip(body, _skip_space(body, position), "*"))
    if position < len(body) and body[position] == "`":
        position += 1
    begin = position
    while position < len(body) and (body[position] == "_" or (body[position].isascii() and body[position].isalpha())):
        position += 1
    return body[begin:position]


def _direct_word(body: str) -> Optional[str]:
    """The action word when ``body`` is exactly ``**Action:** `word` **`` (optional asterisks,
    backticks and spaces), else None; a left-to-right scan."""
    position = _skip(body, 0, "*")
    if body[position : position + 6].lower() != "action":
        return None
    position = _skip_space(body, _skip(body, position + 6, "*"))
    if position >= len(body) or body[position] != ":":
        return None
    position = _skip_space(body, _skip(body, _skip_space(body, position + 1), "*"))
    if position < len(body) and body[position] == "`":
        position += 1
    begin = position
    while position < len(body) and (body[position] == "_" or (body[position].isascii() and body[position].isalpha())):
        position += 1
    word = body[begin:position]
    if position < len(body) and body[position] == "`":
        position += 1
    position = _skip_space(body, _skip(body, _skip_space(body, position), "*"))
    return word if word and position == len(body) else None


def parse_action(text: str, cot: bool = True, ask_output: bool = False, parser: str = "strict") -> int:
    """The action code of a response. ``parser="release"``: the released harness's lenient reading
    (think/reasoning blocks removed, the text from the last "action" on searched for
    move_forward / turn_left / turn_right, then for aliases such as "forward" or "rotate left").
    ``parser="strict"`` (cogsim's): CoT: the word after the last `Action:`; direct: the response
    must be only that line (plus the map block in ask-output mode). Raises ParseError."""
    if parser == "release":
        return parse_release_action(text)
    body = _strip(text)
    if not cot:
        if ask_output:
            body = _remove_map(body)
        word = _direct_word(body.strip())
        if word is None:
            raise ParseError("direct mode expects exactly one line `Action: <move_forward|turn_left|turn_right>`")
    else:
        markers = _markers(body, _ACTION_KEY)
        if not markers:
            raise ParseError("no `Action:` line; end the answer with `Action: <move_forward|turn_left|turn_right>`")
        word = _word_at(body, markers[-1][1])
        if not word:
            raise ParseError("`Action:` must be followed by move_forward, turn_left or turn_right")
    word = word.lower()
    if word not in ACTIONS:
        raise ParseError(f"unknown action {word!r}; allowed: {', '.join(ACTIONS)}")
    return ACTIONS.index(word)


def parse_release_action(text: str) -> int:
    """The released parser (action space v5), in linear time. Raises ParseError when it finds nothing."""
    body = _remove_blocks(_remove_blocks(text, _THINK_OPEN, _THINK_CLOSE), _REASONING_OPEN, _REASONING_CLOSE)
    at = body.lower().rfind("action")
    if at >= 0:
        body = body[at:]
    lower = body.lower()
    for pattern, code in _RELEASE_NAMES + _RELEASE_ALIASES:
        if pattern.search(lower):
            return code
    raise ParseError(f"no action found; choose exactly one of: {', '.join(ACTIONS)}")


def _remove_map(body: str) -> str:
    markers = _markers(body, _MAP_KEY, inline_space=True)
    if not markers:
        return body
    start, end = markers[-1]
    rest = body[end:].splitlines(keepends=True)
    consumed = 0
    for line in rest:
        if line.strip() and not _MAP_ROW.fullmatch(line.strip()):
            break
        consumed += len(line)
    return body[:start] + body[end + consumed :]


def parse_map(text: str, size: int) -> Optional[np.ndarray]:
    """The (n, n) wall map after the last `Map:` (-1 for '?'), or None when absent or malformed."""
    body = _strip(text)
    markers = _markers(body, _MAP_KEY, inline_space=True)
    if not markers:
        return None
    rows = [line.strip() for line in body[markers[-1][1] :].splitlines() if line.strip()][:size]
    if len(rows) != size or not all(len(line) == size and _MAP_ROW.fullmatch(line) for line in rows):
        return None
    return np.array([[-1 if ch == "?" else int(ch, 16) for ch in line] for line in rows], dtype=np.int16)


def traj_match(reported: Optional[np.ndarray], walls: np.ndarray, visited: np.ndarray) -> float:
    """Fraction of the sides of visited cells whose wall or opening the reported map states
    correctly ('?' and a missing map count as wrong)."""
    cells = np.argwhere(visited)
    if reported is None or len(cells) == 0:
        return 0.0
    correct = 0
    for r, c in cells:
        value = int(reported[r, c])
        if value >= 0:
            correct += sum((value & bit) == (int(walls[r, c]) & bit) for bit in SIDE_BITS)
    return correct / (4 * len(cells))
