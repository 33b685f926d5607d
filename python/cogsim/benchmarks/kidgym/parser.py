"""The KidGym answer decoder, as the release's evaluation (``src/eval/evaluation.py``,
``process_answer``) does it:

1. If the response holds ``<answer>...</answer>`` (lowercase tags, on one line: the release's pattern
   has no flags), only the first such span is read.
2. If an option's action text appears in it quoted (``'pick up the item with label 2'``), that option.
3. Otherwise the first uppercase letter standing alone (word boundaries) among the valid labels.
4. Otherwise the first valid uppercase label letter anywhere (the release's last resort).
5. Otherwise nothing: the answer is invalid.

Named variants: ``tags="any_case"`` reads the first tag pair in any case and across lines (cogsim's
earlier reading); ``strict=True`` drops step 4 (a letter inside a word, such as the "A" of "All",
never counts) and also accepts an action's text without quotes when it appears as a whole phrase.

Every step is a scan in linear time (``str.find`` and single-character classes): a megabyte of
``"<answer>"`` costs milliseconds, where the release's lazy pattern restarted at every tag.
"""

from __future__ import annotations

import re
import string
from typing import Optional, Sequence

MAX_OPTIONS = 26
TAG_MODES = ("release", "any_case")
_OPEN, _CLOSE = "<answer>", "</answer>"


def tagged_span(response: str, tags: str = "release") -> Optional[str]:
    """The text inside the first ``<answer>...</answer>`` pair, or None."""
    if tags == "release":  # lowercase, and '.' does not cross a newline: the first line holding a pair
        start = 0
        while True:
            opening = response.find(_OPEN, start)
            if opening < 0:
                return None
            line_end = response.find("\n", opening)
            line_end = len(response) if line_end < 0 else line_end
            closing = response.find(_CLOSE, opening + len(_OPEN), line_end)
            if closing >= 0:
                return response[opening + len(_OPEN) : closing]
            start = line_end + 1  # no pair starts later on this line either
    folded = response.lower()
    if len(folded) != len(response):  # a few characters change length when lower-cased: fold ASCII only
        folded = "".join(ch.lower() if ch.isascii() else ch for ch in response)
    opening = folded.find(_OPEN)
    closing = folded.find(_CLOSE, opening + len(_OPEN)) if opening >= 0 else -1
    return response[opening + len(_OPEN) : closing] if closing >= 0 else None


def decode_answer(response: str, actions: Sequence[str], strict: bool = False, tags: str = "release") -> Optional[int]:
    """Index of the chosen option in ``actions`` (label order A, B, ...), or None if invalid."""
    if not isinstance(response, str):
        raise TypeError(f"response must be str, got {type(response).__name__}")
    if tags not in TAG_MODES:
        raise ValueError(f"tags must be one of {', '.join(TAG_MODES)}, got {tags!r}")
    if len(actions) > MAX_OPTIONS:
        raise ValueError(f"actions: at most {MAX_OPTIONS} options can be lettered, got {len(actions)}")
    if not actions:
        return None
    tagged = tagged_span(response, tags)
    if tagged is not None:
        response = tagged
    for index, action in enumerate(actions):
        if f"'{action}'" in response:
            return index
    if strict:
        phrase = _whole_phrase_match(response, actions)
        if phrase is not None:
            return phrase
    letters = string.ascii_uppercase[: len(actions)]
    match = re.search(rf"\b([{letters}])\b", response)
    if match is None and not strict:
        match = re.search(rf"([{letters}])", response)
    return None if match is None else letters.index(match.group(1))


def _whole_phrase_match(response: str, actions: Sequence[str]) -> Optional[int]:
    # longest first, so "label 12" is not read as "label 1"
    for index in sorted(range(len(actions)), key=lambda i: -len(actions[i])):
        if re.search(rf"(?<![\w]){re.escape(actions[index])}(?![\w])", response, re.IGNORECASE):
            return index
    return None


def format_options(actions: Sequence[str]) -> str:
    """The paper's option list: ``A) 'action1' B) 'action2' ...``."""
    return " ".join(f"{string.ascii_uppercase[i]}) '{action}'" for i, action in enumerate(actions))


def letter_list(count: int) -> str:
    """``A/B/C`` for three options."""
    return "/".join(string.ascii_uppercase[:count])
