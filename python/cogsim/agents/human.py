"""``human:NAME``: a person answers the turns, through a console (``cogsim play``'s page in a browser).

The runner treats a person as it treats a model backend: each turn it builds the prompt with the
history policy and asks for a reply, which the env parses and steps as it would a model's, and the
store records the episode under the agent ``human:NAME`` with the seconds the person took per turn.
A console is what shows a person the prompt and hands back their reply; ``cogsim.web.play`` is the
one cogsim ships. Without a console attached (``attach_console``) the backend refuses to start, so
``cogsim run`` never waits on a keyboard no one watches.

Beside the prompt the runner hands a person's console the turn's context (:class:`TurnContext`):
which episode, seed, turn and seat, and the env's one-press answers (``TextEnv.quick_replies``).
"""

from __future__ import annotations

import re
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Optional, Protocol, Sequence

from cogsim._untrusted import shown
from cogsim.agents.base import Completion, Message, ModelBackend

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
NAME_RULE = "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"


class PlayStopped(Exception):
    """The person stopped playing (or closed the console): the run ends here, every finished turn
    stored, and continues where it stopped when it is started again."""


@dataclass(frozen=True)
class Reply:
    """A person's answer to one turn and the seconds they took (from the turn's first showing)."""

    text: str
    seconds: float


class Console(Protocol):
    def ask(self, prompt: Sequence[Message], context: "TurnContext") -> Reply:
        """Shows the prompt, waits for the person's reply; raises PlayStopped when they stop."""
        ...


_console_lock = threading.Lock()
_console: Optional[Console] = None


@contextmanager
def attach_console(console: Console) -> Iterator[None]:
    """Within the block, ``human:NAME`` agents made in this process answer through ``console``."""
    global _console
    with _console_lock:
        if _console is not None:
            raise RuntimeError("a console is attached already: one person plays per process")
        _console = console
    try:
        yield
    finally:
        with _console_lock:
            _console = None


def check_name(name: Any) -> str:
    """The player's name as agent specs carry it (``human:NAME``); ValueError saying what is allowed."""
    if not isinstance(name, str) or NAME.fullmatch(name) is None:
        raise ValueError(f"a player's name must be {NAME_RULE}, got {shown(name)}")
    return name


@dataclass(frozen=True)
class TurnContext:
    """What a person at the console is told besides the prompt (a model gets only the prompt)."""

    env_id: str
    seed: int
    episode_index: int
    turn: int
    player: int
    seats: tuple
    quick_replies: tuple = ()  # cogsim.envs.QuickReply: (key, label, reply) answers one press gives


class HumanBackend(ModelBackend):
    """The turns of ``human:NAME``, asked one at a time of the attached console. Model options of the
    run (``--agent-option``, meant for a model opponent) do not apply to a person and are ignored."""

    kind = "human"
    wants_turns = True  # the runner passes each prompt's TurnContext

    def __init__(self, name: str, **_model_options: Any):
        self.name = check_name(name)
        self.spec = f"human:{name}"
        if _console is None:
            raise ValueError(
                f"agent {self.spec} is a person: play it with `cogsim play` (which serves the page they answer "
                "on); `cogsim run` cannot answer for them"
            )
        self.console = _console

    def describe(self) -> dict:
        return {"backend": "human", "name": self.name}

    def complete(
        self,
        conversations: Sequence[Sequence[Message]],
        decoding: Optional[Sequence[dict]] = None,
        turns: Optional[Sequence[TurnContext]] = None,
    ) -> list[Completion]:
        if turns is None or len(turns) != len(conversations):
            raise ValueError("a person's turns need their context (the runner passes it)")
        completions = []
        for prompt, context in zip(conversations, turns):
            reply = self.console.ask(prompt, context)
            completions.append(Completion(reply.text, latency_s=reply.seconds))
        return completions
