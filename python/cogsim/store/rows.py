"""The rows the runner writes (EpisodeRow, TurnRow) and the turns it reads back (StoredTurn), with
the SQL and the value checks both build from the one list of a turn's columns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

from cogsim.store.schema import TURN_COLUMNS
from cogsim.store.values import dumps_parsed, json_list, same, to_db_text


@dataclass
class EpisodeRow:
    task: int
    env_id: str
    suite: str
    agent: str
    agents: tuple
    episode_index: int
    seed: int
    options: dict
    system_prompt: Optional[str]
    history: str
    id: Optional[int] = None
    status: str = "running"
    num_turns: int = 0
    total_reward: float = 0.0
    outcome: Optional[dict] = None
    error: Optional[str] = None
    fault: Optional[str] = None  # set (with error) when a backend fault stopped the episode, resumable
    loop: Optional[dict] = None

    def key(self) -> tuple:
        return (self.task, self.agent, self.episode_index)


@dataclass
class TurnRow:
    episode: EpisodeRow
    turn: int
    player: int
    agent: str
    prompt: str
    images: Sequence[str]
    options: Sequence[str]
    response: str
    parsed: Any
    parse: str
    reward: float
    terminated: bool
    truncated: bool
    latency_s: float
    prompt_tokens: Optional[int] = None
    completion_tokens: Optional[int] = None
    error: Optional[str] = None
    attempts: int = 1
    finish_reason: Optional[str] = None
    history_dropped: int = 0
    system_prompt: Optional[str] = None  # the system prompt this turn was sent, where it is not the episode's


@dataclass
class StoredTurn:
    """A turn read back (for replay on resume, exports and reports)."""

    turn: int
    player: int
    agent: str
    prompt: str
    images: list
    options: list
    response: str
    parsed: Any
    parse: str
    reward: float
    terminated: bool
    truncated: bool
    latency_s: float
    prompt_tokens: Optional[int]
    completion_tokens: Optional[int]
    error: Optional[str]
    attempts: int
    finish_reason: Optional[str] = None
    history_dropped: int = 0
    system_prompt: Optional[str] = None  # the system prompt this turn was sent, where it is not the episode's

    def system(self, episode_system_prompt: Optional[str]) -> Optional[str]:
        """The system prompt this turn was sent: its own, or its episode's."""
        return episode_system_prompt if self.system_prompt is None else self.system_prompt


TURN_ENCODERS = tuple(
    (
        column,
        {
            "prompt": lambda text: "",  # stored in texts, named by prompt_text
            "response": to_db_text,
            "error": to_db_text,
            "images": json_list,
            "options": json_list,
            "parsed": lambda value: dumps_parsed(value),
        }.get(column, same),
    )
    for column in TURN_COLUMNS
)
TURN_KINDS = {
    "turn": "int",
    "player": "int",
    "agent": "text",
    "prompt": "text",
    "images": "images",
    "options": "texts",
    "response": "text",
    "parsed": "json?",
    "parse": "text",
    "reward": "real",
    "terminated": "bool",
    "truncated": "bool",
    "latency_s": "seconds",
    "prompt_tokens": "count?",
    "completion_tokens": "count?",
    "error": "text?",
    "attempts": "count",
    "finish_reason": "text?",
    "history_dropped": "count",
}
TURN_SPEC = " ".join(f"{column}:{TURN_KINDS[column]}" for column in TURN_COLUMNS)
# A prompt is stored once in texts (schema 4) and named by turns.prompt_text, with '' in turns.prompt;
# a turn stored before schema 4 holds its prompt inline (and so an episode its system prompt and loop
# record). These expressions read either: the one place that knows how those texts are stored.
PROMPT_SQL = "CASE WHEN prompt_text IS NULL THEN prompt ELSE (SELECT text FROM texts WHERE texts.id = prompt_text) END"
SYSTEM_PROMPT_SQL = (
    "CASE WHEN system_text IS NULL THEN system_prompt ELSE (SELECT text FROM texts WHERE texts.id = system_text) END"
)
LOOP_SQL = "CASE WHEN loop_text IS NULL THEN loop ELSE (SELECT text FROM texts WHERE texts.id = loop_text) END"
TURN_SYSTEM_SQL = "(SELECT text FROM texts WHERE texts.id = system_text)"  # NULL: the episode's (schema 5)
INSERT_TURN = (
    f"INSERT INTO turns (episode_id, {', '.join(TURN_COLUMNS)}, prompt_text, system_text, session, t) "
    f"VALUES ({', '.join('?' * (len(TURN_COLUMNS) + 5))}) ON CONFLICT (episode_id, turn) DO NOTHING"
)
SELECT_TURNS = (
    f"SELECT {', '.join(PROMPT_SQL if column == 'prompt' else column for column in TURN_COLUMNS)}, "
    f"{TURN_SYSTEM_SQL} FROM turns WHERE episode_id = ? ORDER BY turn"
)
SELECT_TURNS_SPEC = TURN_SPEC + " system_prompt:text?"
