"""Conversation history policies: what of the past each prompt carries (used by the runner, and by
the store's SFT export to rebuild the context each turn saw).

    "full"      every earlier turn (user message and the agent's answer)
    "last:K"    the last K earlier turns
    "window:K"  the RNG-Bench maze runner's trim (history_window=K): the last 2K messages counting the
                current one, i.e. the K-1 previous turns in full plus the answer (alone) of the turn
                before them; "window:0" keeps everything, as the release does
    "current"   only the current observation (KidGym's non-memory tasks)

``max_images`` caps the images in one prompt: the newest are kept, older turns lose theirs (their
text stays). The system prompt, when the env has one, always leads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from cogsim.agents.base import Message


@dataclass(frozen=True)
class HistoryPolicy:
    mode: str = "full"
    window: int = 0
    max_images: Optional[int] = None

    @classmethod
    def parse(cls, spec: str, max_images: Optional[int] = None) -> "HistoryPolicy":
        if max_images is not None and (not isinstance(max_images, int) or max_images < 0):
            raise ValueError(f"max_images must be a non-negative integer or None, got {max_images!r}")
        if spec in ("full", "current"):
            return cls(spec, 0, max_images)
        kind, sep, value = str(spec).partition(":")
        if kind in ("last", "window") and sep and value.isdigit() and int(value) >= 0:
            return cls(kind, int(value), max_images)
        raise ValueError(
            f"history must be 'full', 'current' or 'last:K' with K >= 0 (or 'window:K', the RNG-Bench maze trim), got {spec!r}"
        )

    def kept(self, past_len: int) -> int:
        """How many earlier exchanges a prompt carries (before any drop)."""
        if self.mode == "current":
            return 0
        if self.mode == "window" and self.window:
            return min(past_len, self.window)
        return min(past_len, self.window) if self.mode == "last" else past_len

    def retained(self, past: list[tuple[Message, str]]) -> list[tuple[Message, str]]:
        """What of ``past`` any later prompt can still show: the runner keeps only this, so an
        episode's memory (its frames above all) is bounded by the policy. "current" keeps nothing,
        "last:K" and "window:K" the last K exchanges; with ``max_images`` older exchanges lose the images no later
        prompt can carry (a later prompt holds at most ``max_images``, newest first)."""
        if self.mode == "current":
            return []
        if self.mode == "last":
            past = past[max(0, len(past) - self.window) :] if self.window else []
        elif self.mode == "window" and self.window:
            past = past[max(0, len(past) - self.window) :]
        if self.max_images is None:
            return past
        budget, kept = self.max_images, []
        for user, answer in reversed(past):
            if user.images:
                keep = user.images[max(0, len(user.images) - budget) :] if budget else ()
                budget -= len(keep)
                if len(keep) != len(user.images):
                    user = Message(user.role, user.text, tuple(keep))
            kept.append((user, answer))
        kept.reverse()
        return kept

    def __str__(self) -> str:
        return f"{self.mode}:{self.window}" if self.mode in ("last", "window") else self.mode

    def messages(
        self, system_prompt: Optional[str], past: Sequence[tuple[Message, str]], current: Message, drop: int = 0
    ) -> list[Message]:
        """The prompt for ``current`` given the earlier (user message, answer) exchanges; ``drop``
        leaves out that many of the oldest exchanges the policy would keep (``on_overflow=drop-oldest``)."""
        kept: Sequence[tuple[Message, str]]
        if self.mode == "current":
            kept = ()
        elif self.mode == "last":
            kept = past[max(0, len(past) - self.window) :] if self.window else ()
        elif self.mode == "window" and self.window:
            kept = past[max(0, len(past) - self.window) :]
        else:
            kept = past
        # window:K with K earlier turns available: the oldest kept turn contributes its answer only
        orphan = self.mode == "window" and self.window and len(past) >= self.window and drop == 0
        conversation = [Message("system", system_prompt)] if system_prompt else []
        for index, (user, answer) in enumerate(list(kept)[drop:]):
            if not (orphan and index == 0):
                conversation.append(user)
            conversation.append(Message("assistant", answer))
        conversation.append(current)
        return _cap_images(conversation, self.max_images) if self.max_images is not None else conversation


def _cap_images(conversation: list[Message], max_images: int) -> list[Message]:
    budget = max_images
    capped = []
    for message in reversed(conversation):
        if message.images:
            keep = message.images[max(0, len(message.images) - budget) :] if budget else ()
            budget -= len(keep)
            if len(keep) != len(message.images):
                message = Message(message.role, message.text, tuple(keep))
        capped.append(message)
    capped.reverse()
    return capped
