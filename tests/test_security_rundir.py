"""Untrusted model text and untrusted run directories (docs/security.md): text is stored losslessly,
a run survives and resumes past any reply, run directories are never a source of code, writes never
follow symbolic links, reports escape model text, and a damaged or full store gives a clear error."""

import errno
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import cogsim
import loop_envs  # noqa: F401  (registers the looptest envs)
from cogsim.agents import Completion, ModelBackend, register_backend
from cogsim.cli import main as cogsim_main
from cogsim.harness import RunConfig, Task, run
from cogsim.report import write_report
from cogsim.report.document import Code, Document, Text, markdown_code, markdown_text
from cogsim.store import export_jsonl, open_store
from cogsim.store.sqlite import Store, StoreError

HOSTILE = [
    "\ud800 lone surrogate ANSWER: 1",
    "NUL \x00 and \x1b[31m escape \udfff ANSWER: 2",
    "<script>alert(1)</script> ![x](http://evil/) | pipe ` tick [a](javascript:x) &amp;",
]


class HostileModel(ModelBackend):
    """Answers with HOSTILE[t]; when ``fail_at`` is set, every call from that turn on is a connection fault."""

    fail_at = None

    def __init__(self, model, **options):
        pass

    def complete(self, conversations):
        answers = []
        for conversation in conversations:
            turn = sum(m.role == "assistant" for m in conversation)
            if HostileModel.fail_at is not None and turn >= HostileModel.fail_at:
                answers.append(Completion(None, error="connection refused", fault="connection"))
            else:
                answers.append(Completion(HOSTILE[turn % len(HOSTILE)]))
        return answers


register_backend("hostile", HostileModel)


def _stored_responses(out):
    with open_store(out) as store:
        (episode_id,) = store.query("SELECT id FROM episodes ORDER BY id LIMIT 1")[0]
        return [t.response for t in store.turns(episode_id)]


def test_surrogates_nuls_and_control_characters_are_stored_losslessly_through_a_run_and_its_resume(tmp_path):
    out = tmp_path / "run"
    config = RunConfig([Task("looptest/count", 1)], ["hostile:m"], max_turns=3)
    HostileModel.fail_at = 2  # two hostile turns, then the backend fails: the episode waits for a resume
    summary = run(config, out)
    assert summary.faults and _stored_responses(out) == HOSTILE[:2]
    HostileModel.fail_at = None
    run(None, out, resume=True)  # replays the stored hostile turns, then goes on
    assert _stored_responses(out)[:3] == HOSTILE
    lines = [json.loads(line) for line in export_jsonl(out, tmp_path / "x.jsonl") and open(tmp_path / "x.jsonl")]
    assert [t["response"] for t in lines[0]["trajectory"]][:3] == HOSTILE
    markdown, page = write_report(out)
    assert markdown.exists() and page.exists()


def test_store_round_trips_any_text_directly(tmp_path):
    from cogsim.store.values import from_db_text, to_db_text

    for text in ["", "plain", "é", "\ud800", "a\udfffb\x00c", "\U0001f600", "\ud83d\ude00 split pair"]:
        assert from_db_text(to_db_text(text)) == text


def test_report_escapes_model_text_in_markdown_and_html(tmp_path):
    out = tmp_path / "run"
    HostileModel.fail_at = None
    run(RunConfig([Task("looptest/count", 1)], ["hostile:m"], max_turns=3), out)
    markdown, page = write_report(out)
    md, html = markdown.read_text(), page.read_text()
    assert "<script>" not in md and "<script>" not in html
    assert "](http://evil/)" not in md and "](javascript:" not in md
    assert "&lt;script&gt;" in md and "&lt;script&gt;" in html


def test_markdown_escaping_helpers():
    assert markdown_text("<b>*x*</b> | [a](b) `c`") == "&lt;b&gt;\\*x\\*&lt;/b&gt; \\| [a]\\(b) \\`c\\`"
    assert markdown_code("a`b") == "``a`b``" and markdown_code("x|y", in_table=True) == "`x\\|y`"
    document = Document(Text("<t>"))
    document.paragraph("trusted `code` ", Text("<i>"), " ", Code("``"))
    document.heading(Text("# <h>"))
    document.code("```\nbreak out\n```")
    md = document.markdown()
    assert md.startswith("# &lt;t&gt;") and "trusted `code` &lt;i&gt; ``` `` ```" in md and "## # &lt;h&gt;" in md
    assert "````text\n```\nbreak out\n```\n````" in md
    assert "<i>" not in document.html() and "<t>" not in document.html()


@pytest.mark.parametrize("name", ["report.md", "report.html", "run.lock"])
def test_symlinks_in_a_run_directory_are_never_written_through(tmp_path, name):
    out = tmp_path / "run"
    run(RunConfig([Task("looptest/count", 1)], ["oracle"]), out)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (out / name).unlink(missing_ok=True)
    (out / name).symlink_to(victim)
    if name == "run.lock":
        with pytest.raises(ValueError, match="symbolic link"):
            run(None, out, resume=True)
    else:
        write_report(out)
        assert not (out / name).is_symlink()
    assert victim.read_text() == "precious"


def test_a_symlinked_store_or_plots_directory_is_refused(tmp_path):
    out = tmp_path / "run"
    run(RunConfig([Task("looptest/count", 1)], ["oracle"]), out)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (out / "plots").rename(tmp_path / "old-plots") if (out / "plots").exists() else None
    (out / "plots").symlink_to(elsewhere)
    with pytest.raises(ValueError, match="symbolic link"):
        from cogsim.report.run_report import _plots_dir

        _plots_dir(out)
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "store.sqlite").symlink_to(out / "store.sqlite")
    with pytest.raises(ValueError, match="symbolic link"):
        Store(linked)


