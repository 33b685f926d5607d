"""Browsing a run a page at a time (``cogsim view``): episodes filtered and paged by id, one episode's
record, its turns a page at a time and the prompt each turn sent (the history policy applied), all in
memory bounded by the page, whatever the store's size. Every value is read through the store's
checked readers; a turn's texts only through ``StoreQueries.iter_turns``."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Optional

from cogsim.agents.base import Message
from cogsim.agents.history import HistoryPolicy
from cogsim.store.queries import StoreQueries
from cogsim.store.rows import LOOP_SQL, SYSTEM_PROMPT_SQL, StoredTurn
from cogsim.store.values import STATUSES, StoreError

MAX_PAGE = 200  # episodes or turns in one page
MAX_CHOICES = 500  # distinct values offered for a filter
MAX_PROMPT_TEXT = 64 << 20  # characters of one prompt rebuilt for showing

# What the outcome filter offers: its name -> (words, the SQL condition on an episode row).
OUTCOMES = {
    "done": ("finished", "status = 'done'"),
    "rewarded": ("finished with a reward above 0", "status = 'done' AND total_reward > 0"),
    "unrewarded": ("finished with no reward", "status = 'done' AND total_reward <= 0"),
    "truncated": ("cut at the turn limit", "status = 'truncated'"),
    "error": ("ended by an error", "status = 'error'"),
    "unfinished": ("not finished yet", "status = 'running' AND fault IS NULL"),
    "fault": ("stopped by a backend fault", "status = 'running' AND fault IS NOT NULL"),
}
_LINE_COLUMNS = "id, task, env_id, suite, agent, episode_index, seed, status, num_turns, total_reward, fault"
_LINE_SPEC = (
    "id:int task:int env_id:text suite:text agent:text episode_index:int seed:int status:status num_turns:count "
    "total_reward:real fault:text?"
)
_HEAD_COLUMNS = (  # the system prompt and the loop record may be stored once for many episodes, in texts
    f"{_LINE_COLUMNS}, agents, options, {SYSTEM_PROMPT_SQL}, history, outcome, error, {LOOP_SQL}, started, finished, "
    "session"
)
_HEAD_SPEC = (
    f"{_LINE_SPEC} agents:texts options:dict system_prompt:text? history:text outcome:dict? error:text? loop:dict? "
    "started:time finished:time? session:int"
)


@dataclass(frozen=True)
class EpisodeFilter:
    """Which episodes a list shows; None: any."""

    suite: Optional[str] = None
    env_id: Optional[str] = None
    agent: Optional[str] = None
    outcome: Optional[str] = None  # a key of OUTCOMES
    seed: Optional[int] = None
    task: Optional[int] = None

    def __post_init__(self):
        if self.outcome is not None and self.outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}, got {self.outcome!r}")

    def where(self) -> tuple[str, tuple]:
        """The SQL condition (always some text) and its parameters."""
        conditions, params = ["1"], []
        for column in ("suite", "env_id", "agent", "seed", "task"):
            value = getattr(self, column)
            if value is not None:
                conditions.append(f"{column} = ?")
                params.append(value)
        if self.outcome is not None:
            conditions.append(f"({OUTCOMES[self.outcome][1]})")
        return " AND ".join(conditions), tuple(params)


@dataclass(frozen=True)
class EpisodeLine:
    """An episode as a list shows it."""

    id: int
    task: int
    env_id: str
    suite: str
    agent: str
    episode_index: int
    seed: int
    status: str
    num_turns: int
    total_reward: float
    fault: Optional[str]


@dataclass(frozen=True)
class EpisodeHead(EpisodeLine):
    """An episode's whole record (its turns apart)."""

    agents: list
    options: dict
    system_prompt: Optional[str]
    history: str
    outcome: Optional[dict]
    error: Optional[str]
    loop: Optional[dict]
    started: float
    finished: Optional[float]
    session: int


