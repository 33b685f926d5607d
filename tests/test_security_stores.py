"""Stores are untrusted (docs/security.md): a store with triggers, views, foreign tables, deeply nested
JSON, values of the wrong type or huge values gives one clear line naming the file and what is wrong
(exit status 2), within a time bound and bounded memory, and is never changed; ``report`` and
``export`` open stores read-only, WAL files included."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

import cogsim
import loop_envs  # noqa: F401  (registers the looptest envs)
from cogsim.cli import main as cogsim_main
from cogsim.harness import RunConfig, Task, run
from cogsim.integrations.inspect_log import export_inspect
from cogsim.report import build_report
from cogsim.store import export_jsonl, export_sft, open_store
from cogsim.store.schema import SCHEMA_VERSION, TURN_COLUMNS
from cogsim.store.sqlite import StoreError

pytestmark = pytest.mark.timeout(60)  # every case is time-bound; slower ones say more

LOOP_ENVS = str(Path(loop_envs.__file__).resolve())
SPIN = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"


@pytest.fixture(scope="module")
def base_run(tmp_path_factory) -> Path:
    """A real run: two tasks, one episode left stopped by a backend fault after its first turn."""
    out = tmp_path_factory.mktemp("base") / "run"
    run(RunConfig([Task("looptest/count", 2), Task("looptest/choice", 1)], ["oracle"]), out)
    with sqlite3.connect(out / "store.sqlite") as db:
        db.execute("UPDATE episodes SET status = 'running', fault = 'timeout', error = 'timeout' WHERE id = 2")
        db.execute("DELETE FROM turns WHERE episode_id = 2 AND turn >= 1")
    return out


@pytest.fixture
def run_dir(base_run, tmp_path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(base_run, copy)
    return copy


def _tamper(run_dir: Path, *statements: str) -> None:
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        for statement in statements:
            db.execute(statement)
    sqlite3.connect(run_dir / "store.sqlite").execute("PRAGMA wal_checkpoint(TRUNCATE)").close()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _commands(run_dir: Path, tmp_path: Path) -> dict[str, list[str]]:
    return {
        "report": ["report", str(run_dir)],
        "export": ["export", str(run_dir), "--out", str(tmp_path / "out.jsonl")],
        "sft": ["export", str(run_dir), "--format", "sft", "--out", str(tmp_path / "sft.jsonl")],
        "resume": ["run", "--resume", str(run_dir), "--import", LOOP_ENVS, "--no-progress"],
    }


def _cogsim(args: list[str], timeout: float = 30) -> tuple[subprocess.CompletedProcess, int]:
    """``cogsim ARGS`` in a fresh process: (its result, how much its peak resident memory grew while
    the command ran, in KiB: VmHWM is the process's own peak, unlike ru_maxrss, inherited at fork)."""
    code = (
        "import sys\n"
        "from cogsim.cli import main\n"
        "def peak():\n"
        "    return int([line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM')][0])\n"
        "before = peak()\n"
        "status = main(sys.argv[1:])\n"
        "print('grew', peak() - before, file=sys.stderr)\n"
        "sys.exit(status)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(cogsim.__file__).resolve().parents[1])}
    result = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=timeout
    )
    lines = result.stderr.splitlines()
    grew = int(lines[-1].split()[1]) if lines and lines[-1].startswith("grew") else -1
    result.stderr = "\n".join(line for line in lines if not line.startswith("grew"))
    return result, grew


def _one_clear_line(stderr: str, *needles: str) -> None:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("cogsim: error: "), stderr[-3000:]
    assert "store.sqlite" in lines[0] and "Traceback" not in stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


# -- hostile schemas: refused before anything runs, the file left as it was ---------------------------------
HOSTILE_SCHEMAS = {
    # fired by the old schema upgrade (schema_version 1 -> 2) and by every new session
    "trigger": (
        "UPDATE runs SET schema_version = 1",
        f"CREATE TRIGGER spin AFTER UPDATE ON runs BEGIN {SPIN}; END",
        f"CREATE TRIGGER spin_too AFTER INSERT ON sessions BEGIN {SPIN}; END",
    ),
    "view": (
        "ALTER TABLE episodes RENAME TO episodes_before",
        f"CREATE VIEW episodes AS SELECT e.* FROM episodes_before e, ({SPIN}) AS forever",
    ),
    "generated-column": ("ALTER TABLE turns ADD COLUMN spin INTEGER AS (length(zeroblob(1000000000)))",),
    "index": ("CREATE INDEX by_expression ON turns (length(response) * 2)",),
}


@pytest.mark.timeout(60, method="thread")  # a query spinning inside SQLite ignores signals
@pytest.mark.parametrize("case", sorted(HOSTILE_SCHEMAS))
def test_a_hostile_schema_is_refused_in_one_line_and_never_runs_or_changes(run_dir, tmp_path, capsys, case):
    _tamper(run_dir, *HOSTILE_SCHEMAS[case])
    before = _digest(run_dir / "store.sqlite")
    for name, args in _commands(run_dir, tmp_path).items():
        assert cogsim_main(args) == 2, name
        _one_clear_line(capsys.readouterr().err, "is not a cogsim store", "cogsim changes nothing in it")
        assert _digest(run_dir / "store.sqlite") == before, name


@pytest.mark.timeout(60)
def test_a_foreign_database_is_refused_and_left_exactly_as_it_was(tmp_path, capsys):
    run_dir = tmp_path / "foreign"
    run_dir.mkdir()
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        db.execute("INSERT INTO notes (body) VALUES ('my own data')")
    before = _digest(run_dir / "store.sqlite")
    for name, args in _commands(run_dir, tmp_path).items():
        assert cogsim_main(args) == 2, name
        _one_clear_line(capsys.readouterr().err, "is not a cogsim store: it holds table 'notes'", "lacks table(s) ")
    assert _digest(run_dir / "store.sqlite") == before
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        assert [name for (name,) in db.execute("SELECT name FROM sqlite_master")] == ["notes"]


# -- hostile values: one clear line naming the file and the value ---------------------------------------------
DEEP = "[" * 100_000 + "]" * 100_000
HOSTILE_VALUES = {
    "deep-config": ("UPDATE runs SET config = ?", DEEP, "nested deeper than 64 levels"),
    "deep-outcome": ("UPDATE episodes SET outcome = ?", '{"a": ' * 50_000 + "1" + "}" * 50_000, "nested deeper"),
    "deep-parsed": ("UPDATE turns SET parsed = ?", DEEP, "column parsed"),
    "config-not-object": ("UPDATE runs SET config = ?", "[1, 2]", "a JSON object"),
    "config-unknown-setting": (
        "UPDATE runs SET config = ?",
        '{"tasks": [], "agents": ["oracle"], "evil": 1}',
        "config",
    ),
    "seed-text": ("UPDATE episodes SET seed = ?", "abc", "column seed holds the text 'abc'"),
    "player-text": ("UPDATE turns SET player = ?", "x", "column player"),
    "reward-blob": ("UPDATE episodes SET total_reward = ?", b"\x00\xff", "column total_reward holds a blob"),
    "started-text": ("UPDATE sessions SET started = ?", "yesterday", "column started"),
    "status-unknown": ("UPDATE episodes SET status = ?", "pwned", "column status"),  # past the CHECK, see below
    "outcome-list": ("UPDATE episodes SET outcome = ?", "[1]", "column outcome"),
    "image-outside": ("UPDATE turns SET images = ?", '["/etc/passwd"]', "images/ab/<64 hex digits>.png"),
    "image-dotdot": ("UPDATE turns SET images = ?", '["images/../../../etc/passwd"]', "column images"),
    "response-bad-utf8": ("UPDATE turns SET response = ?", b"\xff\xfe\x00", "column response holds a blob"),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("case", sorted(HOSTILE_VALUES))
def test_a_hostile_value_gives_one_clear_line_naming_the_file_and_column(run_dir, tmp_path, capsys, case):
    statement, value, needle = HOSTILE_VALUES[case]
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        db.execute("PRAGMA ignore_check_constraints = 1")  # a hostile file need not respect constraints
        db.execute(statement, (value,))
    before = _digest(run_dir / "store.sqlite")
    refused = 0
    for name, args in _commands(run_dir, tmp_path).items():
        code = cogsim_main(args)
        err = capsys.readouterr().err
        assert code in (0, 2, 3), (name, err[-2000:])
        if code == 2:
            refused += 1
            _one_clear_line(err, needle)
        if name != "resume":
            assert _digest(run_dir / "store.sqlite") == before, name
    assert refused >= 1  # every value is read by some command, which names it


@pytest.mark.timeout(120)
def test_a_huge_stored_text_is_refused_without_being_loaded(run_dir, tmp_path):
    _tamper(run_dir, "UPDATE turns SET response = printf('%.*c', 80000000, 'x') WHERE rowid = 1")
    for name in ("export", "sft"):
        result, grew = _cogsim(_commands(run_dir, tmp_path)[name])
        assert result.returncode == 2, result.stderr[-2000:]
        _one_clear_line(result.stderr, "holds a value longer than the 64.0 MiB cogsim reads from a store")
        assert 0 <= grew < 40_000, (name, grew)  # KiB: the 80 MB text was never read


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_300_mb_stored_reply_ends_export_in_a_clear_error(run_dir, tmp_path):
    _tamper(run_dir, "UPDATE turns SET response = printf('%.*c', 300000000, 'x') WHERE rowid = 1")
    result, grew = _cogsim(_commands(run_dir, tmp_path)["export"], timeout=120)
    assert result.returncode == 2 and "MemoryError" not in result.stderr
    assert 0 <= grew < 40_000


# -- read-only: reports and exports change nothing, WAL state included --------------------------------------
@pytest.mark.timeout(60)
def test_report_and_export_read_a_live_wal_store_without_changing_it(run_dir, tmp_path, capsys):
    writer = sqlite3.connect(run_dir / "store.sqlite", isolation_level=None)  # a run still going: data in the WAL
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("UPDATE episodes SET total_reward = 42 WHERE id = 1")
    try:
        store_before = _digest(run_dir / "store.sqlite")
        wal_before = _digest(run_dir / "store.sqlite-wal")
        assert cogsim_main(["export", str(run_dir), "--out", str(tmp_path / "out.jsonl")]) == 0
        assert cogsim_main(["report", str(run_dir)]) == 0
        first = json.loads((tmp_path / "out.jsonl").read_text().splitlines()[0])
        assert first["total_reward"] == 42  # the WAL's content is read
        assert _digest(run_dir / "store.sqlite") == store_before
        assert _digest(run_dir / "store.sqlite-wal") == wal_before
    finally:
        writer.close()
    with open_store(run_dir) as store:
        assert store.readonly
        with pytest.raises(StoreError, match="read-only"):
            store.save_metrics("x", [])


def test_a_store_from_a_newer_cogsim_is_named_as_such(run_dir):
    _tamper(run_dir, f"UPDATE runs SET schema_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match=f"has store schema {SCHEMA_VERSION + 1}; .* open it with a newer cogsim"):
        open_store(run_dir)


@pytest.mark.timeout(30, method="thread")
def test_every_query_runs_under_a_time_bound(run_dir):
    with open_store(run_dir) as store:
        store.query_time_limit_s = 0.2
        with pytest.raises(StoreError, match=r"a query took longer than 0.2 s and was stopped"):
            store.query(SPIN)


# -- fuzzing: any value in any column gives a result or a clear error ---------------------------------------
COLUMNS = {
    "runs": ["config", "schema_version", "signature"],
    "episodes": [
        "task",
        "env_id",
        "agent",
        "agents",
        "episode_index",
        "seed",
        "options",
        "system_prompt",
        "history",
        "status",
        "num_turns",
        "total_reward",
        "outcome",
        "error",
        "fault",
        "loop",
        "session",
        "system_text",
        "loop_text",
    ],
    "turns": [*TURN_COLUMNS, "t", "prompt_text"],
    "texts": ["digest", "text"],
    "sessions": ["started", "pid"],
    "config_changes": ["changes"],
}
VALUES = st.one_of(
    st.none(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.binary(max_size=20),
    st.sampled_from(["{}", "[]", '{"a": 1}', '["oracle"]', "null", DEEP[:400] + DEEP[-400:], "running", "done"]),
)


def _corrupt_and_use(base_run: Path, run_dir: Path, data) -> None:
    shutil.copytree(base_run, run_dir)
    table = data.draw(st.sampled_from(sorted(COLUMNS)))
    column = data.draw(st.sampled_from(COLUMNS[table]))
    value = data.draw(VALUES)
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        db.execute("PRAGMA ignore_check_constraints = 1")
        db.execute("INSERT INTO config_changes (session, t, changes) VALUES (0, 0, '{}')")
        try:
            db.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = (SELECT MIN(rowid) FROM {table})", (value,))
        except sqlite3.IntegrityError:  # NULL in a NOT NULL column: SQLite itself will not write it
            reject()
    for action in (
        lambda: build_report(run_dir),
        lambda: export_jsonl(run_dir, run_dir.parent / "out.jsonl"),
        lambda: export_sft(run_dir, run_dir.parent / "sft.jsonl", per_turn=True),
        lambda: export_inspect(run_dir, run_dir.parent / "log.eval"),
        lambda: run(None, run_dir, resume=True),
    ):
        try:
            action()
        except ValueError as error:  # StoreError, ReplayMismatch, a config cogsim refuses: one clear line
            assert "\n" not in str(error).strip(), str(error)


@pytest.mark.timeout(120)
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_any_value_in_any_column_gives_a_result_or_a_clear_error(base_run, tmp_path_factory, data):
    _corrupt_and_use(base_run, tmp_path_factory.mktemp("fuzz") / "run", data)


@pytest.mark.slow
@pytest.mark.timeout(1800)
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_any_value_in_any_column_gives_a_result_or_a_clear_error_thoroughly(base_run, tmp_path_factory, data):
    _corrupt_and_use(base_run, tmp_path_factory.mktemp("fuzz") / "run", data)


@pytest.mark.timeout(30, method="thread")  # opening a FIFO for reading blocks until a writer comes
@pytest.mark.parametrize("name", ["store.sqlite", "store.sqlite-wal", "store.sqlite-shm", "store.sqlite-journal"])
def test_a_fifo_in_place_of_the_store_or_its_journals_is_refused_without_blocking(run_dir, tmp_path, capsys, name):
    (run_dir / name).unlink(missing_ok=True)
    os.mkfifo(run_dir / name)
    for command, args in _commands(run_dir, tmp_path).items():
        assert cogsim_main(args) == 2, command
        _one_clear_line(capsys.readouterr().err, f"{name} is not a regular file")
