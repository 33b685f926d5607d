"""The SQLite side of the results store.

A store may come from someone else (docs/security.md): before use its schema must be exactly one
cogsim writes (the expected tables and columns, no trigger, view, index or table of its own), else
it is refused without being changed; ``report`` and ``export`` open it read-only. Every statement
runs under a time bound (SQLite's progress handler), no value longer than ``MAX_VALUE_BYTES`` is
read, stored JSON is parsed with size and depth bounds, and every value read is checked for its
type; a failure is one :class:`StoreError` naming the file and what is wrong.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence

import numpy as np

from cogsim._files import Folders, refuse_links
from cogsim._untrusted import MAX_VALUE_BYTES, load_json, printable, shown, size_text

DB_NAME = "store.sqlite"
# 1: the first release; 2: adds episodes.fault and .loop, turns.finish_reason and .history_dropped;
# 3: adds runs.signature (the run key's HMAC of the config: who created the run, cogsim.harness.trust).
# An older store cogsim made is migrated when opened for writing and read as it is otherwise.
SCHEMA_VERSION = 3
CHECKPOINT_INTERVAL_S = 5.0
QUERY_TIME_LIMIT_S = 60.0  # any one statement; far above what cogsim's own queries take on large runs
MAX_JSON_BYTES = 16 << 20  # the longest stored JSON document (a config, an outcome, a parsed answer)
STATUSES = ("running", "done", "truncated", "error")

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


# The columns each later schema adds, in order: (table, column, declaration, its value in older stores).
_MIGRATIONS = {
    2: (
        ("episodes", "fault", "TEXT", "NULL"),  # fault kind of the backend call that stopped a 'running' episode
        ("episodes", "loop", "TEXT", "NULL"),  # JSON: on_overflow policy and the env's decoding defaults used
        ("turns", "finish_reason", "TEXT", "NULL"),
        ("turns", "history_dropped", "INTEGER NOT NULL DEFAULT 0", "0"),  # oldest exchanges left out (on_overflow)
    ),
    3: (("runs", "signature", "TEXT", "NULL"),),
}


class StoreError(ValueError):
    """A run directory's store cannot be used (not a cogsim store, corrupt, newer schema, a bad value,
    disk full); the message names the file and what is wrong."""


class _BadValue(ValueError):
    """A stored value of the wrong type or shape (turned into a StoreError naming where it was)."""


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


def _same(value):
    return value


# -- reading values back: each column's type and shape is checked ---------------------------------------
def _read_int(value) -> int:
    if type(value) is not int:
        raise _BadValue("an integer")
    return value


def _read_real(value) -> float:
    if type(value) is float:
        return value
    if type(value) is not int:
        raise _BadValue("a number")
    return float(value)


# The latest time a store may hold (the end of the year 9999, the last a date can show) and the
# longest duration (some 30 years): a number past them is not one cogsim wrote.
MAX_TIME = 253402300799.0
MAX_SECONDS = 1e9


def _read_time(value) -> float:
    """A time cogsim recorded (seconds since 1970): finite, from 1970 to the year 9999."""
    time_value = _read_real(value)
    if not 0.0 <= time_value <= MAX_TIME:  # False for NaN too
        raise _BadValue("a time (seconds since 1970, up to the year 9999)")
    return time_value


def _read_seconds(value) -> float:
    """A duration in seconds: finite, not negative, at most MAX_SECONDS."""
    seconds = _read_real(value)
    if not 0.0 <= seconds <= MAX_SECONDS:
        raise _BadValue(f"a duration (0 to {MAX_SECONDS:.0e} seconds)")
    return seconds


def _read_count(value) -> int:
    """A count (turns, tokens, attempts): an integer, not negative."""
    if type(value) is not int or value < 0:
        raise _BadValue("a count (an integer, 0 or more)")
    return value


def _read_bool(value) -> bool:
    if value not in (0, 1) or type(value) is not int:
        raise _BadValue("0 or 1")
    return bool(value)


def _read_text(value) -> str:
    if type(value) is str:
        return value
    if type(value) is bytes:  # text UTF-8 cannot encode, stored by to_db_text
        try:
            return value.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            raise _BadValue("text") from None
    raise _BadValue("text")


def _read_json(value) -> Any:
    try:
        return load_json(_read_text(value), "the JSON", MAX_JSON_BYTES)
    except ValueError as error:
        raise _BadValue(f"JSON within bounds ({error})") from None


def _read_dict(value) -> dict:
    data = _read_json(value)
    if not isinstance(data, dict):
        raise _BadValue("a JSON object")
    return data


def _read_texts(value) -> list:
    """A JSON list of strings (stored as NULL when empty)."""
    if value is None:
        return []
    data = _read_json(value)
    if not isinstance(data, list) or not all(isinstance(item, str) for item in data):
        raise _BadValue("a JSON list of strings")
    return data


# A stored frame: the SHA-256 of its content, in the folder of its first two digits, as the PNG or JPEG
# file it was sent as (runs before JPEG frames named PNGs by the SHA-256 of their pixels; either reads).
IMAGE_REF = re.compile(r"images/([0-9a-f]{2})/([0-9a-f]{64})\.(png|jpg)")
IMAGE_SUFFIXES = (".png", ".jpg")


def is_image_ref(ref: Any) -> bool:
    """Whether ``ref`` has the one form a stored frame's reference may have."""
    match = IMAGE_REF.fullmatch(ref) if isinstance(ref, str) else None
    return match is not None and match.group(2)[:2] == match.group(1)


