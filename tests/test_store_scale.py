"""Runs of any size: the report holds episode records column by column, and the runner's fields of a
record are the store's columns, whatever an outcome holds."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from cogsim.harness import RunConfig, Task, run
from cogsim.report import build_report
from cogsim.store import export_jsonl, open_store
from cogsim.store.records import MAX_SHARED_VALUES, EpisodeRecords

pytestmark = pytest.mark.timeout(300)


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
