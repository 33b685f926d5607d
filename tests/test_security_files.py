"""Files the CLI reads and the exports write (docs/security.md): ``cube distances`` streams its input
in bounded memory and writes as it goes, reads only regular files, escapes what it quotes from them
(the core's messages keep NUL bytes and escape sequences escaped); the SFT export names only
regular files inside the run's own ``images/``."""

from __future__ import annotations

import os
import threading
import tracemalloc

import pytest

import loop_envs  # noqa: F401  (registers the looptest envs)
from cogsim import _core
from cogsim.cli import main as cogsim_main
from cogsim.harness import RunConfig, Task, run
from cogsim.store import export_sft
from cogsim.store.sqlite import StoreError

pytestmark = pytest.mark.timeout(60)  # every case is time-bound; slower ones say more

SOLVED = "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"


@pytest.mark.timeout(120)
def test_cube_distances_streams_in_bounded_memory(cube_oracle, tmp_path):
    states = tmp_path / "states.txt"
    states.write_text("U\n" * 1_000_000 + "\n\n")  # 2 MB of short lines, blank lines at the end
    out = tmp_path / "distances.txt"
    tracemalloc.start()
    try:
        code = cogsim_main(["cube", "distances", str(states), "--out", str(out), "--no-progress"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 0
    assert out.read_text() == "1\n" * 1_000_000
    assert peak < 48 << 20  # the whole file as lines took over 100 MB


@pytest.mark.timeout(60)
def test_cube_distances_keeps_blank_lines_between_states_and_writes_as_it_goes(cube_oracle, tmp_path, capsys):
    states = tmp_path / "states.txt"
    states.write_text(f"R\n\n{SOLVED}\r\nR U\n\n\n")
    assert cogsim_main(["cube", "distances", str(states), "--chunk", "2", "--no-progress"]) == 0
    assert capsys.readouterr().out == "1\n0\n0\n2\n"


@pytest.mark.timeout(30)
def test_cube_distances_refuses_fifos_devices_and_directories_without_blocking(tmp_path, capsys):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    unblock = threading.Timer(5.0, lambda: os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)))
    unblock.start()
    try:
        for path, kind in ((fifo, "a FIFO (named pipe)"), ("/dev/zero", "a device"), (tmp_path, "a directory")):
            assert cogsim_main(["cube", "distances", str(path), "--no-progress"]) == 2
            err = capsys.readouterr().err.strip()
            assert (
                err
                == f"cogsim: error: cube distances: {path} is {kind}, not a regular file; cogsim reads only regular files"
            )
    finally:
        unblock.cancel()


@pytest.mark.timeout(30)
def test_cube_distances_refuses_an_endless_line_without_reading_it_whole(tmp_path, capsys):
    states = tmp_path / "one-line.txt"
    with open(states, "wb") as handle:
        handle.write(b"R " * (50 << 20))  # 100 MB, no newline
    tracemalloc.start()
    try:
        assert cogsim_main(["cube", "distances", str(states), "--no-progress"]) == 2
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "line 1 is longer than 65536 bytes" in capsys.readouterr().err
    assert peak < 16 << 20


@pytest.mark.parametrize(
    "line, shown",
    [
        (b"R X\x00Y", r"'X\x00Y'"),
        (b"R \x1b[31mred", r"'\x1b[31mred'"),
        (b"R \xff\xfe", r"'\xff\xfe'"),
        ("R " + "é" * 15, r"'\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9...'"),
    ],
)
def test_errors_quote_bad_input_escaped_and_whole(tmp_path, capsys, line, shown):
    states = tmp_path / "states.txt"
    states.write_bytes(b"U\n" + (line if isinstance(line, bytes) else line.encode()) + b"\n")
    assert cogsim_main(["cube", "distances", str(states), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"line 2: invalid move {shown} (token 2 of the move string)" in err
    assert "\x1b" not in err and "\x00" not in err
    with pytest.raises(ValueError, match="X.x00Y"):  # the core's own message survives the NUL
        _core.cube_states_from_text(["R X\x00Y"])


def test_a_command_line_state_with_undecodable_bytes_is_a_clear_error(capsys):
    assert cogsim_main(["cube", "distance", "R \udcff\udcfe"]) == 2  # bytes the shell passed undecoded
    assert r"invalid move '\xff\xfe'" in capsys.readouterr().err


@pytest.mark.timeout(60)
def test_sft_export_names_only_regular_files_inside_the_runs_images(tmp_path):
    out = tmp_path / "run"
    run(RunConfig([Task("looptest/choice", 1)], ["oracle"]), out)
    assert export_sft(out, tmp_path / "ok.jsonl") == 1
    image = sorted((out / "images").rglob("*.png"))[0]
    image.unlink()
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"private")
    image.symlink_to(secret)  # a link planted where a frame should be
    with pytest.raises(StoreError, match=r"is not a regular file in the run's images/ folder"):
        export_sft(out, tmp_path / "linked.jsonl")
    assert not (tmp_path / "linked.jsonl").exists()
