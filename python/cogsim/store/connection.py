"""A store's connection: opened with bounds (time per statement, value length, no link or FIFO in
place of its files), its schema checked before anything is written, older stores migrated or read
through views, and every read row checked by its columns' readers."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

from cogsim._files import refuse_links
from cogsim._untrusted import MAX_VALUE_BYTES, printable, shown, size_text
from cogsim.store.schema import (
    DB_NAME,
    MIGRATIONS,
    NEW_TABLES,
    SCHEMA,
    SCHEMA_VERSION,
    expected_objects,
    migration,
    schema_difference,
    schema_objects,
)
from cogsim.store.values import READERS, BadValue, StoreError, kind_of, row_readers

QUERY_TIME_LIMIT_S = 60.0  # any one statement; far above what cogsim's own queries take on large runs
ROWS_PER_FETCH = 256  # rows of a long result read at a time
SHARED_VALUES = 4096  # distinct JSON texts read once and shared by the records holding them
SHARED_TEXT_BYTES = 4096  # the longest of them


class StoreConnection:
    """The SQLite file of one run directory; ``readonly`` opens an existing store only to read it."""

    def __init__(
        self,
        run_dir: str | os.PathLike,
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
        found = schema_objects(self._execute)
        if not found:
            return 0
        matches = [v for v in range(SCHEMA_VERSION, 0, -1) if found == expected_objects(v)]
        recorded = self._recorded_version(found)
        if isinstance(recorded, int) and recorded > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has store schema {recorded}; this cogsim reads schema {SCHEMA_VERSION} and older: "
                "open it with a newer cogsim"
            )
        if not matches:
            raise StoreError(
                f"{self.path} is not a cogsim store: {schema_difference(found)}; cogsim changes nothing in it"
            )
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
                for statement in SCHEMA.split(";"):
                    if statement.strip():
                        self._execute(statement)
                version = 1
            for later in range(version + 1, SCHEMA_VERSION + 1):
                for statement in migration(later):
                    self._execute(statement)
            self._execute("UPDATE runs SET schema_version = ? WHERE id = 1", (SCHEMA_VERSION,))
            self._execute("COMMIT")
        except BaseException:
            rollback(self.db)
            raise

    def _compatible_views(self, version: int) -> None:
        """Read-only access to an older store: temporary views that show the later columns with the
        values older rows have, and empty ones of the later tables, so every reader sees the current
        schema (the file is not changed)."""
        added: dict[str, list[str]] = {}
        for later in range(version + 1, SCHEMA_VERSION + 1):
            for table, (_, names) in NEW_TABLES.get(later, {}).items():
                self._execute(f"CREATE TEMP VIEW {table} AS SELECT {', '.join(f'NULL AS {c}' for c in names)} WHERE 0")
            for table, column, _, value in MIGRATIONS[later]:
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
        """The rows of a read query, each value checked by ``columns`` ("name:kind ...", see row_readers)."""
        try:
            rows = self._execute(sql, params).fetchall()
        except sqlite3.Error as error:
            raise self._error(f"reading {what}", error) from None
        if not columns:
            return rows
        return [self._typed(row, columns, what) for row in rows]

    def _iter_rows(self, what: str, sql: str, params: Sequence, columns: str) -> Iterator[tuple]:
        """As _rows, a batch of rows at a time (a long result is never held whole). The time bound
        applies to fetching each batch, however long the reader takes over the rest."""
        try:
            cursor = self._execute(sql, params)
            while True:
                self._deadline = time.monotonic() + self.query_time_limit_s
                batch = cursor.fetchmany(ROWS_PER_FETCH)
                if not batch:
                    return
                for row in batch:
                    yield self._typed(row, columns, what)
        except sqlite3.Error as error:
            raise self._error(f"reading {what}", error) from None

    def _typed(self, row: tuple, columns: str, what: str) -> tuple:
        values = []
        for (name, read), value in zip(row_readers(columns), row):
            try:
                values.append(read(value))
            except BadValue as bad:
                raise self._bad_value(what, name, value, bad) from None
        return tuple(values)

    def _checked(self, name: str, read, value: Any, what: str) -> Any:
        """``value`` read by ``read`` (a reader of values.READERS)."""
        try:
            return read(value)
        except BadValue as bad:
            raise self._bad_value(what, name, value, bad) from None

    def _bad_value(self, what: str, name: str, value: Any, bad: BadValue) -> StoreError:
        return StoreError(
            f"{self.path}: {what}: column {name} holds {kind_of(value)} where cogsim stores {bad}; "
            "the store was not written by cogsim or was damaged"
        )

    def _shared_value(self, cache: dict, value: Any, name: str, kind: str) -> Any:
        """A stored JSON value of ``kind`` read once per distinct text (in ``cache``, up to
        SHARED_VALUES texts of at most SHARED_TEXT_BYTES): equal texts give one shared object."""
        if type(value) is not str or len(value) > SHARED_TEXT_BYTES:
            return self._checked(name, READERS[kind], value, "the episodes")
        held = cache.get((name, value))
        if held is None:
            held = self._checked(name, READERS[kind], value, "the episodes")
            if len(cache) < SHARED_VALUES:
                cache[(name, value)] = held
        return held


def rollback(db: sqlite3.Connection) -> None:
    try:
        db.execute("ROLLBACK")
    except sqlite3.OperationalError:  # SQLite already rolled back (disk full ends the transaction)
        pass
