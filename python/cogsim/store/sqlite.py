"""The SQLite side of the results store."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

import numpy as np

from cogsim._files import refuse_links, write_bytes_atomic
from cogsim.agents.base import image_key

DB_NAME = "store.sqlite"
# 1: the first release; 2: adds episodes.fault and .loop, turns.finish_reason and .history_dropped
# (a schema-1 store is migrated when opened: the columns are added, NULL or 0 in its old rows).
SCHEMA_VERSION = 2
CHECKPOINT_INTERVAL_S = 5.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    schema_version INTEGER NOT NULL,
    created REAL NOT NULL,
    config TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY,
    started REAL NOT NULL,
    pid INTEGER NOT NULL,
    worker INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS episodes (
    id INTEGER PRIMARY KEY,
    task INTEGER NOT NULL,
    env_id TEXT NOT NULL,
    suite TEXT NOT NULL,
    agent TEXT NOT NULL,
    agents TEXT NOT NULL,
    episode_index INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    options TEXT NOT NULL,
    system_prompt TEXT,
    history TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'done', 'truncated', 'error')),
    num_turns INTEGER NOT NULL DEFAULT 0,
    total_reward REAL NOT NULL DEFAULT 0,
    outcome TEXT,
    error TEXT,
    started REAL NOT NULL,
    finished REAL,
    session INTEGER NOT NULL,
    UNIQUE (task, agent, episode_index)
);
CREATE TABLE IF NOT EXISTS turns (
    episode_id INTEGER NOT NULL REFERENCES episodes (id),
    turn INTEGER NOT NULL,
    player INTEGER NOT NULL,
    agent TEXT NOT NULL,
    prompt TEXT NOT NULL,
    images TEXT,
    options TEXT,
    response TEXT NOT NULL,
    parsed TEXT,
    parse TEXT NOT NULL,
    reward REAL NOT NULL,
    terminated INTEGER NOT NULL,
    truncated INTEGER NOT NULL,
    latency_s REAL NOT NULL,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    error TEXT,
    attempts INTEGER NOT NULL DEFAULT 1,
    session INTEGER NOT NULL,
    t REAL NOT NULL,
    UNIQUE (episode_id, turn)
);
CREATE TABLE IF NOT EXISTS backends (
    session INTEGER NOT NULL,
    spec TEXT NOT NULL,
    description TEXT NOT NULL,
    PRIMARY KEY (session, spec)
);
CREATE TABLE IF NOT EXISTS config_changes (
    session INTEGER NOT NULL,
    t REAL NOT NULL,
    changes TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS metrics (
    suite TEXT PRIMARY KEY,
    tables TEXT NOT NULL,
    computed REAL NOT NULL
);
"""


# Columns of schema 2 beyond schema 1's tables: (table, column, declaration); added on open.
_ADDED_COLUMNS = (
    ("episodes", "fault", "TEXT"),  # fault kind of the backend call that stopped a still-'running' episode
    ("episodes", "loop", "TEXT"),  # JSON: on_overflow policy and the env's decoding defaults used
    ("turns", "finish_reason", "TEXT"),
    ("turns", "history_dropped", "INTEGER NOT NULL DEFAULT 0"),  # oldest exchanges left out (on_overflow)
)


class StoreError(ValueError):
    """A run directory's store cannot be used (not a cogsim store, corrupt, newer schema, disk full)."""


def to_db_text(text: Optional[str]):
    """Text as stored: any ``str`` is kept exactly. Text that UTF-8 cannot encode (lone surrogates,
    valid in JSON replies) is stored as a BLOB of its surrogate-preserving encoding instead of failing
    the write; :func:`from_db_text` gives the same string back."""
    if text is None or text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def from_db_text(value) -> Optional[str]:
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogatepass")
    return value


