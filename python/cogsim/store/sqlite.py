"""The results store: Store, the writer of a run directory (over StoreQueries, the reads, and
StoreConnection, the opening), and open_store for reading one.

A store may come from someone else (docs/security.md): before use its schema must be exactly one
cogsim writes (the expected tables and columns, no trigger, view, index or table of its own), else
it is refused without being changed; ``report`` and ``export`` open it read-only. Every statement
runs under a time bound (SQLite's progress handler), no value longer than ``MAX_VALUE_BYTES`` is
read, stored JSON is parsed with size and depth bounds, and every value read is checked for its
type; a failure is one :class:`StoreError` naming the file and what is wrong.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

from cogsim._files import Folders
from cogsim._untrusted import shown
from cogsim.store.connection import QUERY_TIME_LIMIT_S, rollback
from cogsim.store.queries import StoreQueries
from cogsim.store.rows import INSERT_TURN, TURN_ENCODERS, EpisodeRow, TurnRow
from cogsim.store.schema import DB_NAME, SCHEMA_VERSION
from cogsim.store.values import StoreError, dumps, image_ref, is_image_ref, to_db_text

CHECKPOINT_INTERVAL_S = 5.0
INT64_MAX = (1 << 63) - 1
TEXT_IDS_KEPT = 1 << 16  # ids of texts kept in memory (system prompts and repeated prompts are few)
IMAGES_KNOWN_KEPT = 1 << 16  # references of frames written this session kept in memory (one a frame in a long run)


class Store(StoreQueries):
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
        super().__init__(run_dir, readonly=readonly, query_time_limit_s=query_time_limit_s)
        self.worker = worker
        self.session: Optional[int] = None
        self._known_images: set[str] = set()  # references written (or found) in this session
        self._text_ids: dict[bytes, int] = {}  # digest -> id in texts of the texts stored or found lately
        self._image_folders = Folders(self.run_dir)  # images/ and images/ab/, each opened once

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
                (self.session or 0, time.time(), dumps(changes)),
            )
            self._write("COMMIT")
        except BaseException:
            rollback(self.db)
            raise

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
            (self.session, spec, dumps(description)),
        )

    # -- images -------------------------------------------------------------------------------------
    def put_image(self, frame) -> str:
        """Store a frame once, as the bytes it was sent as (a ``SentFrame``: PNG or JPEG; a plain array:
        PNG), named by their SHA-256; returns its path relative to the run dir."""
        from cogsim.render.frames import as_sent  # the renderer's package only when frames are shown

        sent = as_sent(frame)
        return self.put_encoded(image_ref(sent.key, sent.suffix), lambda: sent.data)

    def put_encoded(self, ref: str, data) -> str:
        """Store the bytes of the frame whose reference is ``ref`` (bytes, or a function giving them),
        in images/ab/ opened once without following a link, once per session: a file there already
        is kept only if it holds exactly these bytes (a planted link, FIFO or other file is replaced),
        so the store names the bytes the model got. Returns ``ref``; ValueError for a reference of
        another form."""
        if not is_image_ref(ref):
            raise ValueError(f"an image reference is images/ab/<64 hex digits>.png or .jpg, got {shown(ref)}")
        if ref not in self._known_images:
            images, folder, name = ref.split("/")
            self._image_folders.write_unless_same((images, folder), name, data)
            if len(self._known_images) >= IMAGES_KNOWN_KEPT:  # a frame met again later is compared on disk
                self._known_images.clear()
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
            loops = {id(e): dumps(e.loop) for e in (*started, *finished) if e.loop is not None}
            texts = self._text_ids_of(
                [e.system_prompt for e in started if e.system_prompt is not None]
                + [t.prompt for t in turns]
                + [t.system_prompt for t in turns if t.system_prompt is not None]
                + list(loops.values())
            )
            for episode in started:
                episode.id = db.execute(
                    "INSERT INTO episodes (task, env_id, suite, agent, agents, episode_index, seed, options, "
                    "system_text, history, status, started, session, loop_text) VALUES (?,?,?,?,?,?,?,?,?,?,'running',?,?,?) "
                    "ON CONFLICT (task, agent, episode_index) DO UPDATE SET task = excluded.task RETURNING id",
                    (
                        episode.task,
                        episode.env_id,
                        episode.suite,
                        episode.agent,
                        json.dumps(list(episode.agents)),
                        episode.episode_index,
                        episode.seed,
                        dumps(episode.options),
                        None if episode.system_prompt is None else texts[episode.system_prompt],
                        episode.history,
                        now,
                        self.session,
                        texts[loops[id(episode)]] if episode.loop is not None else None,
                    ),
                ).fetchone()[0]
            db.executemany(
                INSERT_TURN,
                [
                    (
                        t.episode.id,
                        *[encode(getattr(t, column)) for column, encode in TURN_ENCODERS],
                        texts[t.prompt],
                        None if t.system_prompt is None else texts[t.system_prompt],
                        self.session,
                        now,
                    )
                    for t in turns
                ],
            )
            if finished:
                db.executemany(
                    "UPDATE episodes SET status=?, num_turns=?, total_reward=?, outcome=?, error=?, finished=?, fault=?, "
                    "loop_text=COALESCE(?, loop_text) WHERE id=?",
                    [
                        (
                            e.status,
                            e.num_turns,
                            e.total_reward,
                            dumps(e.outcome) if e.outcome is not None else None,
                            to_db_text(e.error),
                            now if e.status != "running" else None,
                            e.fault,
                            texts[loops[id(e)]] if e.loop is not None else None,
                            e.id,
                        )
                        for e in finished
                    ],
                )
            db.execute("COMMIT")
        except (sqlite3.OperationalError, sqlite3.DataError) as error:
            rollback(db)
            self._text_ids.clear()  # ids of texts the rolled-back step added are no longer stored
            if "full" in str(error) or "disk I/O" in str(error):
                raise StoreError(
                    f"cannot write {self.run_dir / DB_NAME}: {error}; free some space, then "
                    f"`cogsim run --resume {self.run_dir}` continues from the last stored step"
                ) from None
            raise self._error("writing a step", error) from None
        except BaseException:
            rollback(db)
            self._text_ids.clear()
            raise
        if time.monotonic() - self._last_checkpoint > CHECKPOINT_INTERVAL_S:
            self._checkpoint("PASSIVE")

    def _text_ids_of(self, texts: list[str]) -> dict[str, int]:
        """text -> its id in ``texts`` for each of ``texts``, those the store lacks stored (within the
        step's transaction: one lookup and one insert for the step). StoreError if the store holds
        another text under the digest of one: it was changed after cogsim wrote it, and a turn must
        never name a text its model was not shown."""
        digests: dict[str, tuple[bytes, Any]] = {}
        for text in texts:
            if text not in digests:
                stored = to_db_text(text)
                raw = stored if isinstance(stored, bytes) else stored.encode("utf-8")
                digests[text] = (hashlib.blake2b(raw, digest_size=16).digest(), stored)
        ids = {text: self._text_ids[digest] for text, (digest, _) in digests.items() if digest in self._text_ids}
        unknown = {digest: (text, stored) for text, (digest, stored) in digests.items() if text not in ids}
        keys = list(unknown)
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            found = self.db.execute(
                f"SELECT id, digest, text FROM texts WHERE digest IN ({','.join('?' * len(chunk))})", chunk
            )
            for text_id, digest, held in found:
                text, stored = unknown.pop(digest)
                if held != stored or type(text_id) is not int:
                    raise StoreError(
                        f"{self.path}: the text stored under digest {digest.hex()} is not the text of that digest; "
                        "the store was changed after cogsim wrote it: restore it or start the run in a new directory"
                    )
                ids[text] = text_id
        if unknown:
            (next_id,) = self.db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM texts").fetchone()
            if type(next_id) is not int or next_id + len(unknown) > INT64_MAX:
                raise StoreError(
                    f"{self.path}: the table texts holds ids cogsim never gives; the store was not written by cogsim"
                )
            rows = [(next_id + i, digest, stored) for i, (digest, (_, stored)) in enumerate(unknown.items())]
            self.db.executemany("INSERT INTO texts (id, digest, text) VALUES (?, ?, ?)", rows)
            ids.update(
                (text, text_id) for text_id, (text, _) in zip(range(next_id, next_id + len(rows)), unknown.values())
            )
        if len(self._text_ids) + len(ids) > TEXT_IDS_KEPT:
            self._text_ids.clear()
        self._text_ids.update((digests[text][0], text_id) for text, text_id in ids.items())
        return ids

    def _checkpoint(self, mode: str) -> None:
        try:
            self._execute(f"PRAGMA wal_checkpoint({mode})")
        except sqlite3.OperationalError:  # busy: another connection holds it; a later one will do
            pass
        self._last_checkpoint = time.monotonic()

    def save_metrics(self, suite: str, tables: list) -> None:
        self._write(
            "INSERT OR REPLACE INTO metrics (suite, tables, computed) VALUES (?, ?, ?)",
            (suite, dumps(tables), time.time()),
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


def open_store(run_dir: str | os.PathLike, writable: bool = False) -> Store:
    """Open an existing run directory's store, read-only unless ``writable`` (StoreError, a
    ValueError, if it holds no run or is not a cogsim store)."""
    path = Path(run_dir)
    if not (path / DB_NAME).exists():
        raise StoreError(f"{path} holds no cogsim run (no {DB_NAME})")
    return Store(path, readonly=not writable)