@dataclass(frozen=True)
class EpisodePage:
    """One page of a filtered list, by id; ``earlier`` and ``later``: the ids to page on from (the
    ``before`` and ``after`` of the neighbouring pages), None where there is none."""

    episodes: list
    earlier: Optional[int]
    later: Optional[int]


def episode_page(
    store: StoreQueries,
    where: EpisodeFilter = EpisodeFilter(),
    after: Optional[int] = None,
    before: Optional[int] = None,
    limit: int = 50,
) -> EpisodePage:
    """The episodes ``where`` selects, by id: the first ``limit`` after id ``after`` (or before id
    ``before``, the page before it). One indexed range of the table per page, however large the store."""
    limit = max(1, min(int(limit), MAX_PAGE))
    condition, params = where.where()
    if before is not None:
        rows = _lines(store, f"{condition} AND id < ? ORDER BY id DESC LIMIT ?", (*params, before, limit + 1))
        more_before = len(rows) > limit
        rows = rows[:limit][::-1]
        more_after = _exists(store, f"{condition} AND id >= ?", (*params, before))
        return EpisodePage(
            rows, rows[0].id if rows and more_before else None, rows[-1].id if rows and more_after else None
        )
    if after is not None:
        rows = _lines(store, f"{condition} AND id > ? ORDER BY id LIMIT ?", (*params, after, limit + 1))
        more_before = _exists(store, f"{condition} AND id <= ?", (*params, after))
    else:
        rows = _lines(store, f"{condition} ORDER BY id LIMIT ?", (*params, limit + 1))
        more_before = False
    later = rows[limit - 1].id if len(rows) > limit else None
    rows = rows[:limit]
    return EpisodePage(rows, rows[0].id if rows and more_before else None, later)


def _exists(store: StoreQueries, condition: str, params: tuple) -> bool:
    return bool(store._rows("the episodes", f"SELECT id FROM episodes WHERE {condition} LIMIT 1", params, "id:int"))


def _lines(store: StoreQueries, tail: str, params: tuple) -> list[EpisodeLine]:
    rows = store._rows("the episodes", f"SELECT {_LINE_COLUMNS} FROM episodes WHERE {tail}", params, _LINE_SPEC)
    return [EpisodeLine(*row) for row in rows]


def count_episodes(store: StoreQueries, where: EpisodeFilter = EpisodeFilter()) -> int:
    condition, params = where.where()
    return store._rows("the episodes", f"SELECT COUNT(*) FROM episodes WHERE {condition}", params, "count:count")[0][0]


def episode_summary(store: StoreQueries) -> list[tuple]:
    """Per (task, agent): task, env_id, agent, episodes, done, truncated, errors, unfinished, stopped by a
    backend fault, and the turns the episodes record (an unfinished episode records its turns when it
    ends). One pass over the episodes, none over the turns."""
    return store._rows(
        "the episodes",
        """SELECT task, env_id, agent, COUNT(*), SUM(status = 'done'), SUM(status = 'truncated'), SUM(status = 'error'),
                  SUM(status = 'running' AND fault IS NULL), SUM(status = 'running' AND fault IS NOT NULL),
                  SUM(num_turns)
           FROM episodes GROUP BY task, agent ORDER BY task, agent""",
        (),
        "task:int env_id:text agent:text episodes:count done:count truncated:count errors:count unfinished:count "
        "faulted:count turns:count",
    )


def filter_choices(store: StoreQueries) -> dict[str, list]:
    """The suites, env ids and agents a filter can choose from, each sorted. Read from the (task,
    agent) pairs of the store's unique index (no pass over the episodes' rows) and one indexed row per
    task; at most MAX_CHOICES pairs are looked at."""
    pairs = store._rows(
        "the episodes",
        "SELECT task, agent FROM episodes GROUP BY task, agent LIMIT ?",
        (MAX_CHOICES,),
        "task:int agent:text",
    )
    found: dict[str, set] = {"suite": set(), "env_id": set(), "agent": {agent for _, agent in pairs}}
    for task in sorted({task for task, _ in pairs}):
        for env_id, suite in store._rows(
            f"the episodes of task {task}",
            "SELECT env_id, suite FROM episodes WHERE task = ? LIMIT 1",
            (task,),
            "env_id:text suite:text",
        ):
            found["env_id"].add(env_id)
            found["suite"].add(suite)
    return {column: sorted(values) for column, values in found.items()}


