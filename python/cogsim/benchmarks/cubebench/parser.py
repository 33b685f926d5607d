"""Answer parsers of Cube Bench: the release's extraction (``release_*``, the envs' default: the
first match anywhere in the reply, see the section at the end) and cogsim's strict one-line parsers
(``parse_*``, env option ``parser="strict"``), described here. Under the strict parsers anything
outside the documented formats is a parse failure, which the metrics count against the model
(never silently repaired).

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

from cogsim.benchmarks.cubebench import release_lines

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
    response: str,
    labels: Sequence[str] = "ABCD",
    allow_idk: bool = False,
    idk_label: Optional[str] = None,
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
    head = lines[0][len("ANSWER:") :].strip() if lines else ""
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


# -- the release's extraction (the default protocol) ----------------------------------------------
# The released harness (dana-23/cube-bench) searches the whole reply, case-insensitively, and takes
# the FIRST match of an ordered list of patterns; nothing else in the reply matters. These
# functions reproduce that extraction with patterns that start with a literal and have no adjacent
# unbounded quantifiers over overlapping classes, so every search is linear in the reply length.
# Unlike the strict parsers above there is no length cap (reasoning models write long replies).

PARSERS = ("release", "strict")

_R_TAG = re.compile(r"<\s*ANSWER\s*>\s*([ABCD])\s*<\s*/\s*ANSWER\s*>", re.IGNORECASE)
_R_COLON = re.compile(r"\bANSWER\s*[:=]\s*([ABCD])\b", re.IGNORECASE)
_R_BRACKET = re.compile(r"<\s*([ABCD])\s*>", re.IGNORECASE)
_R_MOVE_TAG = re.compile(r"<ANSWER>\s*([URFDLB][2']?)\s*</ANSWER>", re.IGNORECASE)
_R_IDK = re.compile(r"<ANSWER>\s*IDK\s*</ANSWER>|\bANSWER\s*[:=]\s*(?:IDK|E)\b|I\s*DON'?T\s*KNOW", re.IGNORECASE)
_R_YES_NO = re.compile(r"Answer:\s*(Yes|No)\b", re.IGNORECASE)
_R_EFFECT_TAG = re.compile(r"<([ABCD])>\s*(DECREASE|NO[_ ]?CHANGE|INCREASE)\s*</([ABCD])>", re.IGNORECASE)
_R_WORD = r"\s*([A-Za-z]+)\s*"
_R_ROW = rf"row\s*{{k}}:\s*\[{_R_WORD},{_R_WORD},{_R_WORD}\]"
_R_GRID = re.compile(r"answer:\s*" + r"\s*".join(_R_ROW.format(k=k) for k in (1, 2, 3)), re.IGNORECASE)
_R_QWORD = r"\s*['\"]?([A-Za-z]+)['\"]?\s*"
_R_QROW = rf"\[{_R_QWORD},{_R_QWORD},{_R_QWORD}\]"
_R_JSON_GRID = re.compile(rf"\[\s*{_R_QROW}\s*,\s*{_R_QROW}\s*,\s*{_R_QROW}\s*\]", re.IGNORECASE)
_R_COLOUR_INITIALS = {"w": "W", "y": "Y", "r": "R", "o": "O", "b": "B", "g": "G"}
_R_FACE_INITIALS = {"u": "W", "d": "Y", "f": "G", "l": "O"}  # the release's face-name fallback


def _is_text(response: object) -> bool:
    return isinstance(response, str) and bool(response)


def release_choice(
    response: str,
    labels: Sequence[str] = "ABCD",
    allow_idk: bool = False,
    options: Optional[Sequence[str]] = None,
    line: str = release_lines.NEWEST,
) -> Parsed:
    """The release's multiple-choice extraction: with ``allow_idk``, any abstention phrase anywhere
    (``<ANSWER> IDK </ANSWER>``, ``ANSWER: IDK`` / ``ANSWER: E``, "I don't know") wins first; then
    the first ``<ANSWER> X </ANSWER>``, else the first ``ANSWER: X`` / ``ANSWER = X`` (X in A-D, any
    case, spaces allowed). The older line (``line="1ca7d58"``) also takes the first ``<X>``, and with
    ``options`` (the moves of A-D) maps a bare move between answer tags (``<ANSWER> R' </ANSWER>``)
    back to its letter; the newest line dropped both. A letter outside ``labels`` is "invalid"."""
    if not _is_text(response):
        return Parsed(PARSE_FAILURE)
    if allow_idk and _R_IDK.search(response):
        return Parsed(OK, IDK)
    older = line == release_lines.OLDER
    match = _R_TAG.search(response) or _R_COLON.search(response) or (older and _R_BRACKET.search(response))
    if match:
        letter = match.group(1).upper()
        return Parsed(OK, letter) if letter in tuple(labels) else Parsed(INVALID, letter)
    if options and older:
        move = _R_MOVE_TAG.search(response)
        if move:
            wanted = move.group(1).upper()
            for letter, option in zip(labels, options):
                if str(option).upper() == wanted:
                    return Parsed(OK, letter)
    return Parsed(PARSE_FAILURE)


def release_yes_no(response: str) -> Parsed:
    """The first ``Answer: Yes`` / ``Answer: No`` anywhere (any case, even inside a longer word such
    as "FinalAnswer:"), capitalised."""
    match = _R_YES_NO.search(response) if _is_text(response) else None
    return Parsed(OK, match.group(1).capitalize()) if match else Parsed(PARSE_FAILURE)


def _effect_label(raw: str) -> str:
    return raw.upper().replace(" ", "_")


def release_effects(response: str, labels: Sequence[str] = "ABCD") -> Parsed:
    """The release's move-effect extraction: every ``<X> LABEL </X>`` pair (the LAST one per letter
    counts; the closing tag must name the same letter), then for letters still missing the first
    ``X: LABEL``. Labels in any case; "NO CHANGE" becomes NO_CHANGE, "NOCHANGE" stays NOCHANGE (which
    never matches a gold label, as in the release). The value holds one entry per option, None where
    the reply says nothing; "ok" when at least one option was labelled."""
    if not _is_text(response):
        return Parsed(PARSE_FAILURE)
    found: dict = {}
    for match in _R_EFFECT_TAG.finditer(response):
        if match.group(1).upper() == match.group(3).upper():
            found[match.group(1).upper()] = _effect_label(match.group(2))
    for label in labels:
        if label not in found:
            match = re.search(rf"{label}\s*:\s*(DECREASE|NO[_ ]?CHANGE|INCREASE)", response, re.IGNORECASE)
            if match:
                found[label] = _effect_label(match.group(1))
    values = tuple(found.get(label) for label in labels)
    return Parsed(OK, values) if any(v is not None for v in values) else Parsed(PARSE_FAILURE)


def _strip_fences(text: str) -> str:
    """Drop Markdown code-fence markers (```, ```json, ```python, ```txt) at line starts and ends."""
    lines = []
    for line in text.split("\n"):
        low = line.lstrip().lower()
        if low.startswith("```"):
            rest = line.lstrip()[3:]
            for tag in ("json", "python", "txt"):
                if rest.lower().startswith(tag):
                    rest = rest[len(tag) :]
                    break
            line = rest.lstrip()
        stripped = line.rstrip()
        if stripped.endswith("```"):
            line = stripped[:-3].rstrip()
        lines.append(line)
    return "\n".join(lines).strip()


def _release_colour(word: str) -> Optional[str]:
    word = word.strip().lower()
    if not word:
        return None
    if word in _COLOUR_WORDS:
        return _COLOUR_WORDS[word]
    return _R_COLOUR_INITIALS.get(word[0]) or _R_FACE_INITIALS.get(word[0])


def release_grid(response: str) -> Parsed:
    """The release's reconstruction extraction: after dropping code fences, the first
    ``answer: row 1: [a, b, c] row 2: [...] row 3: [...]`` (any case and spacing, newlines or not),
    else the first nested list ``[[a, b, c], [...], [...]]`` (items optionally quoted). Each word is
    read by its initial (white/w, yellow, red, orange, blue, green; then U/D/F/L face initials as
    W/Y/G/O); a word that is none of these makes the grid "invalid" (the release scores it 0)."""
    if not _is_text(response):
        return Parsed(PARSE_FAILURE)
    text = _strip_fences(response)
    match = _R_GRID.search(text) or _R_JSON_GRID.search(text)
    if not match:
        return Parsed(PARSE_FAILURE)
    letters = [_release_colour(word) for word in match.groups()]
    if None in letters:
        return Parsed(INVALID, tuple(match.groups()))
    return Parsed(OK, tuple("".join(letters[i : i + 3]) for i in (0, 3, 6)))