# The columns of a turn after its episode id, in table order: TurnRow (written) and StoredTurn (read)
# carry exactly these fields in this order; write_step and turns() build their SQL from this list.
TURN_COLUMNS = (
    "turn",
    "player",
    "agent",
    "prompt",
    "images",
    "options",
    "response",
    "parsed",
    "parse",
    "reward",
    "terminated",
    "truncated",
    "latency_s",
    "prompt_tokens",
    "completion_tokens",
    "error",
    "attempts",
    "finish_reason",
    "history_dropped",
)


def _json_list(values) -> Optional[str]:
    return json.dumps(list(values)) if values else None


def _load_list(text: Optional[str]) -> list:
    return json.loads(text) if text else []


def _load_json(text: Optional[str]):
    return json.loads(text) if text is not None else None


def _same(value):
    return value


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


class Store:
    """One run directory. Open it in every process that writes (each gets its own connection)."""

    def __init__(self, run_dir: str | os.PathLike, worker: int = 0):
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.images_dir = self.run_dir / "images"
        path = self.run_dir / DB_NAME
        # SQLite opens by name: a link in place of the store or its journal would be written through
        refuse_links(path, f"{path}-wal", f"{path}-shm", f"{path}-journal", self.images_dir)
        try:
            self.db = sqlite3.connect(path, timeout=120.0, isolation_level=None)
            self._configure()
        except sqlite3.DatabaseError as error:
            raise StoreError(
                f"{path} is not a readable cogsim store ({error}); "
                "if it was damaged, restore it or start the run in a new directory"
            ) from None
        self.worker = worker
        self.session: Optional[int] = None
        self._known_images: set[str] = set()

    def _configure(self) -> None:
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA busy_timeout=120000")
        # Checkpoints (WAL -> database, with an fsync) on a timer instead of every 1000 pages:
        # automatic ones cost half the time of a small commit.
        self.db.execute("PRAGMA wal_autocheckpoint=0")
        self._last_checkpoint = time.monotonic()
        self.db.executescript(_SCHEMA)
        self._check_schema_version()
        self._add_columns()
        self._record_migration()

    def _check_schema_version(self) -> None:
        row = self.db.execute("SELECT schema_version FROM runs WHERE id = 1").fetchone()
        if row is not None and (not isinstance(row[0], int) or row[0] > SCHEMA_VERSION):
            raise StoreError(
                f"{self.run_dir / DB_NAME} has store schema {row[0]!r}; this cogsim reads schema "
                f"{SCHEMA_VERSION} and older: open it with a newer cogsim"
            )

    def _record_migration(self) -> None:
        self.db.execute(
            "UPDATE runs SET schema_version = ? WHERE id = 1 AND schema_version < ?", (SCHEMA_VERSION, SCHEMA_VERSION)
        )

    def _add_columns(self) -> None:
        for table, column, declaration in _ADDED_COLUMNS:
            names = {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}
            if column not in names:
                try:
                    self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
                except sqlite3.OperationalError as exc:  # another process added it first
                    if "duplicate column" not in str(exc):
                        raise

    def record_config_change(self, config: dict, changes: dict) -> None:
        """A resume changed settings that do not change results (server URL, timeouts, concurrency,
        engine limits): the new config replaces the stored one and the change is logged."""
        self.db.execute("UPDATE runs SET config = ? WHERE id = 1", (json.dumps(config, sort_keys=True),))
        self.db.execute(
            "INSERT INTO config_changes (session, t, changes) VALUES (?, ?, ?)",
            (self.session or 0, time.time(), _dumps(changes)),
        )

    def config_changes(self) -> list[dict]:
        return [json.loads(c) for (c,) in self.db.execute("SELECT changes FROM config_changes ORDER BY rowid")]

    # -- run config -------------------------------------------------------------------------------
    def init_run(self, config: dict) -> None:
        """Record the run config; a directory holds exactly one run."""
        existing = self.config()
        if existing is not None:
            if existing != json.loads(json.dumps(config)):
                raise ValueError(f"{self.run_dir} already holds a different run; resume it or choose another --out")
            return
        self.db.execute(
            "INSERT INTO runs (id, schema_version, created, config) VALUES (1, ?, ?, ?)",
            (SCHEMA_VERSION, time.time(), json.dumps(config, sort_keys=True)),
        )

    def config(self) -> Optional[dict]:
        row = self.db.execute("SELECT config FROM runs WHERE id = 1").fetchone()
        return json.loads(row[0]) if row else None

    def begin_session(self) -> int:
        cursor = self.db.execute(
            "INSERT INTO sessions (started, pid, worker) VALUES (?, ?, ?)", (time.time(), os.getpid(), self.worker)
        )
        self.session = int(cursor.lastrowid or 0)
        return self.session

    def record_backend(self, spec: str, description: dict) -> None:
        """The decoding settings a model backend ran with in this session (model, sampling, server)."""
        self.db.execute(
            "INSERT OR REPLACE INTO backends (session, spec, description) VALUES (?, ?, ?)",
            (self.session, spec, _dumps(description)),
        )

    # -- images -------------------------------------------------------------------------------------
    def put_image(self, frame: np.ndarray) -> str:
        """Store a frame as PNG once (named by its content); returns its path relative to the run dir."""
        key = image_key(frame)
        if key not in self._known_images:
            from cogsim.render.png import to_png_bytes

            self.put_png(key, lambda: to_png_bytes(frame))
        return image_ref(key)

    def put_png(self, key: str, png) -> str:
        """Store the PNG of the frame whose content key is ``key`` (bytes, or a function giving them,
        called only if the file is new); returns its path relative to the run dir."""
        if not _is_image_key(key):
            raise ValueError(f"an image key is 64 lowercase hex digits, got {key!r}")
        ref = image_ref(key)
        path = self.run_dir / ref
        if key not in self._known_images and not path.exists():
            refuse_links(self.images_dir, path.parent)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_bytes_atomic(path, png() if callable(png) else png)
        self._known_images.add(key)
        return ref

    # -- writing a step -------------------------------------------------------------------------------
    def write_step(
        self, started: Iterable[EpisodeRow], turns: Iterable[TurnRow], finished: Iterable[EpisodeRow]
    ) -> None:
        """One transaction: new episodes, their turns, and the episodes that ended.

        Idempotent, so a step delivered twice (by a retried remote worker) is stored once: an episode
        already stored under its key (task, agent, episode index) keeps its id, and a turn already
        stored under (episode, turn) is kept as it is."""
        now = time.time()
        db = self.db
        started, turns, finished = list(started), list(turns), list(finished)
        db.execute("BEGIN IMMEDIATE")
        try:
            for episode in started:
                episode.id = db.execute(
                    "INSERT INTO episodes (task, env_id, suite, agent, agents, episode_index, seed, options, "
                    "system_prompt, history, status, started, session, loop) VALUES (?,?,?,?,?,?,?,?,?,?,'running',?,?,?) "
                    "ON CONFLICT (task, agent, episode_index) DO UPDATE SET task = excluded.task RETURNING id",
                    (
                        episode.task,
                        episode.env_id,
                        episode.suite,
                        episode.agent,
                        json.dumps(list(episode.agents)),
                        episode.episode_index,
                        episode.seed,
                        _dumps(episode.options),
                        to_db_text(episode.system_prompt),
                        episode.history,
                        now,
                        self.session,
                        _dumps(episode.loop) if episode.loop is not None else None,
                    ),
                ).fetchone()[0]
            db.executemany(
                _INSERT_TURN,
                [
                    (
                        t.episode.id,
                        *[encode(getattr(t, column)) for column, encode in _TURN_ENCODERS],
                        self.session,
                        now,
                    )
                    for t in turns
                ],
            )
            if finished:
                db.executemany(
                    "UPDATE episodes SET status=?, num_turns=?, total_reward=?, outcome=?, error=?, finished=?, fault=?, "
                    "loop=COALESCE(?, loop) WHERE id=?",
                    [
                        (
                            e.status,
                            e.num_turns,
                            e.total_reward,
                            _dumps(e.outcome) if e.outcome is not None else None,
                            to_db_text(e.error),
                            now if e.status != "running" else None,
                            e.fault,
                            _dumps(e.loop) if e.loop is not None else None,
                            e.id,
                        )
                        for e in finished
                    ],
                )
            db.execute("COMMIT")
        except sqlite3.OperationalError as error:
            _rollback(db)
            if "full" in str(error) or "disk I/O" in str(error):
                raise StoreError(
                    f"cannot write {self.run_dir / DB_NAME}: {error}; free some space, then "
                    f"`cogsim run --resume {self.run_dir}` continues from the last stored step"
                ) from None
            raise
        except BaseException:
            _rollback(db)
            raise
        if time.monotonic() - self._last_checkpoint > CHECKPOINT_INTERVAL_S:
            self._checkpoint("PASSIVE")

    def _checkpoint(self, mode: str) -> None:
        try:
            self.db.execute(f"PRAGMA wal_checkpoint({mode})")
        except sqlite3.OperationalError:  # busy: another connection holds it; a later one will do
            pass
        self._last_checkpoint = time.monotonic()

    # -- reading --------------------------------------------------------------------------------------
    def episode_states(self) -> dict[tuple, tuple[int, str]]:
        """(task, agent, episode_index) -> (episode id, status) for every stored episode."""
        rows = self.db.execute("SELECT task, agent, episode_index, id, status FROM episodes")
        return {(task, agent, index): (episode_id, status) for task, agent, index, episode_id, status in rows}

    def turns(self, episode_id: int) -> list[StoredTurn]:
        rows = self.db.execute(_SELECT_TURNS, (episode_id,))
        return [StoredTurn(*[decode(value) for decode, value in zip(_TURN_DECODERS, row)]) for row in rows]

    def episodes(self, statuses: Sequence[str] = ("done",)) -> list[dict]:
        """Episode records as the metrics expect them: the runner's fields plus the env's outcome."""
        marks = ",".join("?" * len(statuses))
        rows = self.db.execute(
            "SELECT id, task, env_id, suite, agent, agents, episode_index, seed, options, status, num_turns, "
            f"total_reward, outcome, error, fault FROM episodes WHERE status IN ({marks}) ORDER BY task, agent, episode_index",
            tuple(statuses),
        )
        records = []
        for (
            episode_id,
            task,
            env_id,
            suite,
            agent,
            agents,
            index,
            seed,
            options,
            status,
            num_turns,
            total_reward,
            outcome,
            error,
            fault,
        ) in rows:
            record = {
                "env_id": env_id,
                "options": json.loads(options),
                "seed": seed,
                "agent": agent,
                "agents": json.loads(agents),
                "turns": num_turns,
                "episode_index": index,
                "task": task,
                "suite": suite,
                "status": status,
                "total_reward": total_reward,
                "episode_id": episode_id,
            }
            if error:
                record["error"] = from_db_text(error)
            if fault:
                record["fault"] = fault
            record.update(json.loads(outcome) if outcome else {})
            records.append(record)
        return records

    # -- summaries (the runner's progress and summary, the report's tables) ---------------------------
    def progress_counts(self) -> tuple[int, int, int]:
        """(finished episodes, stored turns, parse failures)."""
        finished = self.db.execute("SELECT COUNT(*) FROM episodes WHERE status != 'running'").fetchone()[0]
        turns, failures = self.db.execute(
            "SELECT COUNT(*), COALESCE(SUM(parse = 'parse_failure'), 0) FROM turns"
        ).fetchone()
        return finished, turns, failures

    def turn_count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM turns").fetchone()[0]

    def status_counts(self) -> dict[str, int]:
        return dict(self.db.execute("SELECT status, COUNT(*) FROM episodes GROUP BY status"))

    def turn_totals(self) -> tuple[int, int, int]:
        """(turns, parse failures, turns with a backend error)."""
        return self.db.execute(
            "SELECT COUNT(*), COALESCE(SUM(parse = 'parse_failure'), 0), COALESCE(SUM(error IS NOT NULL), 0) FROM turns"
        ).fetchone()

    def pending_faults(self) -> dict[str, tuple[int, str]]:
        """Backend faults that stopped still-unfinished episodes: kind -> (episodes, the message of the
        first such episode, the one that stopped the run)."""
        faults = {}
        for kind, count in self.db.execute(
            "SELECT fault, COUNT(*) FROM episodes WHERE status = 'running' AND fault IS NOT NULL GROUP BY fault"
        ):
            (first,) = self.db.execute(
                "SELECT error FROM episodes WHERE status = 'running' AND fault = ? ORDER BY finished IS NULL, id LIMIT 1",
                (kind,),
            ).fetchone()
            faults[kind] = (count, from_db_text(first) or "")
        return faults

    def suites(self) -> list[str]:
        return [row[0] for row in self.db.execute("SELECT DISTINCT suite FROM episodes ORDER BY suite")]

    def episode_counts(self) -> list[tuple]:
        """Per (task, agent): task, env_id, agent, episodes, done, truncated, errors, unfinished, stopped
        by a backend fault, stored turns (an interrupted run's unfinished episodes have turns too)."""
        return self.db.execute(
            """SELECT e.task, e.env_id, e.agent, COUNT(*), SUM(e.status = 'done'), SUM(e.status = 'truncated'),
                      SUM(e.status = 'error'), SUM(e.status = 'running' AND e.fault IS NULL),
                      SUM(e.status = 'running' AND e.fault IS NOT NULL),
                      (SELECT COUNT(*) FROM turns t JOIN episodes x ON x.id = t.episode_id
                       WHERE x.task = e.task AND x.agent = e.agent)
               FROM episodes e GROUP BY e.task, e.agent ORDER BY e.task, e.agent"""
        ).fetchall()

    def turn_stats(self) -> dict[tuple, tuple]:
        """(task, agent) -> (parse failures, invalid answers, replies cut by length, replies with a finish
        reason, mean latency, prompt tokens, completion tokens)."""
        rows = self.db.execute(
            """SELECT e.task, e.agent, SUM(t.parse = 'parse_failure'), SUM(t.parse = 'invalid'),
                      SUM(t.finish_reason = 'length'), SUM(t.finish_reason IS NOT NULL), AVG(t.latency_s),
                      SUM(t.prompt_tokens), SUM(t.completion_tokens)
               FROM turns t JOIN episodes e ON e.id = t.episode_id GROUP BY e.task, e.agent"""
        )
        return {(task, agent): tuple(stats) for task, agent, *stats in rows}

    def finished_rewards(self) -> dict[tuple, list[float]]:
        """(task, agent) -> total rewards of the finished ('done') episodes."""
        rewards: dict[tuple, list[float]] = {}
        for task, agent, total in self.db.execute(
            "SELECT task, agent, total_reward FROM episodes WHERE status = 'done'"
        ):
            rewards.setdefault((task, agent), []).append(total)
        return rewards

    def failed_episodes(self, limit: int) -> list[tuple]:
        """(env_id, agent, seed, error) of the first episodes that ended in an error."""
        return [
            (env_id, agent, seed, from_db_text(error))
            for env_id, agent, seed, error in self.db.execute(
                "SELECT env_id, agent, seed, error FROM episodes WHERE status = 'error' ORDER BY id LIMIT ?", (limit,)
            )
        ]

    def parse_failure_examples(self, limit: int) -> list[tuple]:
        """(env_id, agent, seed, turn, response, backend error) of the first turns the parser rejected."""
        rows = self.db.execute(
            """SELECT e.env_id, t.agent, e.seed, t.turn, t.response, t.error FROM turns t JOIN episodes e
               ON e.id = t.episode_id WHERE t.parse = 'parse_failure' ORDER BY e.id, t.turn LIMIT ?""",
            (limit,),
        )
        return [(*head, from_db_text(response), from_db_text(error)) for *head, response, error in rows]

    def session_spans(self) -> list[tuple[float, float, int]]:
        """(start, last turn's time, turns) of every session that stored turns, by start."""
        return self.db.execute(
            "SELECT s.started, MAX(t.t), COUNT(*) FROM sessions s JOIN turns t ON t.session = s.id "
            "GROUP BY s.id ORDER BY s.started"
        ).fetchall()

    def process_count(self) -> int:
        return self.db.execute("SELECT COUNT(DISTINCT pid) FROM sessions").fetchone()[0]

    def finished_episode_heads(self) -> list[tuple]:
        """(id, env_id, agent, seed, system prompt, history policy) of the finished episodes, in order."""
        return [
            (i, env_id, agent, seed, from_db_text(system), history)
            for i, env_id, agent, seed, system, history in self.db.execute(
                "SELECT id, env_id, agent, seed, system_prompt, history FROM episodes WHERE status = 'done' ORDER BY id"
            )
        ]

    def query(self, sql: str, params: Sequence = ()) -> list[tuple]:
        """Rows of a read query, for tests and ad-hoc inspection (cogsim's own modules use the methods
        above, so the SQL stays in this module); text stored as a BLOB comes back as ``str``."""
        return [
            row if not any(type(v) is bytes for v in row) else tuple(from_db_text(v) for v in row)
            for row in self.db.execute(sql, params).fetchall()
        ]

    def save_metrics(self, suite: str, tables: list) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO metrics (suite, tables, computed) VALUES (?, ?, ?)",
            (suite, _dumps(tables), time.time()),
        )

    def close(self) -> None:
        if self.session is not None:
            self._checkpoint("PASSIVE")
        self.db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_store(run_dir: str | os.PathLike) -> Store:
    """Open an existing run directory (ValueError if it holds no run)."""
    path = Path(run_dir)
    if not (path / DB_NAME).exists():
        raise ValueError(f"{path} holds no cogsim run (no {DB_NAME})")
    return Store(path)


