"""Runs of any size: the report holds episode records column by column, the exports stream, each
prompt and system prompt is stored once, an earlier store reports and exports as it did and resumes,
and report and exports run under a memory limit smaller than the store."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import cogsim
from cogsim.harness import RunConfig, Task, run
from cogsim.integrations.inspect_log import export_inspect
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
def test_a_prompt_system_prompt_or_loop_record_seen_again_is_stored_once(text_run):
    with open_store(text_run) as store:
        texts, turns = store.query("SELECT COUNT(*) FROM texts")[0][0], store.turn_count()
        system = store.query("SELECT COUNT(DISTINCT system_text), COUNT(system_text) FROM episodes")[0]
        (first,) = store.query("SELECT id FROM episodes WHERE env_id = 'wilt/lite' ORDER BY id LIMIT 1")[0]
        (prompt, reply), turn = store.turn_texts(first, 0), store.turns(first)[0]
        assert (prompt, reply) == (turn.prompt, turn.response) and prompt.startswith("Your task")
        assert store.turn_texts(first, 999) is None and store.system_prompt(-1) is None
        distinct = store.query("SELECT COUNT(DISTINCT prompt_text) FROM turns")[0][0]
        loops = store.query("SELECT COUNT(DISTINCT loop_text), COUNT(loop_text) FROM episodes")[0]
    assert system[0] < system[1] and loops[0] < loops[1] and texts == distinct + system[0] + loops[0] < turns


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


def _tables(markdown: str) -> list[str]:
    """A report's lines but for the caption under its first table, which names what today's cogsim
    adds (links to the viewer, faults of damaged release files) in words a report of then did not have."""
    lines = markdown.splitlines()
    assert sum(line.startswith("Parse failures: share of turns") for line in lines) == 1
    return [line for line in lines if not line.startswith("Parse failures: share of turns")]


# -- a store made before this schema --------------------------------------------------------------------
def test_a_store_of_schema_3_reports_and_exports_as_it_did_and_resumes(tmp_path):
    old = _copy(OLD_RUN, tmp_path)
    before = (old / "store.sqlite").read_bytes()
    assert _tables(build_report(old).markdown()) == _tables((OLD_RUN / "report.md").read_text())
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
        assert store.query("SELECT schema_version FROM runs") == [(5,)]
        inline = store.query("SELECT COUNT(*) FROM turns WHERE prompt_text IS NULL")[0][0]
        assert inline == 37 and store.query("SELECT COUNT(*) FROM turns WHERE prompt_text IS NOT NULL")[0][0] > 0
        for record in store.iter_episodes(("done",)):
            assert all(turn.prompt for turn in store.iter_turns(record["episode_id"]))
    report = build_report(old).markdown()
    assert "| `pairs/single cols=2, modality=text, rows=2` | oracle | 1 | 1 |" in report
    assert export_sft(old, tmp_path / "sft.jsonl") > 0


# -- report and exports under a memory limit smaller than the store ---------------------------------------
LIMITED = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from cogsim.cli import main
for args in json.loads(sys.argv[1]):
    if main(args) != 0:
        sys.exit(1)
"""


