"""The store's tables: the schema cogsim writes, the columns each later version adds, and the
check that a file holds exactly the tables of one version (a store may come from someone else)."""

from __future__ import annotations

import sqlite3
from functools import lru_cache
from typing import Any, Callable, Optional

from cogsim._untrusted import printable

DB_NAME = "store.sqlite"
# 1: the first release; 2: adds episodes.fault and .loop, turns.finish_reason and .history_dropped;
# 3: adds runs.signature (the run key's HMAC of the config: who created the run, cogsim.harness.trust);
# 4: adds the table texts, each prompt, system prompt and loop record stored once however many turns and
# episodes have it (turns.prompt_text, episodes.system_text and .loop_text name it; older rows keep theirs inline);
# 5: adds turns.system_text, the system prompt a turn was sent where it is not its episode's (an env whose
# system prompt changes from turn to turn, as Cube Bench's reflection).
# An older store cogsim made is migrated when opened for writing and read as it is otherwise.
SCHEMA_VERSION = 5

SCHEMA = """
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
MIGRATIONS = {
    2: (
        ("episodes", "fault", "TEXT", "NULL"),  # fault kind of the backend call that stopped a 'running' episode
        ("episodes", "loop", "TEXT", "NULL"),  # JSON: on_overflow policy and the env's decoding defaults used
        ("turns", "finish_reason", "TEXT", "NULL"),
        ("turns", "history_dropped", "INTEGER NOT NULL DEFAULT 0", "0"),  # oldest exchanges left out (on_overflow)
    ),
    3: (("runs", "signature", "TEXT", "NULL"),),
    4: (
        ("episodes", "system_text", "INTEGER", "NULL"),  # texts.id of the system prompt (NULL: inline or none)
        ("episodes", "loop_text", "INTEGER", "NULL"),  # texts.id of the loop record (NULL: inline or none)
        ("turns", "prompt_text", "INTEGER", "NULL"),  # texts.id of the prompt (NULL: inline in turns.prompt)
    ),
    5: (("turns", "system_text", "INTEGER", "NULL"),),  # texts.id of the turn's own system prompt (NULL: the episode's)
}
# The tables each later schema adds (created before its columns): name -> (statement, its columns).
NEW_TABLES = {
    4: {
        # digest: the 16-byte BLAKE2b of the text's UTF-8 (lone surrogates kept, values.to_db_text)
        "texts": (
            "CREATE TABLE texts (id INTEGER PRIMARY KEY, digest BLOB NOT NULL UNIQUE, text TEXT NOT NULL)",
            ("id", "digest", "text"),
        )
    },
}


def migration(version: int) -> list[str]:
    """The statements that turn a store of schema ``version - 1`` into one of ``version``."""
    tables = [statement for statement, _ in NEW_TABLES.get(version, {}).values()]
    columns = [
        f"ALTER TABLE {table} ADD COLUMN {column} {declaration}"
        for table, column, declaration, _ in MIGRATIONS[version]
    ]
    return tables + columns


def schema_objects(execute: Callable[[str], Any]) -> dict[tuple, Optional[str]]:
    """(type, name, table) -> normalised SQL of every object in a database's schema."""
    rows = execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    return {
        (kind, name, table): " ".join(sql.split()) if isinstance(sql, str) else sql for kind, name, table, sql in rows
    }


@lru_cache(maxsize=None)
def expected_objects(version: int) -> dict[tuple, Optional[str]]:
    """The schema cogsim writes for ``version``: built in memory by the same statements as a store."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(SCHEMA)
        for later in range(2, version + 1):
            for statement in migration(later):
                db.execute(statement)
        return schema_objects(db.execute)
    finally:
        db.close()


def schema_difference(found: dict) -> str:
    """What sets a schema apart from the nearest one cogsim writes."""
    expected = min(
        (expected_objects(v) for v in range(1, SCHEMA_VERSION + 1)),
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
