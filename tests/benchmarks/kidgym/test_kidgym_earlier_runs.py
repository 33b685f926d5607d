"""A run stored with KidGym's earlier mechanics (``mechanics="cogsim"``, cogsim 0.1.0) still reports and
exports as it did when it was made (``tests/data/run_kidgym_cogsim_mechanics``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cogsim.report import build_report
from cogsim.store import export_jsonl

EARLIER_RUN = Path(__file__).parents[2] / "data" / "run_kidgym_cogsim_mechanics"


@pytest.fixture
def earlier_run(tmp_path) -> Path:
    run_dir = tmp_path / "earlier"
    shutil.copytree(EARLIER_RUN, run_dir, ignore=shutil.ignore_patterns("expected_*", "*.py", "*.md"))
    return run_dir


def test_a_run_of_the_earlier_mechanics_reports_as_it_did(earlier_run):
    report = build_report(earlier_run).markdown()
    expected = (EARLIER_RUN / "expected_report.md").read_text()
    kept = [line for line in expected.splitlines() if line.startswith(("|", "Frames:"))]
    assert len(kept) > 20
    missing = [line for line in kept if line not in report.splitlines()]
    assert not missing, missing


def test_a_run_of_the_earlier_mechanics_exports_as_it_did(earlier_run, tmp_path):
    assert export_jsonl(earlier_run, tmp_path / "run.jsonl") == 12
    exported = [json.loads(line) for line in (tmp_path / "run.jsonl").read_text().splitlines()]
    expected = [json.loads(line) for line in (EARLIER_RUN / "expected_export.jsonl").read_text().splitlines()]
    # One field differs on purpose: these outcomes hold the task's name under "task", which the export
    # of that time let replace the runner's field (the run's task index); a stored outcome is untrusted
    # and no longer replaces a runner's field. The name stays in env_id and the task's code.
    assert all(e["task"] == e["env_id"].split("/")[1] for e in expected if e["status"] == "done")
    indices = {e["env_id"]: e["task"] for e in exported}  # one task index per env id of the run
    assert sorted(indices.values()) == list(range(len(indices)))
    assert [{**e, "task": indices[e["env_id"]]} for e in expected] == exported
    assert {e["mechanics"] for e in exported if e["status"] == "done"} == {"cogsim"}


def test_resuming_a_run_of_the_earlier_mechanics_says_in_one_line_where_they_went(earlier_run, capsys):
    from cogsim.cli import main

    assert main(["run", "--resume", str(earlier_run), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert "mechanics='cogsim', cogsim's earlier KidGym mechanics, are gone" in err
    assert "played by cogsim 0.1.0 and earlier" in err and "still reports and exports" in err
    assert export_jsonl(earlier_run, earlier_run.parent / "after.jsonl") == 12  # the refusal wrote nothing
