"""The KidGym answer decoder, as the paper's evaluation does it.

1. If the response holds ``<answer>...</answer>`` (any case, may span lines), only the first tagged
   span is read.
2. If an option's action text appears in it quoted (``'pick up the item with label 2'``), that option.
3. Otherwise the first uppercase letter standing alone (word boundaries) among the valid labels.
4. Otherwise the first valid uppercase label letter anywhere (the paper's last resort).
5. Otherwise nothing: the answer is invalid.

Steps 2-4 are the KidGym release's ``process_answer`` (``eval/evaluation.py``) exactly. Step 1 is the
issue's reading: the release matches only lowercase tags on one line (``<answer>(.*?)</answer>``
without flags), so an uppercase ``<ANSWER>B</ANSWER>`` there falls through to steps 2-4 over the
whole reply, reasoning included. We strip tags in any case and across lines, which only differs from
the release on replies whose tag is not lowercase or spans a line break.

``strict=True`` drops step 4 (a letter inside a word, such as the "A" of "All", never counts) and
also accepts an action's text without quotes when it appears as a whole phrase; it is a named
option for users who prefer fewer accidental matches, not the paper's decoder.
"""

from __future__ import annotations

import re
import string
from typing import Optional, Sequence

_ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)
MAX_OPTIONS = 26


def decode_answer(response: str, actions: Sequence[str], strict: bool = False) -> Optional[int]:
    """Index of the chosen option in ``actions`` (label order A, B, ...), or None if invalid."""
    if not isinstance(response, str):
        raise TypeError(f"response must be str, got {type(response).__name__}")
    if len(actions) > MAX_OPTIONS:
        raise ValueError(f"actions: at most {MAX_OPTIONS} options can be lettered, got {len(actions)}")
    if not actions:
        return None
    tagged = _ANSWER_TAG.search(response)
    if tagged:
        response = tagged.group(1)
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