_TURN_ENCODERS = tuple(
    (
        column,
        {
            "prompt": to_db_text,
            "response": to_db_text,
            "error": to_db_text,
            "images": _json_list,
            "options": _json_list,
            "parsed": lambda value: _dumps_parsed(value),
        }.get(column, _same),
    )
    for column in TURN_COLUMNS
)
_TURN_DECODERS = tuple(
    {
        "prompt": from_db_text,
        "response": from_db_text,
        "error": from_db_text,
        "images": _load_list,
        "options": _load_list,
        "parsed": _load_json,
        "terminated": bool,
        "truncated": bool,
    }.get(column, _same)
    for column in TURN_COLUMNS
)
_INSERT_TURN = (
    f"INSERT INTO turns (episode_id, {', '.join(TURN_COLUMNS)}, session, t) "
    f"VALUES ({', '.join('?' * (len(TURN_COLUMNS) + 3))}) ON CONFLICT (episode_id, turn) DO NOTHING"
)


def image_ref(key: str) -> str:
    """Where the PNG of the frame with content key ``key`` lies in a run directory."""
    return f"images/{key[:2]}/{key}.png"


def _is_image_key(key: str) -> bool:
    return isinstance(key, str) and len(key) == 64 and all(c in "0123456789abcdef" for c in key)


_SELECT_TURNS = f"SELECT {', '.join(TURN_COLUMNS)} FROM turns WHERE episode_id = ? ORDER BY turn"


def _rollback(db: sqlite3.Connection) -> None:
    try:
        db.execute("ROLLBACK")
    except sqlite3.OperationalError:  # SQLite already rolled back (disk full ends the transaction)
        pass


def _dumps_parsed(value: Any) -> Optional[str]:
    if value is None:
        return None
    if type(value) is int:  # the common case, without the encoder's setup cost
        return str(value)
    return _dumps(value)


def _dumps(value: Any) -> str:
    return json.dumps(value, default=_json_default, separators=(",", ":"))


def _json_default(value: Any):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if hasattr(value, "__dataclass_fields__"):
        from dataclasses import asdict

        return asdict(value)
    return str(value)
