"""Run directories from elsewhere (docs/security.md): a resume never opens a path the run directory
names (runs record file contents), and the user's credentials go only to endpoints the user named
now or in a run they created on this machine (signed with their run key). Resuming one's own run
stays one command."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
import threading

import pytest

from cogsim.cli import main as cogsim_main
from cogsim.store import open_store
from hostile_servers import Server, answer, completion, headers

pytestmark = pytest.mark.timeout(60)  # every case is time-bound; slower ones say more

SECRET_KEY = "sk-users-own-secret"
KIDGYM = ["kidgym/maze", "--env-option", "images=false", "--episodes", "2"]


def _failing(conn) -> None:
    body = b'{"error": {"message": "overloaded"}}'
    conn.sendall(headers(len(body), "503 Service Unavailable") + body)


@pytest.fixture(autouse=True)
def credentials(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET_KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def _stopped_run(out, *extra: str) -> None:
    """A run of the user's own that a server fault stopped: resumable, signed with the user's key."""
    with Server(_failing) as down:
        code = cogsim_main(
            [
                "run",
                *KIDGYM,
                "--agent",
                "openai:m",
                "--agent-option",
                f"base_url={down.url}",
                "--agent-option",
                "max_retries=0",
                "--out",
                str(out),
                "--no-progress",
                *extra,
            ]
        )
    assert code == 3


def _edit_config(out, change) -> None:
    """What someone who hands the user a run directory does: rewrite its stored config."""
    with sqlite3.connect(out / "store.sqlite") as db:
        (text,) = db.execute("SELECT config FROM runs").fetchone()
        config = json.loads(text)
        change(config)
        db.execute("UPDATE runs SET config = ?", (json.dumps(config),))


def _resume(out, *extra: str) -> int:
    return cogsim_main(["run", "--resume", str(out), "--no-progress", *extra])


@pytest.mark.timeout(60)
def test_a_foreign_endpoint_and_file_get_neither_credentials_nor_content(tmp_path, capsys):
    out = tmp_path / "run"
    _stopped_run(out)
    secret = tmp_path / "secret.txt"
    secret.write_text("PRIVATE NOTES {goal} {actions}")
    with Server(answer(completion("A"))) as attacker:

        def plant(config):
            config["agent_options"]["base_url"] = attacker.url
            config["tasks"][0]["options"]["prompt_template"] = str(secret)

        _edit_config(out, plant)
        capsys.readouterr()
        assert _resume(out) == 2
        assert attacker.requests == []  # nothing reached it: no prompt, no key
    err = capsys.readouterr().err.strip()
    assert err.startswith("cogsim: error: ") and "\n" not in err
    assert "names the file" in err and "never opens a path that a run directory names" in err


@pytest.mark.timeout(60)
def test_a_foreign_endpoint_must_be_named_again_and_then_gets_the_key(tmp_path, capsys):
    out = tmp_path / "run"
    _stopped_run(out)
    with Server(answer(completion("A"))) as attacker:
        _edit_config(out, lambda config: config["agent_options"].update(base_url=attacker.url))
        capsys.readouterr()
        assert _resume(out) == 2
        assert attacker.requests == []
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and "was not started by you on this machine" in err
        assert attacker.url in err and f"cogsim run --resume {out} --agent-option base_url=URL" in err
        # the user decides: naming the endpoint on the command line sends the key there
        assert _resume(out, "--agent-option", f"base_url={attacker.url}") in (0, 3)
        assert attacker.requests and all(
            r["headers"].get("authorization") == f"Bearer {SECRET_KEY}" for r in attacker.requests
        )


@pytest.mark.timeout(60)
def test_resuming_ones_own_run_stays_one_command(tmp_path):
    out = tmp_path / "run"
    _stopped_run(out)
    with Server(answer(completion("A"))) as server:
        assert _resume(out, "--agent-option", f"base_url={server.url}") in (0, 3)  # moved: named once
        from cogsim.harness import trust

        with open_store(out) as store:
            assert trust.verify(store.config(), store.signature())
        count = len(server.requests)
        assert _resume(out) in (0, 3)  # the recorded endpoint is the user's own: one command
        assert all(r["headers"].get("authorization") == f"Bearer {SECRET_KEY}" for r in server.requests)
    assert count > 0


@pytest.mark.timeout(60)
def test_a_foreign_run_without_an_endpoint_uses_the_users_own(tmp_path, monkeypatch):
    out = tmp_path / "run"
    _stopped_run(out)
    _edit_config(out, lambda config: config["agent_options"].pop("base_url"))  # the user's default endpoint
    with Server(answer(completion("A"))) as own:
        monkeypatch.setenv("OPENAI_BASE_URL", own.url)
        assert _resume(out) in (0, 3)
        assert own.requests


@pytest.mark.timeout(60)
def test_a_run_records_file_contents_and_its_resume_never_opens_the_path(tmp_path):
    template = tmp_path / "turn.txt"
    template.write_text("Goal: {goal}\nOptions: {actions}")
    out = tmp_path / "run"
    _stopped_run(out, "--env-option", f"prompt_template={template}")
    with open_store(out) as store:
        recorded = store.config()["tasks"][0]["options"]["prompt_template"]
    assert recorded["text"] == "Goal: {goal}\nOptions: {actions}" and recorded["file"] == "turn.txt"
    with open_store(out) as store:  # each episode names the file by its hash, without the text
        options = store.episodes(("running", "done", "truncated", "error"))[0]["options"]
    assert options["prompt_template"] == {"file": "turn.txt", "sha256": recorded["sha256"]}
    template.unlink()
    os.mkfifo(template)  # were the path opened again, the resume would block here
    unblock = threading.Timer(10.0, lambda: os.close(os.open(template, os.O_WRONLY | os.O_NONBLOCK)))
    unblock.start()
    try:
        with Server(answer(completion("A"))) as server:
            assert _resume(out, "--agent-option", f"base_url={server.url}") in (0, 3)
            assert server.requests and "Goal: " in server.requests[0]["body"]
    finally:
        unblock.cancel()


@pytest.mark.timeout(60)
def test_a_path_planted_in_a_run_directory_is_never_opened(tmp_path, capsys):
    out = tmp_path / "run"
    _stopped_run(out)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # the old resume opened it and hung
    _edit_config(out, lambda config: config["tasks"][0]["options"].update(prompt_template=str(fifo)))
    capsys.readouterr()
    assert _resume(out) == 2
    assert "never opens a path" in capsys.readouterr().err


@pytest.mark.timeout(60)
def test_a_model_judge_named_by_a_foreign_run_is_not_called(tmp_path, capsys):
    out = tmp_path / "run"
    assert cogsim_main(["run", "wilt/lite", "--episodes", "1", "--out", str(out), "--no-progress"]) == 0
    with sqlite3.connect(out / "store.sqlite") as db:  # unfinished, so the resume would play it
        db.execute("DELETE FROM turns")
        db.execute("UPDATE episodes SET status = 'running'")
    with Server(answer(completion("Category: Correct"))) as attacker:

        def plant(config):
            config["tasks"][0]["options"].update(judge="openai:j", judge_options={"base_url": attacker.url})

        _edit_config(out, plant)
        capsys.readouterr()
        assert _resume(out) == 2
        assert attacker.requests == []
    err = capsys.readouterr().err
    assert "the judge openai:j of task 0 (wilt/lite)" in err and "give the run's whole command again" in err


def test_the_run_key_is_private_and_refused_when_others_can_read_it(tmp_path, monkeypatch, capsys):
    from cogsim.harness import trust

    monkeypatch.setenv("COGSIM_CONFIG", str(tmp_path / "config"))
    signature = trust.sign({"a": 1})
    key = tmp_path / "config" / trust.KEY_NAME
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    assert trust.verify({"a": 1}, signature) and not trust.verify({"a": 2}, signature)
    assert not trust.verify({"a": 1}, None)
    digits = range(len(trust.SIGNATURE_PREFIX), len(signature))
    for at in (digits[0], digits[-1]):  # one hex digit changed to another: never the digit that was there
        changed = signature[:at] + f"{(int(signature[at], 16) + 1) % 16:x}" + signature[at + 1 :]
        assert changed != signature and not trust.verify({"a": 1}, changed)
    key.chmod(0o644)
    with pytest.raises(ValueError, match="no one else can read"):
        trust.sign({"a": 1})
    plugin = os.path.join(os.path.dirname(__file__), "loop_envs.py")
    assert (
        cogsim_main(["run", "looptest/count", "--import", plugin, "--out", str(tmp_path / "r"), "--no-progress"]) == 2
    )
    assert "chmod 600" in capsys.readouterr().err


@pytest.mark.timeout(30, method="thread")  # opening a FIFO for reading blocks until a writer comes
@pytest.mark.parametrize("kind", ["fifo", "directory", "link to a fifo"])
def test_a_run_key_that_is_not_a_regular_file_is_one_line_saying_what_to_fix(tmp_path, monkeypatch, capsys, kind):
    config = tmp_path / "config"
    monkeypatch.setenv("COGSIM_CONFIG", str(config))
    plugin = os.path.join(os.path.dirname(__file__), "loop_envs.py")
    assert (
        cogsim_main(["run", "looptest/count", "--import", plugin, "--out", str(tmp_path / "mine"), "--no-progress"])
        == 0
    )
    key = config / "run-key"
    key.unlink()
    if kind == "directory":
        key.mkdir()
    elif kind == "fifo":
        os.mkfifo(key, 0o600)
    else:
        os.mkfifo(tmp_path / "pipe", 0o600)
        key.symlink_to(tmp_path / "pipe")
    capsys.readouterr()
    for command in (
        ["run", "looptest/count", "--out", str(tmp_path / "new")],
        ["run", "--resume", str(tmp_path / "mine")],
    ):
        assert cogsim_main([*command, "--import", plugin, "--no-progress"]) == 2
        err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
        assert len(err) == 1 and err[0].startswith(f"cogsim: error: the run key {key} is "), err
        assert "remove it" in err[0]


def test_a_run_key_that_cannot_be_kept_is_a_one_line_warning(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    plugin = os.path.join(os.path.dirname(__file__), "loop_envs.py")
    env = {**os.environ, "COGSIM_CONFIG": str(tmp_path / "file" / "cogsim")}
    done = subprocess.run(
        [sys.executable, "-m", "cogsim.cli", "run", "looptest/count", "--import", plugin, "--out", str(tmp_path / "r")]
        + ["--no-progress"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    err = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(err) == 1 and err[0].startswith("cogsim: warning: cannot keep the run key"), err
