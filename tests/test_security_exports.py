"""Exports of untrusted run directories (docs/security.md): the inspect log streams its samples,
reads each stored frame once and bounds what one sample and the whole log hold; stored times out of
range are one clear line; no export writes through a link planted where its output goes."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

import cogsim
from cogsim.cli import main
from cogsim.harness import RunConfig, Task, run
from cogsim.integrations import inspect_log

pytestmark = pytest.mark.timeout(120)

FRAME_BYTES = 16 << 20
REFS_PER_TURN = 60


def _png(size: int, seed: int) -> bytes:
    """A valid PNG of about ``size`` bytes that does not compress (random pixels, stored deflate)."""
    width = 4096
    rows = size // (width * 3)
    noise = hashlib.shake_256(seed.to_bytes(8, "little")).digest(width * 3 * rows)
    raw = b"".join(b"\x00" + noise[r * width * 3 : (r + 1) * width * 3] for r in range(rows))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, rows, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 0)) + chunk(b"IEND", b"")


def _plant_frame(run_dir: Path, data: bytes) -> str:
    key = hashlib.sha256(data).hexdigest()
    ref = f"images/{key[:2]}/{key}.png"
    (run_dir / ref).parent.mkdir(parents=True, exist_ok=True)
    (run_dir / ref).write_bytes(data)
    return ref


@pytest.fixture(scope="module")
def frames_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("frames") / "run"
    run(RunConfig([Task("kidgym/counting", 2)], ["oracle"], workers=1), out)
    return out


@pytest.fixture
def run_dir(frames_run, tmp_path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(frames_run, copy)
    return copy


def _name_in_every_turn(run_dir: Path, refs_of_episode: dict[int, list[str]]) -> None:
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        for episode_id, refs in refs_of_episode.items():
            db.execute("UPDATE turns SET images = ? WHERE episode_id = ?", (json.dumps(refs), episode_id))


def _episode_ids(run_dir: Path) -> list[int]:
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        return [row[0] for row in db.execute("SELECT id FROM episodes ORDER BY id")]


def _export_limited(args: list[str], address_limit: int) -> tuple[subprocess.CompletedProcess, int]:
    """``cogsim ARGS`` in a fresh process under an address-space limit (RLIMIT_AS): its result and how
    much its peak resident memory grew while the command ran, in KiB."""
    code = (
        "import resource, sys\n"
        f"resource.setrlimit(resource.RLIMIT_AS, ({address_limit}, {address_limit}))\n"
        "from cogsim.cli import main\n"
        "import cogsim.integrations.inspect_log\n"
        "def peak():\n"
        "    return int([line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM')][0])\n"
        "before = peak()\n"
        "status = main(sys.argv[1:])\n"
        "print('grew', peak() - before, file=sys.stderr)\n"
        "sys.exit(status)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(cogsim.__file__).resolve().parents[1])}
    result = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=300)
    lines = result.stderr.splitlines()
    grew = int(lines[-1].split()[1]) if lines and lines[-1].startswith("grew") else -1
    return result, grew


def _one_line(stderr: str, *needles: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("cogsim: error: "), stderr[-3000:]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


# -- the inspect export: bounded memory, frames read once, caps -------------------------------------------
@pytest.mark.timeout(300)
def test_a_frame_named_60_times_in_every_turn_exports_in_bounded_memory(run_dir, tmp_path):
    """Each episode's turns name its own incompressible 16 MiB PNG 60 times: the samples stream out
    one at a time, each frame read once and held once, under a 2 GiB address limit (before, one
    such episode took 2.8 GB and the limit gave a MemoryError traceback)."""
    episodes = _episode_ids(run_dir)
    refs = {e: [_plant_frame(run_dir, _png(FRAME_BYTES, seed=e))] * REFS_PER_TURN for e in episodes}
    _name_in_every_turn(run_dir, refs)
    out = tmp_path / "x.eval"
    result, grew = _export_limited(["export", str(run_dir), "--format", "inspect", "--out", str(out)], 2 << 30)
    assert result.returncode == 0, result.stderr[-3000:]
    assert 0 < grew < 400 << 10, f"peak memory grew by {grew / 1024:.0f} MiB"
    log = read_eval_log(str(out))  # attachments left unresolved: each frame is one attachment per sample
    assert len(log.samples) == len(episodes)
    for sample in log.samples:
        frames = [
            c.image
            for m in sample.messages
            if m.role == "user" and not isinstance(m.content, str)
            for c in m.content
            if c.type == "image"
        ]
        assert all(f.startswith("attachment://") for f in frames)
        assert len(frames) == REFS_PER_TURN * sum(m.role == "user" for m in sample.messages)
        assert len(set(frames)) == 1 and len(sample.attachments) == 1


def test_each_stored_frame_is_read_once_per_export(run_dir, tmp_path, monkeypatch):
    ref = _plant_frame(run_dir, _png(1 << 16, seed=1))
    _name_in_every_turn(run_dir, {e: [ref] * REFS_PER_TURN for e in _episode_ids(run_dir)})
    reads = []
    read_frame = inspect_log.read_stored_frame
    monkeypatch.setattr(inspect_log, "read_stored_frame", lambda *a, **k: reads.append(a[1]) or read_frame(*a, **k))
    assert inspect_log.export_inspect(run_dir, tmp_path / "x.eval") == 2
    assert reads == [ref]


@pytest.mark.parametrize("cap", ["MAX_SAMPLE_BYTES", "MAX_EVAL_EXPORT_BYTES"])
def test_past_a_cap_the_export_ends_in_one_line_and_writes_nothing(run_dir, tmp_path, monkeypatch, capsys, cap):
    ref = _plant_frame(run_dir, _png(1 << 20, seed=2))
    _name_in_every_turn(run_dir, {e: [ref] for e in _episode_ids(run_dir)})
    monkeypatch.setattr(inspect_log, cap, (1 << 20) + 4096 if cap == "MAX_EVAL_EXPORT_BYTES" else 1 << 20)
    assert main(["export", str(run_dir), "--format", "inspect", "--out", str(tmp_path / "x.eval")]) == 2
    line = _one_line(capsys.readouterr().err, "store.sqlite", "--format jsonl")
    assert ("one sample" in line) if cap == "MAX_SAMPLE_BYTES" else ("the whole log" in line)
    assert sorted(os.listdir(tmp_path)) == ["run"]


def test_a_json_log_is_held_in_memory_and_so_capped_lower(run_dir, tmp_path, monkeypatch, capsys):
    ref = _plant_frame(run_dir, _png(1 << 20, seed=3))
    _name_in_every_turn(run_dir, {e: [ref] for e in _episode_ids(run_dir)})
    monkeypatch.setattr(inspect_log, "MAX_JSON_EXPORT_BYTES", (1 << 20) + 4096)
    assert main(["export", str(run_dir), "--format", "inspect", "--out", str(tmp_path / "x.eval")]) == 0
    assert main(["export", str(run_dir), "--format", "inspect", "--out", str(tmp_path / "x.json")]) == 2
    _one_line(capsys.readouterr().err, "a .json log", ".eval")
    assert not (tmp_path / "x.json").exists()


@pytest.mark.timeout(30, method="thread")  # opening a FIFO for reading blocks until a writer comes
def test_a_fifo_or_a_linked_folder_in_place_of_a_frame_is_not_read(run_dir, tmp_path):
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        refs = [json.loads(images)[0] for (images,) in db.execute("SELECT images FROM turns ORDER BY rowid")]
    fifo, linked = run_dir / refs[0], run_dir / refs[-1]
    fifo.unlink()
    os.mkfifo(fifo)
    elsewhere = tmp_path / "elsewhere"
    shutil.move(linked.parent, elsewhere)
    os.symlink(elsewhere, linked.parent)
    assert main(["export", str(run_dir), "--format", "inspect", "--out", str(tmp_path / "x.eval")]) == 0
    log = read_eval_log(str(tmp_path / "x.eval"))
    notes = [
        c.text
        for s in log.samples
        for m in s.messages
        if m.role == "user" and not isinstance(m.content, str)
        for c in m.content
        if c.type == "text" and "could not be read" in c.text
    ]
    assert len(notes) >= 2


# -- stored times out of range ---------------------------------------------------------------------------
@pytest.mark.parametrize("value", [float("inf"), float("-inf"), 1e300, -1e18, 1e12])
@pytest.mark.parametrize("column", ["sessions.started", "turns.t"])
def test_a_stored_time_out_of_range_is_one_line(run_dir, tmp_path, capsys, column, value):
    table, name = column.split(".")
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        db.execute(f"UPDATE {table} SET {name} = ?", (value,))
    assert main(["export", str(run_dir), "--format", "inspect", "--out", str(tmp_path / "x.eval")]) == 2
    _one_line(capsys.readouterr().err, "store.sqlite", f"column {name}", "a time")
    assert main(["report", str(run_dir)]) == 2
    _one_line(capsys.readouterr().err, f"column {name}")


@pytest.mark.parametrize("value", [float("inf"), -1.0, 1e300])
def test_a_stored_latency_out_of_range_is_one_line(run_dir, tmp_path, capsys, value):
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        db.execute("UPDATE turns SET latency_s = ?", (value,))
    assert main(["export", str(run_dir), "--format", "inspect", "--out", str(tmp_path / "x.eval")]) == 2
    _one_line(capsys.readouterr().err, "column latency_s", "a duration")


# -- no export writes through a link ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "fmt, name", [("inspect", "out.eval"), ("inspect", "out.json"), ("jsonl", "out.jsonl"), ("sft", "out.jsonl")]
)
def test_an_export_replaces_a_link_at_its_output_and_leaves_the_victim(run_dir, tmp_path, fmt, name):
    victim = tmp_path / "elsewhere" / f"victim-{name}"
    victim.parent.mkdir()
    victim.write_text("the victim's own content")
    os.symlink(victim, run_dir / name)
    assert main(["export", str(run_dir), "--format", fmt, "--out", str(run_dir / name)]) == 0
    assert victim.read_text() == "the victim's own content"
    assert not (run_dir / name).is_symlink() and (run_dir / name).stat().st_size > 0
    assert not [p for p in os.listdir(run_dir) if p.startswith(".")], "a temporary file was left behind"
    assert not [p for p in os.listdir(victim.parent) if p != victim.name]


def test_an_export_onto_a_link_to_the_store_replaces_the_link(run_dir, tmp_path, capsys):
    os.symlink(run_dir / "store.sqlite", tmp_path / "innocent.eval")
    assert main(["export", str(run_dir), "--format", "inspect", "--out", str(tmp_path / "innocent.eval")]) == 0
    assert (tmp_path / "innocent.eval").is_file() and not (tmp_path / "innocent.eval").is_symlink()
    assert sqlite3.connect(run_dir / "store.sqlite").execute("SELECT COUNT(*) FROM episodes").fetchone() == (2,)