def _read_image_refs(value) -> list:
    """A JSON list of image references, each the content key of a PNG or JPEG inside the run's images/."""
    refs = _read_texts(value)
    for ref in refs:
        if not is_image_ref(ref):
            raise _BadValue(f"image references of the form images/ab/<64 hex digits>.png or .jpg, not {shown(ref)}")
    return refs


def _read_change(value) -> dict:
    """A logged config change: {setting: [old, new]}."""
    data = _read_dict(value)
    if not all(isinstance(pair, list) and len(pair) == 2 for pair in data.values()):
        raise _BadValue("a JSON object of [old, new] pairs")
    return data


def _read_status(value) -> str:
    if value not in STATUSES or type(value) is not str:
        raise _BadValue(f"one of {', '.join(STATUSES)}")
    return value


_READERS: dict[str, Callable[[Any], Any]] = {
    "int": _read_int,
    "real": _read_real,
    "time": _read_time,
    "seconds": _read_seconds,
    "count": _read_count,
    "bool": _read_bool,
    "text": _read_text,
    "json": _read_json,
    "dict": _read_dict,
    "texts": _read_texts,
    "images": _read_image_refs,
    "status": _read_status,
    "change": _read_change,
    "any": _same,
}


def _nullable(read: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else read(value)


@lru_cache(maxsize=None)
def _columns(spec: str) -> tuple[tuple[str, Callable[[Any], Any]], ...]:
    """Readers for a row: "name:kind name:kind? ..." (kind in _READERS; "?" allows NULL)."""
    columns = []
    for item in spec.split():
        name, _, kind = item.partition(":")
        read = _READERS[kind.rstrip("?")]
        columns.append((name, _nullable(read) if kind.endswith("?") else read))
    return tuple(columns)


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
    """One run directory. Open it in every process that writes (each gets its own connection);
    ``readonly`` opens an existing store only to read it (reports, exports), changing nothing."""

    def __init__(
        self,
        run_dir: str | os.PathLike,
        worker: int = 0,
        *,
        readonly: bool = False,
        query_time_limit_s: float = QUERY_TIME_LIMIT_S,
    ):
        self.run_dir = Path(run_dir)
        self.readonly = readonly
        self.images_dir = self.run_dir / "images"
        self.path = self.run_dir / DB_NAME
        self.query_time_limit_s = float(query_time_limit_s)
        self._deadline = time.monotonic() + self.query_time_limit_s
        if readonly and not os.path.lexists(self.path):
            raise StoreError(f"{self.run_dir} holds no cogsim run (no {DB_NAME})")
        if not readonly:
            self.run_dir.mkdir(parents=True, exist_ok=True)
        # SQLite opens by name: a link in place of the store or its journal would be written through,
        # and a FIFO or a device there would block it or feed it endless bytes
        files = (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm"), Path(f"{self.path}-journal"))
        refuse_links(*files, self.images_dir)
        for file in files:
            if file.exists() and not file.is_file():
                raise StoreError(f"{file} is not a regular file; a cogsim store and its journals are regular files")
        try:
            self.db = self._connect()
            self._open()
        except sqlite3.Error as error:
            if getattr(self, "db", None) is not None:
                self.db.close()
            raise StoreError(
                f"{self.path} is not a readable cogsim store ({self._reason(error)}); "
                "if it was damaged, restore it or start the run in a new directory"
            ) from None
        except BaseException:
            if getattr(self, "db", None) is not None:
                self.db.close()
            raise
        self.worker = worker
        self.session: Optional[int] = None
        self._known_images: set[str] = set()  # references written (or found) in this session
        self._image_folders = Folders(self.run_dir)  # images/ and images/ab/, each opened once

    # -- opening: a connection with bounds, and the schema check --------------------------------------
    def _connect(self) -> sqlite3.Connection:
        if self.readonly:
            uri = f"{self.path.absolute().as_uri()}?mode=ro"
            db = sqlite3.connect(uri, uri=True, timeout=120.0, isolation_level=None)
        else:
            db = sqlite3.connect(self.path, timeout=120.0, isolation_level=None)
        db.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)  # longer values fail to load instead
        db.set_progress_handler(self._past_deadline, 1000)
        return db

    def _past_deadline(self) -> bool:
        return time.monotonic() > self._deadline

    def _execute(self, sql: str, params: Sequence = ()) -> sqlite3.Cursor:
        """Every statement goes through here: it gets query_time_limit_s from now."""
        self._deadline = time.monotonic() + self.query_time_limit_s
        return self.db.execute(sql, params)

    def _open(self) -> None:
        self._execute("PRAGMA busy_timeout=120000")
        version = self._schema_version()  # before anything is written: a foreign file stays as it was
        if self.readonly:
            if version == 0:
                raise StoreError(f"{self.run_dir} holds no cogsim run ({self.path} has no tables)")
            self._compatible_views(version)
            self._execute("PRAGMA query_only=1")
            return
        self._execute("PRAGMA journal_mode=WAL")
        self._execute("PRAGMA synchronous=NORMAL")
        # Checkpoints (WAL -> database, with an fsync) on a timer instead of every 1000 pages:
        # automatic ones cost half the time of a small commit.
        self._execute("PRAGMA wal_autocheckpoint=0")
        self._last_checkpoint = time.monotonic()
        if version < SCHEMA_VERSION:
            self._migrate()

    def _schema_version(self) -> int:
        """The schema of the file: 0 when it has no tables yet, else the version whose tables it holds
        exactly (StoreError for anything else: a foreign database, extra objects, a newer schema)."""
        found = _objects(self._execute)
        if not found:
            return 0
        matches = [v for v in range(SCHEMA_VERSION, 0, -1) if found == _expected_objects(v)]
        recorded = self._recorded_version(found)
        if isinstance(recorded, int) and recorded > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has store schema {recorded}; this cogsim reads schema {SCHEMA_VERSION} and older: "
                "open it with a newer cogsim"
            )
        if not matches:
            raise StoreError(f"{self.path} is not a cogsim store: {_difference(found)}; cogsim changes nothing in it")
        if recorded is not None and recorded != matches[0]:
            raise StoreError(
                f"{self.path} records store schema {shown(recorded)} but holds the tables of schema {matches[0]}; "
                "it was not written by cogsim"
            )
        return matches[0]

    def _recorded_version(self, found: dict) -> Any:
        """runs.schema_version where ``runs`` is a table holding that column (None: no run recorded)."""
        runs = found.get(("table", "runs", "runs"))
        if runs is None or "schema_version" not in runs:
            return None
        row = self._execute("SELECT schema_version FROM runs WHERE id = 1").fetchone()
        return None if row is None else row[0]

    def _migrate(self) -> None:
        """Create the tables of a new store, or add the columns of later schemas to an older one (a
        store cogsim made: the schema check passed), in one transaction."""
        self._execute("BEGIN IMMEDIATE")
        try:
            version = self._schema_version()  # another process may have done it meanwhile
            if version == 0:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self._execute(statement)
                version = 1
            for later in range(version + 1, SCHEMA_VERSION + 1):
                for table, column, declaration, _ in _MIGRATIONS[later]:
                    self._execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
            self._execute("UPDATE runs SET schema_version = ? WHERE id = 1", (SCHEMA_VERSION,))
            self._execute("COMMIT")
        except BaseException:
            _rollback(self.db)
            raise

    def _compatible_views(self, version: int) -> None:
        """Read-only access to an older store: temporary views that show the later columns with the
        values older rows have, so every reader sees the current schema (the file is not changed)."""
        added: dict[str, list[str]] = {}
        for later in range(version + 1, SCHEMA_VERSION + 1):
            for table, column, _, value in _MIGRATIONS[later]:
                added.setdefault(table, []).append(f"{value} AS {column}")
        for table, columns in added.items():
            self._execute(f"CREATE TEMP VIEW {table} AS SELECT *, {', '.join(columns)} FROM main.{table}")

    def _error(self, what: str, error: BaseException) -> StoreError:
        """A StoreError naming the file, what was being done and what went wrong."""
        return StoreError(
            f"{self.path}: {what}: {self._reason(error)}; if the store was damaged, restore it or start the run in "
            "a new directory"
        )

    def _reason(self, error: BaseException) -> str:
        text = str(error)
        if isinstance(error, sqlite3.DataError) or "too big" in text:
            return f"it holds a value longer than the {size_text(MAX_VALUE_BYTES)} cogsim reads from a store"
        if "interrupted" in text:
            return f"a query took longer than {self.query_time_limit_s:g} s and was stopped"
        if "readonly" in text or "read-only" in text:
            return "it was opened read-only"
        return printable(text, 200)

    def _rows(self, what: str, sql: str, params: Sequence = (), columns: str = "") -> list:
        """The rows of a read query, each value checked by ``columns`` ("name:kind ...", see _columns)."""
        try:
            rows = self._execute(sql, params).fetchall()
        except sqlite3.Error as error:
            raise self._error(f"reading {what}", error) from None
        if not columns:
            return rows
        return [self._typed(row, columns, what) for row in rows]

    def _iter_rows(self, what: str, sql: str, params: Sequence, columns: str) -> Iterator[tuple]:
        """As _rows, one row at a time (a long result is never held whole)."""
        try:
            cursor = self._execute(sql, params)
            for row in cursor:
                yield self._typed(row, columns, what)
        except sqlite3.Error as error:
            raise self._error(f"reading {what}", error) from None

    def _typed(self, row: tuple, columns: str, what: str) -> tuple:
        readers = _columns(columns)
        values = []
        for (name, read), value in zip(readers, row):
            try:
                values.append(read(value))
            except _BadValue as bad:
                raise StoreError(
                    f"{self.path}: {what}: column {name} holds {_kind_of(value)} where cogsim stores {bad}; "
                    "the store was not written by cogsim or was damaged"
                ) from None
        return tuple(values)

    def _write(self, sql: str, params: Sequence = ()) -> sqlite3.Cursor:
        try:
            return self._execute(sql, params)
        except sqlite3.OperationalError as error:
            raise self._error("writing", error) from None

    def record_config_change(self, config: dict, changes: dict, signature: Optional[str] = None) -> None:
        """A resume changed settings that do not change results (server URL, timeouts, concurrency,
        engine limits): the new config (and its signature, or none) replaces the stored one and the
        change is logged."""
        self._write("BEGIN IMMEDIATE")
        try:
            self._write(
                "UPDATE runs SET config = ?, signature = ? WHERE id = 1",
                (json.dumps(config, sort_keys=True), signature),
            )
            self._write(
                "INSERT INTO config_changes (session, t, changes) VALUES (?, ?, ?)",
                (self.session or 0, time.time(), _dumps(changes)),
            )
            self._write("COMMIT")
        except BaseException:
            _rollback(self.db)
            raise

    def config_changes(self) -> list[dict]:
        return [
            c
            for (c,) in self._rows(
                "the config changes", "SELECT changes FROM config_changes ORDER BY rowid", (), "changes:change"
            )
        ]

    # -- run config -------------------------------------------------------------------------------
    def init_run(self, config: dict, signature: Optional[str] = None) -> None:
        """Record the run config (with its signature: who created the run); a directory holds exactly one run."""
        existing = self.config()
        if existing is not None:
            if existing != json.loads(json.dumps(config)):
                raise ValueError(f"{self.run_dir} already holds a different run; resume it or choose another --out")
            return
        self._write(
            "INSERT INTO runs (id, schema_version, created, config, signature) VALUES (1, ?, ?, ?, ?)",
            (SCHEMA_VERSION, time.time(), json.dumps(config, sort_keys=True), signature),
        )

    def config(self) -> Optional[dict]:
        rows = self._rows("the run config", "SELECT config FROM runs WHERE id = 1", (), "config:dict")
        return rows[0][0] if rows else None

    def signature(self) -> Optional[str]:
        """The stored signature of the run config (None: unsigned)."""
        rows = self._rows(
            "the run config's signature", "SELECT signature FROM runs WHERE id = 1", (), "signature:text?"
        )
        return rows[0][0] if rows else None

    def sign(self, signature: Optional[str]) -> None:
        self._write("UPDATE runs SET signature = ? WHERE id = 1", (signature,))

    def begin_session(self) -> int:
        cursor = self._write(
            "INSERT INTO sessions (started, pid, worker) VALUES (?, ?, ?)", (time.time(), os.getpid(), self.worker)
        )
        self.session = int(cursor.lastrowid or 0)
        return self.session

    def record_backend(self, spec: str, description: dict) -> None:
        """The decoding settings a model backend ran with in this session (model, sampling, server)."""
        self._write(
            "INSERT OR REPLACE INTO backends (session, spec, description) VALUES (?, ?, ?)",
            (self.session, spec, _dumps(description)),
        )

    # -- images -------------------------------------------------------------------------------------
    def put_image(self, frame) -> str:
        """Store a frame once, as the bytes it was sent as (a ``SentFrame``: PNG or JPEG; a plain array:
        PNG), named by their SHA-256; returns its path relative to the run dir."""
        from cogsim.render.frames import as_sent  # the renderer's package only when frames are shown

        sent = as_sent(frame)
        return self.put_encoded(image_ref(sent.key, sent.suffix), lambda: sent.data)

    def put_encoded(self, ref: str, data) -> str:
        """Store the bytes of the frame whose reference is ``ref`` (bytes, or a function giving them,
        called only if the file is new), in images/ab/ opened once without following a link; returns
        ``ref``. ValueError for a reference of another form."""
        if not is_image_ref(ref):
            raise ValueError(f"an image reference is images/ab/<64 hex digits>.png or .jpg, got {shown(ref)}")
        if ref not in self._known_images:
            images, folder, name = ref.split("/")
            self._image_folders.write_new((images, folder), name, data)
            self._known_images.add(ref)
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
        self._execute("BEGIN IMMEDIATE")  # the step's statements share this one's time bound
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
        except (sqlite3.OperationalError, sqlite3.DataError) as error:
            _rollback(db)
            if "full" in str(error) or "disk I/O" in str(error):
                raise StoreError(
                    f"cannot write {self.run_dir / DB_NAME}: {error}; free some space, then "
                    f"`cogsim run --resume {self.run_dir}` continues from the last stored step"
                ) from None
            raise self._error("writing a step", error) from None
        except BaseException:
            _rollback(db)
            raise
        if time.monotonic() - self._last_checkpoint > CHECKPOINT_INTERVAL_S:
            self._checkpoint("PASSIVE")

    def _checkpoint(self, mode: str) -> None:
        try:
            self._execute(f"PRAGMA wal_checkpoint({mode})")
        except sqlite3.OperationalError:  # busy: another connection holds it; a later one will do
            pass
        self._last_checkpoint = time.monotonic()

    # -- reading --------------------------------------------------------------------------------------
    def episode_states(self) -> dict[tuple, tuple[int, str]]:
        """(task, agent, episode_index) -> (episode id, status) for every stored episode."""
        rows = self._rows(
            "the episodes",
            "SELECT task, agent, episode_index, id, status FROM episodes",
            (),
            "task:int agent:text episode_index:int id:int status:status",
        )
        return {(task, agent, index): (episode_id, status) for task, agent, index, episode_id, status in rows}

    def turns(self, episode_id: int) -> list[StoredTurn]:
        return list(self.iter_turns(episode_id))

    def iter_turns(self, episode_id: int) -> Iterator[StoredTurn]:
        """The stored turns of an episode in order, read one at a time."""
        rows = self._iter_rows(f"the turns of episode {episode_id}", _SELECT_TURNS, (episode_id,), _TURN_SPEC)
        return (StoredTurn(*row) for row in rows)

    def episodes(self, statuses: Sequence[str] = ("done",)) -> list[dict]:
        """Episode records as the metrics expect them: the runner's fields plus the env's outcome."""
        marks = ",".join("?" * len(statuses))
        rows = self._rows(
            "the episodes",
            "SELECT id, task, env_id, suite, agent, agents, episode_index, seed, options, status, num_turns, "
            f"total_reward, outcome, error, fault FROM episodes WHERE status IN ({marks}) ORDER BY task, agent, episode_index",
            tuple(statuses),
            "id:int task:int env_id:text suite:text agent:text agents:texts episode_index:int seed:int options:dict "
            "status:status num_turns:count total_reward:real outcome:dict? error:text? fault:text?",
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
                "options": options,
                "seed": seed,
                "agent": agent,
                "agents": agents,
                "turns": num_turns,
                "episode_index": index,
                "task": task,
                "suite": suite,
                "status": status,
                "total_reward": total_reward,
                "episode_id": episode_id,
            }
            if error:
                record["error"] = error
            if fault:
                record["fault"] = fault
            record.update(outcome or {})
            records.append(record)
        return records

    # -- summaries (the runner's progress and summary, the report's tables) ---------------------------
    def progress_counts(self) -> tuple[int, int, int]:
        """(finished episodes, stored turns, parse failures)."""
        ((finished,),) = self._rows(
            "the episodes", "SELECT COUNT(*) FROM episodes WHERE status != 'running'", (), "finished:int"
        )
        ((turns, failures),) = self._rows(
            "the turns",
            "SELECT COUNT(*), COALESCE(SUM(parse = 'parse_failure'), 0) FROM turns",
            (),
            "turns:int failures:int",
        )
        return finished, turns, failures

    def turn_count(self) -> int:
        return self._rows("the turns", "SELECT COUNT(*) FROM turns", (), "turns:int")[0][0]

    def status_counts(self) -> dict[str, int]:
        rows = self._rows(
            "the episodes", "SELECT status, COUNT(*) FROM episodes GROUP BY status", (), "status:status count:int"
        )
        return dict(rows)

    def turn_totals(self) -> tuple[int, int, int]:
        """(turns, parse failures, turns with a backend error)."""
        return self._rows(
            "the turns",
            "SELECT COUNT(*), COALESCE(SUM(parse = 'parse_failure'), 0), COALESCE(SUM(error IS NOT NULL), 0) FROM turns",
            (),
            "turns:int failures:int errors:int",
        )[0]

    def pending_faults(self) -> dict[str, tuple[int, str]]:
        """Backend faults that stopped still-unfinished episodes: kind -> (episodes, the message of the
        first such episode, the one that stopped the run)."""
        faults = {}
        for kind, count in self._rows(
            "the backend faults",
            "SELECT fault, COUNT(*) FROM episodes WHERE status = 'running' AND fault IS NOT NULL GROUP BY fault",
            (),
            "fault:text count:int",
        ):
            ((first,),) = self._rows(
                "the backend faults",
                "SELECT error FROM episodes WHERE status = 'running' AND fault = ? ORDER BY finished IS NULL, id LIMIT 1",
                (kind,),
                "error:text?",
            )
            faults[kind] = (count, first or "")
        return faults

    def suites(self) -> list[str]:
        rows = self._rows("the episodes", "SELECT DISTINCT suite FROM episodes ORDER BY suite", (), "suite:text")
        return [suite for (suite,) in rows]

    def episode_counts(self) -> list[tuple]:
        """Per (task, agent): task, env_id, agent, episodes, done, truncated, errors, unfinished, stopped
        by a backend fault, stored turns (an interrupted run's unfinished episodes have turns too)."""
        return self._rows(
            "the episodes",
            """SELECT e.task, e.env_id, e.agent, COUNT(*), SUM(e.status = 'done'), SUM(e.status = 'truncated'),
                      SUM(e.status = 'error'), SUM(e.status = 'running' AND e.fault IS NULL),
                      SUM(e.status = 'running' AND e.fault IS NOT NULL), COALESCE(SUM(c.turns), 0)
               FROM episodes e LEFT JOIN (SELECT episode_id, COUNT(*) AS turns FROM turns GROUP BY episode_id) c
               ON c.episode_id = e.id GROUP BY e.task, e.agent ORDER BY e.task, e.agent""",
            (),
            "task:int env_id:text agent:text episodes:int done:int truncated:int errors:int unfinished:int "
            "faulted:int turns:int",
        )

    def turn_stats(self) -> dict[tuple, tuple]:
        """(task, agent) -> (parse failures, invalid answers, replies cut by length, replies with a finish
        reason, mean latency, prompt tokens, completion tokens)."""
        rows = self._rows(
            "the turns",
            """SELECT e.task, e.agent, SUM(t.parse = 'parse_failure'), SUM(t.parse = 'invalid'),
                      SUM(t.finish_reason = 'length'), SUM(t.finish_reason IS NOT NULL), AVG(t.latency_s),
                      SUM(t.prompt_tokens), SUM(t.completion_tokens)
               FROM turns t JOIN episodes e ON e.id = t.episode_id GROUP BY e.task, e.agent""",
            (),
            "task:int agent:text failures:int? invalid:int? cut:int? reasons:int? latency:seconds? prompt_tokens:count? "
            "completion_tokens:count?",
        )
        return {(task, agent): tuple(stats) for task, agent, *stats in rows}

    def finished_rewards(self) -> dict[tuple, list[float]]:
        """(task, agent) -> total rewards of the finished ('done') episodes."""
        rewards: dict[tuple, list[float]] = {}
        for task, agent, total in self._rows(
            "the episodes",
            "SELECT task, agent, total_reward FROM episodes WHERE status = 'done'",
            (),
            "task:int agent:text total_reward:real",
        ):
            rewards.setdefault((task, agent), []).append(total)
        return rewards

    def failed_episodes(self, limit: int) -> list[tuple]:
        """(env_id, agent, seed, error) of the first episodes that ended in an error."""
        return self._rows(
            "the episodes",
            "SELECT env_id, agent, seed, error FROM episodes WHERE status = 'error' ORDER BY id LIMIT ?",
            (limit,),
            "env_id:text agent:text seed:int error:text?",
        )

    def parse_failure_examples(self, limit: int) -> list[tuple]:
        """(env_id, agent, seed, turn, response, backend error) of the first turns the parser rejected."""
        return self._rows(
            "the turns",
            """SELECT e.env_id, t.agent, e.seed, t.turn, t.response, t.error FROM turns t JOIN episodes e
               ON e.id = t.episode_id WHERE t.parse = 'parse_failure' ORDER BY e.id, t.turn LIMIT ?""",
            (limit,),
            "env_id:text agent:text seed:int turn:int response:text error:text?",
        )

    def session_spans(self) -> list[tuple[float, float, int]]:
        """(start, last turn's time, turns) of every session that stored turns, by start."""
        return self._rows(
            "the sessions",
            "SELECT s.started, MAX(t.t), COUNT(*) FROM sessions s JOIN turns t ON t.session = s.id "
            "GROUP BY s.id ORDER BY s.started",
            (),
            "started:time t:time turns:int",
        )

    def process_count(self) -> int:
        return self._rows("the sessions", "SELECT COUNT(DISTINCT pid) FROM sessions", (), "processes:int")[0][0]

    def finished_episode_heads(self) -> list[tuple]:
        """(id, env_id, agent, seed, system prompt, history policy) of the finished episodes, in order."""
        return self._rows(
            "the episodes",
            "SELECT id, env_id, agent, seed, system_prompt, history FROM episodes WHERE status = 'done' ORDER BY id",
            (),
            "id:int env_id:text agent:text seed:int system_prompt:text? history:text",
        )

    def query(self, sql: str, params: Sequence = ()) -> list[tuple]:
        """Rows of a read query, for tests and ad-hoc inspection (cogsim's own modules use the methods
        above, so the SQL stays in this module); text stored as a BLOB comes back as ``str``."""
        return [
            row if not any(type(v) is bytes for v in row) else tuple(from_db_text(v) for v in row)
            for row in self._rows("a query", sql, params)
        ]

    def save_metrics(self, suite: str, tables: list) -> None:
        self._write(
            "INSERT OR REPLACE INTO metrics (suite, tables, computed) VALUES (?, ?, ?)",
            (suite, _dumps(tables), time.time()),
        )

    def close(self) -> None:
        if self.session is not None and not self.readonly:
            self._checkpoint("PASSIVE")
        self.db.close()
        self._image_folders.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _objects(execute: Callable[[str], Any]) -> dict[tuple, Optional[str]]:
    """(type, name, table) -> normalised SQL of every object in a database's schema."""
    rows = execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    return {
        (kind, name, table): " ".join(sql.split()) if isinstance(sql, str) else sql for kind, name, table, sql in rows
    }


