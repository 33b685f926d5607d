"""The cube's table files (docs/security.md): anything but a regular file in place of a pattern
database, a phase-1 table or a coset table is refused before it is opened, in one line, never a
hang; a table that does not fit the process's memory limits says so and what it needs, and nothing
is rebuilt because memory is short; the large coset table is mapped only when a query needs it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import cogsim
from cogsim import _core, cube
from cogsim.cube import _memory
from cogsim.cube import _oracle as oracle_module

pytestmark = pytest.mark.timeout(120)

SMALL_TABLES = ("cube-corners.v1.table", "cube-edges6-from0.v1.table", "cube-edges6-from6.v1.table")


@pytest.fixture
def linked_cache(cube_oracle, tmp_path) -> Path:
    """A fresh table folder whose pattern databases are links to the test cache's (links to
    regular files are read as the files; only what the test plants there differs)."""
    folder = tmp_path / "cube"
    folder.mkdir()
    for table in Path(cube_oracle.info()["cache_dir"]).glob("*.table"):
        if not table.name.startswith("cube-cosets-"):
            os.symlink(table, folder / table.name)
    return folder


def _cogsim(args: list[str], cache: Path, address_limit: int = 0, timeout: float = 120) -> subprocess.CompletedProcess:
    """``cogsim ARGS`` in a fresh process with its tables in ``cache``/cube, under an address-space
    limit (RLIMIT_AS) when one is given."""
    code = "import resource, sys\n"
    if address_limit:
        code += f"resource.setrlimit(resource.RLIMIT_AS, ({address_limit}, {address_limit}))\n"
    code += "from cogsim.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    env = {**os.environ, "PYTHONPATH": str(Path(cogsim.__file__).resolve().parents[1]), "COGSIM_CACHE": str(cache)}
    return subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=timeout)


def _one_line(stderr: str, *needles: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("cogsim: error: "), stderr[-3000:]
    assert "Traceback" not in stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


# -- regular files only, refused before any blocking open ---------------------------------------------------
@pytest.mark.timeout(60, method="thread")  # opening a FIFO for reading blocks until a writer comes
@pytest.mark.parametrize(
    "victim",
    [
        "cube-corners.v1.table",
        "cube-edges6-from6.v1.table",
        "cube-perimeter2-edges6.v1.table",
        "cube-shell3-edges6.v1.table",
        "cube-phase1-sym16.v1.table",
    ],
)
@pytest.mark.parametrize("planted", ["fifo", "link to a fifo", "directory"])
def test_a_pattern_database_that_is_not_a_regular_file_is_refused_without_blocking(linked_cache, victim, planted):
    path = linked_cache / victim
    path.unlink(missing_ok=True)
    if planted == "fifo":
        os.mkfifo(path)
    elif planted == "directory":
        path.mkdir()
    else:
        os.mkfifo(linked_cache.parent / "pipe")
        os.symlink(linked_cache.parent / "pipe", path)
    kind = "a directory" if planted == "directory" else "a FIFO"
    phase1 = "plain" if "phase1" in victim else "off"
    with pytest.raises(ValueError, match=rf"{victim} is {kind}.*not a regular file"):
        _core.CubeOracle(str(linked_cache), 6, 2, 0, None, phase1=phase1)
    assert path.is_dir() if planted == "directory" else not path.is_file()  # left as it was, not rebuilt


@pytest.mark.timeout(60, method="thread")
@pytest.mark.parametrize("planted", ["fifo", "link"])
def test_the_lock_of_a_table_build_is_never_opened_through_a_link_or_blocking(linked_cache, tmp_path, planted):
    victim = tmp_path / "victim"
    victim.write_text("the victim's own content")
    table = linked_cache / "cube-edges6-from6.v1.table"
    table.unlink()
    lock = f"{table}.lock"
    os.mkfifo(lock) if planted == "fifo" else os.symlink(victim, lock)
    kind = "a FIFO" if planted == "fifo" else "a symbolic link"
    with pytest.raises(ValueError, match=rf"\.table\.lock is {kind}.*not a regular file"):
        _core.CubeOracle(str(linked_cache), 6, 2, 0, None)
    assert victim.read_text() == "the victim's own content" and not table.exists()


@pytest.mark.timeout(60, method="thread")
def test_a_coset_table_that_is_a_fifo_is_refused_without_blocking(linked_cache, tmp_path):
    fifo = linked_cache / cube.table_path("small", str(linked_cache)).name
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="is a FIFO .*not a regular file"):
        _core.CosetSolver("small", str(fifo))
    with pytest.raises(ValueError, match="is a FIFO"):
        _core.cube_coset_build("small", str(fifo))
    os.symlink(fifo, tmp_path / "link.table")
    with pytest.raises(ValueError, match="is a FIFO"):
        _core.CosetSolver("small", str(tmp_path / "link.table"))
    done = _cogsim(["cube", "solve", "R U F", "--max-nodes", "1000000"], linked_cache.parent, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "F' U' R'", done.stderr  # no query needed the table
    env = {"COGSIM_CUBE_TABLE": "small"}
    os.environ.update(env)
    try:
        done = _cogsim(["cube", "distance", " ".join(cube.scramble(13, 5))], linked_cache.parent, timeout=60)
    finally:
        del os.environ["COGSIM_CUBE_TABLE"]
    assert done.returncode == 2
    _one_line(done.stderr, "is a FIFO (named pipe), not a regular file")


@pytest.mark.timeout(120, method="thread")
def test_the_files_of_a_coset_build_are_never_written_through_links_or_opened_blocking(linked_cache, tmp_path):
    table = linked_cache / cube.table_path("small", str(linked_cache)).name
    victim = tmp_path / "victim"
    victim.write_text("the victim's own content")

    def plant(suffix: str, make) -> None:
        for left in linked_cache.glob(f"{table.name}.*"):  # what the refused build before left
            left.unlink()
        make(f"{table}{suffix}")

    for suffix in (".partial", ".lock"):  # opened for writing
        plant(suffix, lambda path: os.symlink(victim, path))
        with pytest.raises(ValueError, match=f"{suffix} is a symbolic link"):
            _core.cube_coset_build("small", str(table))
    for suffix in (".partial", ".lock", ".partial.state"):
        plant(suffix, os.mkfifo)
        with pytest.raises(ValueError, match=f"{suffix} is a FIFO"):
            _core.cube_coset_build("small", str(table))
    plant(".partial.state.tmp", lambda path: None)
    os.symlink(victim, f"{table}.partial.state.tmp")  # the old fixed name of a checkpoint's temporary file
    _core.cube_coset_build("small", str(table), checkpoint_seconds=0)  # a checkpoint after every level
    assert victim.read_text() == "the victim's own content"
    assert _core.CosetSolver("small", str(table)).info()["size"] == "small"


def test_a_table_written_beside_a_planted_link_replaces_nothing_else(cube_oracle, tmp_path):
    """write_table's temporary file had a predictable name (path.tmp.PID) opened with O_TRUNC: a
    link planted there was written through. It is created exclusively now."""
    victim = tmp_path / "victim"
    victim.write_text("the victim's own content")
    folder = tmp_path / "cube"
    folder.mkdir()
    for name in SMALL_TABLES:
        os.symlink(Path(cube_oracle.info()["tables"][0]["path"]).parent / name, folder / name)
    code = (
        "import os, sys\n"
        "from cogsim import _core\n"
        "folder, victim = sys.argv[1:]\n"
        "for depth in range(3):\n"
        "    os.symlink(victim, f'{folder}/cube-perimeter{depth}-edges6.v1.table.tmp.{os.getpid()}')\n"
        "    _core.CubeOracle(folder, 6, depth, 0, None)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(folder), str(victim)], check=True, timeout=120)
    assert victim.read_text() == "the victim's own content"
    assert (folder / "cube-perimeter2-edges6.v1.table").is_file()


# -- memory limits -------------------------------------------------------------------------------------------
@pytest.mark.timeout(300)
def _address_space_after_import() -> int:
    """What a fresh ``cogsim`` process maps before it touches a table (VmSize), in bytes."""
    code = "import cogsim.cli\nprint(next(l for l in open('/proc/self/status') if l.startswith('VmSize')).split()[1])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return int(done.stdout) << 10


@pytest.mark.parametrize("share_of_tables", [0.1, 0.5, 0.8])
def test_an_address_limit_is_named_as_memory_and_nothing_is_rebuilt(cube_oracle, share_of_tables):
    """Limits between what the process maps before any table and what it needs with the pattern
    databases that every query maps (corners and both edge tables)."""
    cache = Path(cube_oracle.info()["cache_dir"]).parent
    before = {p.name: p.stat().st_mtime_ns for p in (cache / "cube").iterdir()}
    names = ("cube-corners.", "cube-edges6-from0.", "cube-edges6-from6.")
    tables = sum(p.stat().st_size for p in (cache / "cube").iterdir() if p.name.startswith(names))
    limit_mib = (_address_space_after_import() + int(share_of_tables * tables)) >> 20
    done = _cogsim(["cube", "solve", "R U F"], cache, address_limit=limit_mib << 20, timeout=300)
    assert done.returncode == 2, done.stdout + done.stderr
    line = _one_line(done.stderr, "memory", f"{limit_mib}.0 MiB")
    assert "building" not in done.stderr and "MiB" in line.split("memory", 1)[0] + line
    assert {p.name: p.stat().st_mtime_ns for p in (cache / "cube").iterdir()} == before


@pytest.mark.timeout(300)
def test_a_build_that_runs_out_of_memory_says_what_it_needs(tmp_path):
    done = _cogsim(["cube", "solve", "R U F"], tmp_path, address_limit=300 << 20, timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-3000:]
    lines = [line for line in done.stderr.splitlines() if not line.startswith("[cogsim cube tables]")]  # progress
    assert len(lines) == 1, lines
    built = re.match(r"cogsim: error: building the table (cube-[\w-]+) needs [\d.]+ MiB of memory", lines[0])
    assert built, lines[0]  # which table runs out depends on what the process maps besides
    assert "its address space is limited to 300.0 MiB (ulimit -v)" in lines[0]
    assert not list((tmp_path / "cube").glob(f"{built.group(1)}.*table"))


@pytest.mark.timeout(300)
def test_shallow_states_never_map_the_coset_table(linked_cache, tmp_path):
    """A large table is present (here a placeholder: only its name and existence matter until a
    query needs it): shallow states under a 1.5 GiB address limit are answered without it; the
    first deep state is refused in one line naming what the table needs and the limit."""
    (linked_cache / cube.table_path("large", str(linked_cache)).name).write_bytes(b"")
    states = tmp_path / "states.txt"
    states.write_text("".join(" ".join(cube.scramble(d, d)) + "\n" for d in range(9)))
    done = _cogsim(["cube", "distances", str(states), "--no-progress"], linked_cache.parent, 3 << 29)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(d) for d in range(9)]
    states.write_text(" ".join(cube.scramble(14, 3)) + "\n")
    done = _cogsim(["cube", "distances", str(states), "--no-progress"], linked_cache.parent, 3 << 29)
    assert done.returncode == 2
    _one_line(done.stderr, "large cube table needs 7.3 GiB", "1.5 GiB", "address")


def test_shallow_queries_leave_the_coset_solver_unloaded(linked_cache):
    (linked_cache / cube.table_path("small", str(linked_cache)).name).write_bytes(b"")
    cube.configure(cache_dir=str(linked_cache), table="small", progress=None)
    try:
        assert cube.distance([" ".join(cube.scramble(d, d)) for d in range(8)]).tolist() == list(range(8))
        assert cube.solve("R U F") == ["F'", "U'", "R'"]
        assert cube.move_effects("R U")["U'"] == cube.DECREASE
        assert oracle_module._coset is None and not oracle_module._coset_loaded
        with pytest.raises(ValueError, match="truncated header; rebuild it"):
            cube.distance(" ".join(cube.scramble(14, 2)))
    finally:
        cube.configure(progress=None)


def test_the_deep_phase1_table_is_not_built_where_a_cgroup_leaves_too_little(linked_cache, monkeypatch):
    """In the default mode the sorted phase-1 table (1.6 GiB) is built when a first deep state
    needs it; where the process's cgroup leaves less, that is one line before anything is built
    (the kernel would kill the build midway: a cgroup limit is no failed allocation)."""
    cube.configure(cache_dir=str(linked_cache), table="off", progress=None)
    monkeypatch.setattr(_memory, "cgroup_available", lambda *a: (1 << 30, 2 << 30))
    try:
        with pytest.raises(
            cube.TableMemoryError,
            match=r"building the sorted phase-1 table for deep states needs 1\.6 "
            r"GiB of memory, and this process can have 1\.0 GiB \(its cgroup allows 2\.0 GiB",
        ):
            cube.distance(cube.Cube.random_state(1))
        assert not list(linked_cache.glob("*sorted*"))
    finally:
        cube.configure(progress=None)


def _fake_cgroup(root: Path, version: int, limit: str, usage: int, file_cache: int) -> Path:
    """A /proc/self/cgroup and /sys/fs/cgroup pair as a container would show them."""
    (root / "proc").mkdir(parents=True)
    if version == 2:
        (root / "proc" / "cgroup").write_text("0::/job\n")
        group = root / "sys" / "job"
        group.mkdir(parents=True)
        (group / "memory.max").write_text(f"{limit}\n")
        (group / "memory.current").write_text(f"{usage}\n")
        (group / "memory.stat").write_text(f"anon {usage - file_cache}\nfile {file_cache}\n")
    else:
        (root / "proc" / "cgroup").write_text("5:cpu,cpuacct:/job\n4:memory:/job\n")
        group = root / "sys" / "memory" / "job"
        group.mkdir(parents=True)
        (group / "memory.limit_in_bytes").write_text(f"{limit}\n")
        (group / "memory.usage_in_bytes").write_text(f"{usage}\n")
        (group / "memory.stat").write_text(f"cache {file_cache}\nrss {usage - file_cache}\ntotal_cache {file_cache}\n")
    return root


@pytest.mark.parametrize("version", [1, 2])
def test_cgroup_limits_count_as_memory(tmp_path, version):
    root = _fake_cgroup(tmp_path, version, str(4 << 30), usage=3 << 30, file_cache=1 << 30)
    found = _memory.cgroup_available(root / "proc" / "cgroup", root / "sys")
    assert found == (2 << 30, 4 << 30)  # the limit less what is used, the page cache counting as free
    unlimited = _fake_cgroup(tmp_path / "none", version, "max" if version == 2 else str(2**63 - 4096), 1 << 30, 0)
    assert _memory.cgroup_available(unlimited / "proc" / "cgroup", unlimited / "sys") is None


def test_memory_checks_take_the_tightest_limit(monkeypatch):
    monkeypatch.setattr(_memory, "mem_available", lambda: 20 << 30)
    monkeypatch.setattr(_memory, "cgroup_available", lambda *a: (6 << 30, 8 << 30))
    monkeypatch.setattr(_memory, "address_space_available", lambda: None)
    available, why = _memory.available()
    assert available == 6 << 30 and "cgroup" in why
    monkeypatch.setattr(_memory, "address_space_available", lambda: (1 << 30, 3 << 29))
    available, why = _memory.available()
    assert available == 1 << 30 and "address" in why and "1.5 GiB" in why
    with pytest.raises(cube.TableMemoryError, match=r"loading the medium cube table needs 1\.\d GiB .* 1\.0 GiB"):
        oracle_module._require_memory("medium", 3 << 29, "loading")
