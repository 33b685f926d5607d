"""What the pages of both servers show of a prompt: its messages, each with the addresses of its frames."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence


@dataclass(frozen=True)
class ShownMessage:
    """A prompt's message as a page shows it: its role, its frames' addresses (in the order sent,
    before the text, as the wire form sends them) and its text."""

    role: str
    frames: tuple
    text: str


def shown_messages(messages: Sequence, frame_url: Callable[[object], str]) -> list[ShownMessage]:
    """``messages`` (``cogsim.agents.Message``) with each image given by the address ``frame_url`` makes
    of it."""
    return [ShownMessage(m.role, tuple(frame_url(image) for image in m.images), m.text) for m in messages]