@lru_cache(maxsize=None)
def _expected_objects(version: int) -> dict[tuple, Optional[str]]:
    """The schema cogsim writes for ``version``: built in memory by the same statements as a store."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(_SCHEMA)
        for later in range(2, version + 1):
            for table, column, declaration, _ in _MIGRATIONS[later]:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
        return _objects(db.execute)
    finally:
        db.close()


def _difference(found: dict) -> str:
    """What sets a schema apart from the nearest one cogsim writes."""
    expected = min(
        (_expected_objects(v) for v in range(1, SCHEMA_VERSION + 1)),
        key=lambda e: len(set(e.items()) ^ set(found.items())),
    )
    extra = [f"{kind} {printable(name, 60)!r}" for kind, name, _ in sorted(found.keys() - expected.keys(), key=str)]
    missing = [name for kind, name, _ in sorted(expected.keys() - found.keys()) if kind == "table"]
    changed = [
        f"{kind} {name!r}"
        for (kind, name, table), sql in sorted(expected.items())
        if found.get((kind, name, table), sql) != sql
    ]
    parts = []
    if extra:
        parts.append(
            f"it holds {', '.join(extra[:5])}{' and more' if len(extra) > 5 else ''}, which cogsim never creates"
        )
    if missing:
        parts.append(f"it lacks table(s) {', '.join(missing)}")
    if changed:
        parts.append(
            f"{', '.join(changed)} {'is' if len(changed) == 1 else 'are'} not defined as cogsim defines {'it' if len(changed) == 1 else 'them'}"
        )
    return "; ".join(parts) or "its schema differs from cogsim's"


def _kind_of(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bytes):
        return f"a blob of {len(value)} bytes"
    if isinstance(value, str):
        return f"the text {shown(value, 40)}"
    return f"the {'integer' if isinstance(value, int) else 'number'} {shown(value, 40)}"


def open_store(run_dir: str | os.PathLike, writable: bool = False) -> Store:
    """Open an existing run directory's store, read-only unless ``writable`` (StoreError, a
    ValueError, if it holds no run or is not a cogsim store)."""
    path = Path(run_dir)
    if not (path / DB_NAME).exists():
        raise StoreError(f"{path} holds no cogsim run (no {DB_NAME})")
    return Store(path, readonly=not writable)


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
_TURN_KINDS = {
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
_TURN_SPEC = " ".join(f"{column}:{_TURN_KINDS[column]}" for column in TURN_COLUMNS)
_INSERT_TURN = (
    f"INSERT INTO turns (episode_id, {', '.join(TURN_COLUMNS)}, session, t) "
    f"VALUES ({', '.join('?' * (len(TURN_COLUMNS) + 3))}) ON CONFLICT (episode_id, turn) DO NOTHING"
)


def image_ref(key: str, suffix: str = ".png") -> str:
    """Where the frame with content key ``key`` (64 hex digits) lies in a run directory, as a ``suffix``
    (".png" or ".jpg") file."""
    return f"images/{key[:2]}/{key}{suffix}"


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