def episode_head(store: StoreQueries, episode_id: int) -> Optional[EpisodeHead]:
    """The record of episode ``episode_id``, or None if the store has none of that id."""
    rows = store._rows(
        f"episode {episode_id}", f"SELECT {_HEAD_COLUMNS} FROM episodes WHERE id = ?", (episode_id,), _HEAD_SPEC
    )
    return EpisodeHead(*rows[0]) if rows else None


def turn_page(store: StoreQueries, episode_id: int, first: int, count: int) -> list[StoredTurn]:
    """Turns ``first`` .. ``first + count - 1`` of an episode (in turn order, fewer at its end)."""
    count = max(1, min(int(count), MAX_PAGE))
    return list(itertools.islice(store.iter_turns(episode_id), max(0, int(first)), max(0, int(first)) + count))


@dataclass(frozen=True)
class SentPrompt:
    """The messages a turn sent (system, the history its policy kept, the turn's own message; each
    message's images are frame references), the turn itself and the policy that shaped it."""

    messages: list
    turn: StoredTurn
    policy: HistoryPolicy


def prompt_at(store: StoreQueries, head: EpisodeHead, turn: int, max_images: Optional[int]) -> Optional[SentPrompt]:
    """The prompt turn ``turn`` of the episode sent, rebuilt as the runner builds it: the episode's
    history policy (with the run's ``max_images``) over the same player's earlier exchanges, less the
    oldest ones the turn dropped (``history_dropped``). None if the episode has no such turn. Only what
    the policy keeps is held, and at most MAX_PROMPT_TEXT characters of it."""
    try:
        policy = HistoryPolicy.parse(head.history or "full", max_images)
    except ValueError as error:
        raise StoreError(f"episode {head.id} records a history policy cogsim does not know: {error}") from None
    past: dict[int, list] = {}  # player -> the exchanges its later prompts can still show
    held = 0  # characters in past
    for stored in store.iter_turns(head.id):
        user = Message("user", stored.prompt, tuple(stored.images))
        exchanges = past.setdefault(stored.player, [])
        if stored.turn == turn:
            messages = policy.messages(stored.system(head.system_prompt), exchanges, user, stored.history_dropped)
            return SentPrompt(messages, stored, policy)
        exchanges.append((user, stored.response))
        held += len(stored.prompt) + len(stored.response)
        kept = policy.retained(exchanges)  # a suffix of the exchanges, some perhaps without their images
        held -= sum(len(u.text) + len(answer) for u, answer in exchanges[: len(exchanges) - len(kept)])
        past[stored.player] = kept
        if held > MAX_PROMPT_TEXT:
            raise StoreError(f"episode {head.id}: the prompt of turn {turn} holds more text than cogsim shows")
    return None


def run_max_images(config: Any) -> Optional[int]:
    """The run's ``max_images`` from its stored config (None where it sets none or holds no integer)."""
    value = config.get("max_images") if isinstance(config, dict) else None
    return value if type(value) is int and value >= 0 else None


__all__ = [
    "EpisodeFilter",
    "EpisodeHead",
    "EpisodeLine",
    "EpisodePage",
    "MAX_PAGE",
    "OUTCOMES",
    "STATUSES",
    "SentPrompt",
    "filter_choices",
    "count_episodes",
    "episode_summary",
    "episode_head",
    "episode_page",
    "prompt_at",
    "run_max_images",
    "turn_page",
]