def test_export_refuses_to_overwrite_the_store_and_leaves_nothing_on_failure(tmp_path):
    out = tmp_path / "run"
    run(RunConfig([Task("looptest/count", 1)], ["oracle"]), out)
    size = (out / "store.sqlite").stat().st_size
    with pytest.raises(ValueError, match="own store"):
        export_jsonl(out, out / "store.sqlite")
    assert cogsim_main(["export", str(out), "--out", str(out / "store.sqlite")]) == 2
    assert (out / "store.sqlite").stat().st_size == size
    with open_store(out) as store:
        assert store.config() is not None


def test_a_corrupt_store_or_a_newer_schema_gives_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "store.sqlite").write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="not a readable cogsim store"):
        open_store(bad)
    assert cogsim_main(["report", str(bad)]) == 2
    assert "not a readable cogsim store" in capsys.readouterr().err
    out = tmp_path / "run"
    run(RunConfig([Task("looptest/count", 1)], ["oracle"]), out)
    with sqlite3.connect(out / "store.sqlite") as db:
        db.execute("UPDATE runs SET schema_version = 99")
    with pytest.raises(StoreError, match="schema 99"):
        open_store(out)


def test_disk_full_while_storing_an_image_leaves_no_temporary_file_and_says_so(tmp_path, monkeypatch):
    import numpy as np

    from cogsim import _files

    store = Store(tmp_path / "run")

    monkeypatch.setattr(_files.os, "write", _no_space_left)
    with pytest.raises(ValueError, match="no space left"):
        store.put_image(np.zeros((4, 4, 3), np.uint8))
    store.close()
    assert not [p for p in (tmp_path / "run").rglob("*.tmp")]


def _no_space_left(fd, data):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_resume_and_report_never_import_modules_named_by_the_run_directory(tmp_path):
    out = tmp_path / "run"
    run(RunConfig([Task("looptest/count", 1)], ["oracle"]), out)
    marker = tmp_path / "imported"
    evil = tmp_path / "evil_plugin.py"
    evil.write_text(f"open({str(marker)!r}, 'w').write('pwned')\n")
    with sqlite3.connect(out / "store.sqlite") as db:
        (config,) = db.execute("SELECT config FROM runs").fetchone()
        config = json.loads(config)
        config["imports"] = [str(evil)]
        db.execute("UPDATE runs SET config = ?", (json.dumps(config),))
    code = (
        "import sys; from cogsim.cli import main; "
        f"sys.exit(main(['report', {str(out)!r}]) or main(['run', '--resume', {str(out)!r}, '--no-progress']))"
    )
    # the cogsim this test imported: the source tree in a dev checkout, site-packages after pip install
    env = {**os.environ, "PYTHONPATH": str(Path(cogsim.__file__).resolve().parents[1])}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert not marker.exists()
    assert "never imports code named by a run directory" in result.stderr
    assert "does not import code named by a run directory" in result.stderr


PLANTED = ["link", "fifo", "sparse", "wrong bytes", "hard link", "hard link to the right bytes", "folder"]


def _plant(path: Path, kind: str, victim: Path) -> None:
    data = path.read_bytes()
    size = len(data)
    path.unlink()
    if kind == "link":
        path.symlink_to(victim)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "sparse":
        with open(path, "wb") as handle:
            handle.truncate(size)
    elif kind == "wrong bytes":
        path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"x" * (size - 8))
    elif kind == "hard link":
        os.link(victim, path)
    elif kind == "hard link to the right bytes":  # the other name could change them later
        right = victim.with_name(path.name)
        right.write_bytes(data)
        os.link(right, path)
    else:
        path.mkdir()


@pytest.mark.timeout(60, method="thread")  # a FIFO opened for reading blocks
@pytest.mark.parametrize("kind", PLANTED)
def test_a_resume_over_planted_frames_stores_the_bytes_the_model_got(tmp_path, kind):
    out = tmp_path / "run"
    run(RunConfig([Task("looptest/choice", 2)], ["oracle"]), out)
    with sqlite3.connect(out / "store.sqlite") as db:  # as if the run had stopped after the first turns
        db.execute("DELETE FROM turns WHERE turn > 0")
        db.execute("UPDATE episodes SET status = 'running'")
    victim = tmp_path / "victim"
    victim.write_text("precious")
    for frame in sorted((out / "images").rglob("*.png")):
        _plant(frame, kind, victim)  # every frame the resumed turns show again
    if kind == "folder":  # a folder cannot be replaced by a file: one line saying to remove it
        with pytest.raises(ValueError, match="is a directory where cogsim keeps a file; remove it"):
            run(None, out, resume=True)
        return
    run(None, out, resume=True)
    with sqlite3.connect(out / "store.sqlite") as db:
        resumed = [
            ref for (images,) in db.execute("SELECT images FROM turns WHERE turn > 0") for ref in json.loads(images)
        ]
    assert len(resumed) == 4
    for ref in resumed:
        path = out / ref
        assert path.is_file() and not path.is_symlink() and os.stat(path).st_nlink == 1
        assert hashlib.sha256(path.read_bytes()).hexdigest() == path.stem  # a frame is named by its bytes' SHA-256
    assert victim.read_text() == "precious"
