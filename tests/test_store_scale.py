"""Runs of any size: the report holds episode records column by column, the runner's fields of a
record are the store's columns whatever an outcome holds, each prompt and system prompt is stored
once, and an earlier store reports and exports as it did and resumes."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from cogsim.harness import RunConfig, Task, run
from cogsim.report import build_report
from cogsim.store import Store, export_jsonl, export_sft, open_store
from cogsim.store.records import MAX_SHARED_VALUES, EpisodeRecords
from cogsim.store.rows import EpisodeRow, TurnRow
from cogsim.store.values import StoreError

pytestmark = pytest.mark.timeout(300)

OLD_RUN = Path(__file__).parent / "data" / "run_schema3"


@pytest.fixture(scope="module")
def text_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("scale") / "run"
    tasks = [Task("cube/optimal-move", 6, {"modality": "text", "depth": 2}), Task("wilt/lite", 2)]
    run(RunConfig(tasks, ["oracle", "random"], workers=1), out)
    return out


def _copy(run_dir: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy, ignore=shutil.ignore_patterns("README.md", "make.py", "report.md", "*.jsonl"))
    return copy


# -- records held column by column ---------------------------------------------------------------------
def test_records_read_as_the_episodes_dicts(text_run):
    with open_store(text_run) as store:
        dicts = store.episodes(("done", "running"))
        records = store.episode_records(("done", "running"))
    assert len(records) == len(dicts) == 16
    assert [dict(r) for r in records] == dicts
    assert [list(r) for r in records] == [list(d) for d in dicts]  # the same fields in the same order
    assert records[3] == dicts[3] and records[-1] == dicts[-1] and records[2:4] == dicts[2:4]
    wilt = records.where("suite", "wilt")
    assert [dict(r) for r in wilt] == [d for d in dicts if d["suite"] == "wilt"]
    assert [dict(r) for r in wilt.where("agent", "oracle")] == [
        d for d in dicts if d["suite"] == "wilt" and d["agent"] == "oracle"
    ]
    record = records[0]
    assert record.get("no such field", 7) == 7 and "no such field" not in record and "env_id" in record
    with pytest.raises(KeyError):
        record["no such field"]
    assert records[0]["options"] is records[1]["options"]  # equal options: one shared dict


def test_records_keep_types_apart_and_fields_some_episodes_lack():
    records = EpisodeRecords()
    rows = [
        {"a": 1, "b": True, "c": [1, 2]},
        {"a": 1.0, "c": [1, 2], "d": None},
        {"a": True, "b": 1, "d": "x"},
        {"a": 2**70, "b": float("nan"), "c": {"k": [1.0]}},
    ]
    for row in rows:
        records.append(row)
    read = [dict(r) for r in records]
    assert [list(r.items()) for r in read] == [list(r.items()) for r in rows[:3]] + [list(read[3].items())]
    assert [type(r["a"]) for r in read] == [int, float, bool, int] and read[3]["a"] == 2**70
    assert read[3]["b"] != read[3]["b"] and read[3]["c"] == {"k": [1.0]}
    assert "b" not in records[1] and records[1].get("b") is None and records[2]["d"] == "x"
    assert records[0]["c"] is records[1]["c"]  # equal small lists are held once


def test_a_column_of_distinct_values_stops_sharing():
    records = EpisodeRecords()
    for i in range(MAX_SHARED_VALUES + 10):
        records.append({"seed": i, "text": f"t{i}", "same": "x"})
    assert records[-1]["seed"] == MAX_SHARED_VALUES + 9 and records[-1]["text"] == f"t{MAX_SHARED_VALUES + 9}"
    assert records[5]["same"] is records[-1]["same"]


# -- stored outcomes never shadow the store's columns (untrusted input) ----------------------------------
def test_an_outcome_naming_a_column_does_not_replace_it(text_run, tmp_path):
    from inspect_ai.log import read_eval_log

    from cogsim.integrations.inspect_log import export_inspect

    run_dir = _copy(text_run, tmp_path)
    hostile = {"env_id": 5, "seed": "x", "status": "bogus", "agent": ["a"], "options": 3, "episode_id": -1, "k": 1}
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        db.execute("UPDATE episodes SET outcome = ?", (json.dumps(hostile),))
    with open_store(run_dir) as store:
        for record in [*store.episodes(), *store.episode_records()]:
            assert isinstance(record["env_id"], str) and isinstance(record["seed"], int)
            assert record["status"] == "done" and isinstance(record["agent"], str)
            assert isinstance(record["options"], dict) and record["episode_id"] > 0 and record["k"] == 1
    assert export_inspect(run_dir, tmp_path / "x.eval") == 16
    log = read_eval_log(str(tmp_path / "x.eval"))
    assert {s.metadata["env_id"] for s in log.samples} == {"cube/optimal-move", "wilt/lite"}
    assert export_jsonl(run_dir, tmp_path / "x.jsonl") == 16
    build_report(run_dir)


# -- each text stored once ----------------------------------------------------------------------------
def test_a_prompt_or_system_prompt_shown_again_is_stored_once(text_run):
    with open_store(text_run) as store:
        texts, turns = store.query("SELECT COUNT(*) FROM texts")[0][0], store.turn_count()
        system = store.query("SELECT COUNT(DISTINCT system_text), COUNT(system_text) FROM episodes")[0]
        (first,) = store.query("SELECT id FROM episodes WHERE env_id = 'wilt/lite' ORDER BY id LIMIT 1")[0]
        (prompt, reply), turn = store.turn_texts(first, 0), store.turns(first)[0]
        assert (prompt, reply) == (turn.prompt, turn.response) and prompt.startswith("Your task")
        assert store.turn_texts(first, 999) is None and store.system_prompt(-1) is None
        distinct = store.query("SELECT COUNT(DISTINCT prompt_text) FROM turns")[0][0]
    assert system[0] < system[1] and texts == distinct + system[0] < turns


def test_a_text_changed_under_its_digest_stops_the_resume_in_one_line(text_run, tmp_path):
    run_dir = _copy(text_run, tmp_path)
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        (first, text) = db.execute("SELECT id, text FROM texts ORDER BY id LIMIT 1").fetchone()
        db.execute("UPDATE texts SET text = 'planted' WHERE id = ?", (first,))
    with Store(run_dir) as store:
        store.begin_session()
        episode = EpisodeRow(0, "looptest/count", "looptest", "oracle", ("oracle",), 99, 0, {}, None, "full")
        turn = TurnRow(episode, 0, 0, "oracle", text, [], [], "1", 1, "ok", 0.0, True, False, 0.0)
        with pytest.raises(StoreError, match="is not the text of that digest") as error:
            store.write_step([episode], [turn], [])
        assert "\n" not in str(error.value)
        assert store.query("SELECT COUNT(*) FROM episodes WHERE episode_index = 99") == [(0,)]  # nothing written


# -- a store made before this schema --------------------------------------------------------------------
def test_a_store_of_schema_3_reports_and_exports_as_it_did_and_resumes(tmp_path):
    old = _copy(OLD_RUN, tmp_path)
    before = (old / "store.sqlite").read_bytes()
    assert build_report(old).markdown() == (OLD_RUN / "report.md").read_text()
    assert export_jsonl(old, tmp_path / "run.jsonl") == 20
    exported = [json.loads(line) for line in (tmp_path / "run.jsonl").read_text().splitlines()]
    for line, then in zip(exported, map(json.loads, (OLD_RUN / "export.jsonl").read_text().splitlines())):
        if line["env_id"] == "kidgym/maze":  # its outcome's own "task" (the name) no longer replaces the column
            assert then["task"] == "maze" and line["task"] == 4  # the run's fifth task
            then = {**then, "task": 4}
        assert line == then
    assert (old / "store.sqlite").read_bytes() == before  # reading changes nothing
    summary = run(None, old, resume=True)
    assert summary.statuses == {"done": 20}
    with open_store(old) as store:
        assert store.query("SELECT schema_version FROM runs") == [(4,)]
        inline = store.query("SELECT COUNT(*) FROM turns WHERE prompt_text IS NULL")[0][0]
        assert inline == 37 and store.query("SELECT COUNT(*) FROM turns WHERE prompt_text IS NOT NULL")[0][0] > 0
        for record in store.iter_episodes(("done",)):
            assert all(turn.prompt for turn in store.iter_turns(record["episode_id"]))
    report = build_report(old).markdown()
    assert "| `pairs/single cols=2, modality=text, rows=2` | oracle | 1 | 1 |" in report
    assert export_sft(old, tmp_path / "sft.jsonl") > 0
