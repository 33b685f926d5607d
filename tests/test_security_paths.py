"""Paths that untrusted data or a shared folder can name (docs/security.md), beyond the exports and
the table files: what is read there is read only from a regular file without blocking, what is
written there never goes through a link, and a stored number that sizes a table is range-checked."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

import numpy as np
import pytest
from inspect_ai.log import read_eval_log

from cogsim import _ray, render
from cogsim.agents import convert_gguf
from cogsim.benchmarks.cubebench import seed_lists
from cogsim.cli import main
from cogsim.harness import RunConfig, Task, run, sft

pytestmark = pytest.mark.timeout(60, method="thread")  # a blocking open of a FIFO must fail the case


def _one_line(stderr: str, *needles: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("cogsim: error: "), stderr[-3000:]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def cube_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cube") / "run"
    run(RunConfig([Task("cube/closed-loop", 1, options={"depth": 2, "modality": "text"})], ["oracle"]), out)
    return out


def test_a_stored_depth_that_would_size_a_table_is_refused_not_iterated(cube_run, tmp_path, capsys):
    """A closed-loop record's depth sets the columns of the step table: 10**12 made the report (and
    the inspect export's metrics) loop for hours. The suite's metrics now fail in one line."""
    run_dir = tmp_path / "run"
    shutil.copytree(cube_run, run_dir)
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        (text,) = db.execute("SELECT outcome FROM episodes").fetchone()
        db.execute("UPDATE episodes SET outcome = ?", (json.dumps({**json.loads(text), "depth": 10**12}),))
    assert main(["report", str(run_dir)]) == 0
    assert "holds depth 1000000000000; scrambles are 0 to 20 moves deep" in (run_dir / "report.md").read_text()
    assert main(["export", str(run_dir), "--format", "inspect", "--out", str(tmp_path / "x.eval")]) == 0
    failed = read_eval_log(str(tmp_path / "x.eval"), header_only=True).results.metadata["cogsim_metrics_failed"]
    assert "holds depth 1000000000000" in failed["cube"]
    capsys.readouterr()


def test_a_fifo_in_the_plots_folder_never_blocks_the_report(tmp_path):
    out = tmp_path / "run"
    run(RunConfig([Task("wilt/lite", 1)], ["oracle"], workers=1), out)
    (out / "plots").mkdir(exist_ok=True)
    os.mkfifo(out / "plots" / "wilt_reduction.png")
    assert main(["report", str(out)]) == 0
    assert (out / "plots" / "wilt_reduction.png").is_file()


def test_a_fifo_in_place_of_the_run_lock_is_one_line(tmp_path, capsys):
    out = tmp_path / "run"
    run(RunConfig([Task("wilt/lite", 1)], ["oracle"], workers=1), out)
    (out / "run.lock").unlink()
    os.mkfifo(out / "run.lock")
    assert main(["run", "--resume", str(out), "--no-progress"]) == 2
    _one_line(capsys.readouterr().err, "run.lock is a FIFO (named pipe), not a regular file")


@pytest.mark.parametrize(
    "write",
    [
        lambda path: render.save_png(np.zeros((4, 4, 3), np.uint8), path),
        lambda path: sft.write_jsonl([{"messages": []}], path),
        lambda path: seed_lists.export_seed_list({"format": "x"}, path),
    ],
    ids=["save_png", "sft.write_jsonl", "export_seed_list"],
)
def test_files_written_at_a_named_path_replace_a_link_there(tmp_path, write):
    victim = tmp_path / "victim"
    victim.write_text("the victim's own content")
    os.symlink(victim, tmp_path / "out")
    write(tmp_path / "out")
    assert victim.read_text() == "the victim's own content"
    assert (tmp_path / "out").is_file() and not (tmp_path / "out").is_symlink()


def test_a_fifo_as_a_cached_conversions_stamp_is_not_read(tmp_path, monkeypatch):
    monkeypatch.setenv("COGSIM_CACHE", str(tmp_path / "cache"))
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF v1")
    out = tmp_path / "cache" / "models" / "m-bfloat16"
    out.mkdir(parents=True)
    os.mkfifo(out / convert_gguf.STAMP)
    converted = []
    monkeypatch.setattr(convert_gguf, "convert", lambda source, folder, dtype: converted.append(folder) or folder)
    assert convert_gguf.cached_conversion(gguf) == out and converted == [out]


def test_a_fifo_as_the_recorded_ray_address_is_not_read(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    (tmp_path / "ray").mkdir()
    os.mkfifo(tmp_path / "ray" / "ray_current_cluster")
    assert isinstance(_ray._recorded_address(), str)