def _big_store(run_dir: Path, episodes: int, text_bytes: int, random: bool = False) -> None:
    """A run of ``episodes`` one-turn episodes whose prompts are distinct texts of ``text_bytes``: text
    that compresses well (the exports' compression takes no time), or ``random`` hex digits."""
    with Store(run_dir) as store:
        store.init_run({"tasks": [{"env_id": "bulk/text", "episodes": episodes}], "agents": ["oracle"]})
        store.begin_session()
        for start in range(0, episodes, 50):
            rows, turns = [], []
            for index in range(start, min(start + 50, episodes)):
                row = EpisodeRow(0, "bulk/text", "bulk", "oracle", ("oracle",), index, index, {}, "system", "full")
                text = f"episode {index}: " + (
                    os.urandom(text_bytes // 2).hex() if random else "the same words again " * (text_bytes // 21)
                )
                rows.append(row)
                turns.append(TurnRow(row, 0, 0, "oracle", text, [], [], text[:64], 1, "ok", 1.0, True, False, 0.01))
            store.write_step(rows, turns, [])
            for row in rows:
                row.status, row.num_turns, row.total_reward, row.outcome = "done", 1, 1.0, {"success": True}
            store.write_step([], [], rows)


def _limited(commands: list[list[str]], limit: int) -> subprocess.CompletedProcess:
    """``cogsim`` with each of ``commands`` in turn, in one fresh process under an address-space limit."""
    env = {**os.environ, "PYTHONPATH": str(Path(cogsim.__file__).resolve().parents[1]), "OPENBLAS_NUM_THREADS": "1"}
    code = LIMITED.format(limit=limit)
    return subprocess.run(
        [sys.executable, "-c", code, json.dumps(commands)], env=env, capture_output=True, text=True, timeout=240
    )


def test_report_and_exports_stream_a_store_larger_than_their_memory_limit(tmp_path):
    run_dir = tmp_path / "big"
    limit = 384 << 20  # a report and the exports of a small run take less than 300 MB of address space
    _big_store(run_dir, episodes=450, text_bytes=1 << 20)
    store_bytes = (run_dir / "store.sqlite").stat().st_size
    assert store_bytes > limit
    outputs = {name: tmp_path / name for name in ("x.jsonl", "x.sft", "x.eval")}
    result = _limited(
        [
            ["report", str(run_dir)],
            ["export", str(run_dir), "--out", str(outputs["x.jsonl"])],
            ["export", str(run_dir), "--format", "sft", "--per-turn", "--out", str(outputs["x.sft"])],
            ["export", str(run_dir), "--format", "inspect", "--out", str(outputs["x.eval"])],
        ],
        limit,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "| `bulk/text` | oracle | 450 | 450 |" in (run_dir / "report.md").read_text()
    for output in outputs.values():
        assert output.stat().st_size > 0
    assert sum(1 for _ in outputs["x.jsonl"].open()) == sum(1 for _ in outputs["x.sft"].open()) == 450
    assert outputs["x.jsonl"].stat().st_size > store_bytes * 0.9


def _replicate_episodes(run_dir: Path, episodes: int, planned: int) -> None:
    """Copy the run's first episode in SQL as episodes up to index ``episodes - 1`` (finished, new
    seeds; no turns: a resume never reads a finished episode's) and make the run plan ``planned``."""
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        columns = [c[1] for c in db.execute("PRAGMA table_info(episodes)") if c[1] != "id"]
        (stored,) = db.execute("SELECT COUNT(*) FROM episodes").fetchone()
        copied = ", ".join({"episode_index": "i", "seed": "seed + i"}.get(c, c) for c in columns)
        db.execute(
            f"WITH RECURSIVE n(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM n WHERE i < ?) "
            f"INSERT INTO episodes ({', '.join(columns)}) SELECT {copied} FROM n, episodes WHERE episode_index = 0",
            (stored, episodes - 1),
        )
        config = json.loads(db.execute("SELECT config FROM runs").fetchone()[0])
        config["tasks"][0]["episodes"] = planned
        db.execute("UPDATE runs SET config = ?", (json.dumps(config, sort_keys=True),))


def test_a_resume_of_many_episodes_holds_a_chunk_of_them_not_all(tmp_path):
    """A resume reads the stored episodes a chunk at a time: 300,000 of them resume under an
    address-space limit that a list of the plan and a dict of every stored state (some 0.9 KB an
    episode) exceed; the unfinished ones are still found and played."""
    run_dir, episodes = tmp_path / "many", 300_000
    run(RunConfig([Task("wilt/lite", 2)], ["oracle"], workers=1), run_dir)
    turns_before = _turns_of(run_dir, 1)
    with sqlite3.connect(run_dir / "store.sqlite") as db:  # episode 1 met a backend fault: it is played again
        (episode_id,) = db.execute("SELECT id FROM episodes WHERE episode_index = 1").fetchone()
        db.execute("DELETE FROM turns WHERE episode_id = ?", (episode_id,))
        db.execute(
            "UPDATE episodes SET status = 'running', fault = 'timeout', error = 'turn 0: timed out' WHERE id = ?",
            (episode_id,),
        )
    _replicate_episodes(run_dir, episodes, planned=episodes + 3)  # 3 episodes planned and never started
    result = _limited([["run", "--resume", str(run_dir)]], 384 << 20)  # the old resume needed 450-510 MB
    assert result.returncode == 0, result.stderr[-3000:]
    with open_store(run_dir) as store:
        assert store.status_counts() == {"done": episodes + 3}
        assert store.query("SELECT COUNT(*) FROM episodes WHERE fault IS NOT NULL") == [(0,)]
        assert store.query("SELECT episode_index FROM episodes WHERE session > 1 ORDER BY 1") == [
            (episodes,),
            (episodes + 1,),
            (episodes + 2,),
        ]
    assert _turns_of(run_dir, 1) == turns_before


def test_the_frames_a_session_wrote_are_remembered_up_to_a_bound(tmp_path, monkeypatch):
    import hashlib

    from cogsim.store import sqlite as store_module
    from cogsim.store.values import image_ref

    monkeypatch.setattr(store_module, "IMAGES_KNOWN_KEPT", 2)
    frames = [f"frame {i}".encode() for i in range(5)]
    refs = [image_ref(hashlib.sha256(data).hexdigest(), ".png") for data in frames]
    with Store(tmp_path) as store:
        for ref, data in zip(refs + refs[:2], frames + frames[:2]):
            assert store.put_encoded(ref, data) == ref
            assert len(store._known_images) <= 2
    assert [(tmp_path / ref).read_bytes() for ref in refs] == frames


def test_progress_read_from_the_tail_equals_the_whole_count(tmp_path):
    """A watcher's look reads only the store's tail, and counts what a full count does as episodes
    start, take turns and finish in any order (one left running from an earlier session)."""
    import random

    rng = random.Random(5)
    with Store(tmp_path) as store:
        store.init_run({"tasks": [{"env_id": "bulk/text", "episodes": 60}], "agents": ["oracle"]})
        store.begin_session()
        open_rows, mark, next_index = [], None, 0
        for step in range(40):
            started = []
            for _ in range(rng.randrange(4)):
                row = EpisodeRow(0, "bulk/text", "bulk", "oracle", ("oracle",), next_index, next_index, {}, "s", "full")
                started.append(row)
                next_index += 1
            rows = open_rows + started
            turns = [
                TurnRow(
                    r,
                    step,
                    0,
                    "oracle",
                    f"p{step}",
                    [],
                    [],
                    "x",
                    1,
                    rng.choice(["ok", "parse_failure"]),
                    0.0,
                    False,
                    False,
                    0.01,
                )
                for r in rows
                if rng.random() < 0.7
            ]
            finished = [r for r in rows if r.episode_index != 0 and rng.random() < 0.3]  # episode 0 stays open
            for r in finished:
                r.status = rng.choice(["done", "truncated", "error"])
            store.write_step(started, turns, finished)
            open_rows = [r for r in rows if r not in finished]
            counts, mark = store.progress_since(mark)
            assert counts == store.progress_counts()
        assert mark[0] == 1  # the episode still running keeps the window open from it


def _turns_of(run_dir: Path, index: int) -> list:
    with open_store(run_dir) as store:
        (episode_id,) = store.query("SELECT id FROM episodes WHERE episode_index = ?", (index,))[0]
        return [(t.turn, t.prompt, t.response, t.reward) for t in store.iter_turns(episode_id)]


# -- the inspect log, streamed ------------------------------------------------------------------------
def test_the_eval_log_reads_back_in_inspect_with_every_summary_and_metric(text_run, tmp_path):
    from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries
    from inspect_ai.scorer import SampleScore, mean, stderr

    out = tmp_path / "x.eval"
    assert export_inspect(text_run, out) == 16
    log = read_eval_log(str(out))
    summaries = read_eval_log_sample_summaries(str(out))
    assert [s.id for s in summaries] == [s.id for s in log.samples] and len(summaries) == 16
    assert log.status == "success" and log.results.completed_samples == 16
    scored = [SampleScore(score=s.scores["episode_reward"], sample_id=s.id) for s in log.samples]
    metrics = log.results.scores[0].metrics
    assert metrics["mean"].value == mean()(scored) and metrics["stderr"].value == pytest.approx(stderr()(scored))
    assert any(name.startswith("Table 2") for name in metrics)  # cube's family metrics
    with zipfile.ZipFile(out) as archive:  # a zip any reader opens (zstd: inspect's patch of zipfile)
        names = archive.namelist()
        assert names[0] == "_journal/start.json" and names[-2:] == ["summaries.json", "header.json"]
        assert archive.testzip() is None


def test_images_none_names_each_frame_instead(tmp_path):
    run_dir = tmp_path / "run"
    run(RunConfig([Task("kidgym/counting", 1, {"look": "cogsim"})], ["oracle"], workers=1), run_dir)
    from inspect_ai.log import read_eval_log

    sizes = {}
    for images in ("inline", "none"):
        out = tmp_path / f"{images}.eval"
        export_inspect(run_dir, out, images=images)
        sizes[images] = out.stat().st_size
        (sample,) = read_eval_log(str(out)).samples
        parts = [c for m in sample.messages if m.role == "user" and not isinstance(m.content, str) for c in m.content]
        if images == "none":
            named = [c.text for c in parts if c.type == "text" and c.text.startswith("[image not exported: images/")]
            assert named and not any(c.type == "image" for c in parts) and not sample.attachments
        else:
            assert any(c.type == "image" for c in parts) and sample.attachments
    assert sizes["none"] < sizes["inline"] / 2
    with pytest.raises(ValueError, match="--images must be one of inline, none"):
        export_inspect(run_dir, tmp_path / "x.eval", images="some")


FILE_SIZE_LIMITED = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG), as on a full disk
resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
from cogsim.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize(
    "failure, suffix", [("a damaged turn", ".eval"), ("a write that fails", ".eval"), ("a write that fails", ".json")]
)
def test_an_inspect_export_that_fails_half_way_says_one_line_and_leaves_nothing(tmp_path, suffix, failure):
    """The export has written samples when it meets a stored turn that is not what cogsim stores (in
    the last episode), or a write fails (a full disk: the file size limited). One line, no 'Exception
    ignored' from a zip writer left open, and no file."""
    run_dir = tmp_path / "run"
    _big_store(run_dir, episodes=8, text_bytes=1 << 17, random=True)
    limit = 1 << 40
    if failure == "a damaged turn":
        with sqlite3.connect(run_dir / "store.sqlite") as db:
            db.execute("UPDATE turns SET parsed = 'not json' WHERE rowid = (SELECT MAX(rowid) FROM turns)")
    else:  # half of the whole log: the log's file, not the store's journal, meets the limit
        export_inspect(run_dir, tmp_path / f"whole{suffix}")
        limit = (tmp_path / f"whole{suffix}").stat().st_size // 2
        assert limit > 1 << 17  # far above what SQLite writes to read the store (its -shm: 32 KiB)
    out = tmp_path / "out" / f"x{suffix}"
    out.parent.mkdir()
    env = {**os.environ, "PYTHONPATH": str(Path(cogsim.__file__).resolve().parents[1])}
    code = FILE_SIZE_LIMITED.format(limit=limit)
    args = ["export", str(run_dir), "--format", "inspect", "--out", str(out)]
    result = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr[-3000:]
    assert ("column parsed holds" if failure == "a damaged turn" else "File too large") in lines[0]
    assert os.listdir(out.parent) == []


def test_a_zip_of_many_members_and_offsets_past_32_bits_reads_back(tmp_path, monkeypatch):
    """ZIP64 records where the member count or an offset does not fit the classic fields (the limits
    lowered so that a small archive needs them)."""
    from cogsim.integrations import eval_zip

    monkeypatch.setattr(eval_zip, "ZIP64_MEMBERS", 3)
    monkeypatch.setattr(eval_zip, "ZIP64_FROM", 40)
    monkeypatch.setattr(eval_zip, "FRAME_INPUT_BYTES", 100)
    data = {f"m/{i}.json": (f'"{i}"' * (30 * i + 1)).encode() for i in range(6)}
    with (tmp_path / "x.zip").open("wb") as file:
        archive = eval_zip.ZipWriter(file)
        for name, content in list(data.items())[:5]:
            archive.write(name, content)
        with archive.open("m/5.json") as member:
            for i in range(0, len(data["m/5.json"]), 7):
                member.write(data["m/5.json"][i : i + 7])
        archive.close()
    with zipfile.ZipFile(tmp_path / "x.zip") as archive:
        assert archive.namelist() == list(data)
        assert {name: archive.read(name) for name in data} == data
        assert archive.testzip() is None
