"""Release files as an attacker would hand them over (docs/security.md): archives built to exhaust
memory or time before a limit is checked, an assets folder that is a file, a FIFO or a link,
installed files changed after they were installed, a manifest override with hostile fields, and a
damaged file met mid-run, which is the serving side's fault (stored, counted, retried on resume).
Every refusal is one line, and nothing is written outside the assets folder."""

import hashlib
import io
import json
import os
import re
import sqlite3
import struct
import subprocess
import sys
import tarfile
import textwrap
import zipfile
import zlib
from pathlib import Path

import pytest

from cogsim import release_assets
from cogsim.cli import main
from cogsim.release_assets import archive, lookup, tar_headers
from tiny_release import (
    COMMIT,
    FILES,
    assert_refused,
    installed_folder,
    release_members,
    tar_archive,
    use_tiny_release,
    zip_archive,
)

LOOP_ENVS = str(Path(__file__).parent / "loop_envs.py")
A_PNG = "game/assets/a.png"


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    return use_tiny_release(tmp_path, monkeypatch)


# -- archives whose size is in their headers ------------------------------------------------------
def huge_zip_directory(path: Path, members: int) -> Path:
    """A .zip of nothing but a central directory of ``members`` one-letter entries (ZIP64 end records),
    47 bytes each: 2.5 million make the 117 MB directory of the probe."""
    entry = struct.pack("<4s4B4HL2L5H2L", b"PK\x01\x02", 20, 3, 20, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0)
    size = (len(entry) + 1) * members
    end64 = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, members, members, size, 0)
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, size, 1)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    with open(path, "wb") as out:
        block = (entry + b"a") * 100_000
        for _ in range(members // 100_000):
            out.write(block)
        out.write((entry + b"a") * (members % 100_000))
        out.write(end64 + locator + end)
    return path


def tar_gz_declaring(path: Path, kind: bytes, declared: int) -> Path:
    """A .tar.gz whose first header is an extended record (``kind``: PAX x or GNU long name L) of
    ``declared`` bytes, all of them there: zeros, compressed as identical flushed blocks of 1 MiB,
    so 1 GB makes a file of about 1 MB."""
    header = tarfile.TarInfo("././@PaxHeader")
    header.type, header.size = kind, declared
    head = header.tobuf(format=tarfile.USTAR_FORMAT)
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = compressor.compress(head) + compressor.flush(zlib.Z_FULL_FLUSH)
    zeros = bytes(1 << 20)
    block = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    crc = zlib.crc32(head)
    with open(path, "wb") as out:
        out.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + first)
        for _ in range(declared // len(zeros)):
            out.write(block)
            crc = zlib.crc32(zeros, crc)
        rest = bytes(declared % len(zeros))
        out.write(compressor.compress(rest) + compressor.flush())
        crc = zlib.crc32(rest, crc)
        out.write(struct.pack("<2L", crc, (len(head) + declared) & 0xFFFFFFFF))
    return path


def add_in_a_limited_process(archive_path: Path, tmp: Path, address_space: int = 1 << 30):
    """``cogsim assets add rngbench ARCHIVE`` in a process whose address space is limited."""
    code = textwrap.dedent(
        f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, ({address_space}, {address_space}))
        from cogsim.cli import main
        sys.exit(main(["assets", "add", "rngbench", {str(archive_path)!r}]))
        """
    )
    env = {**os.environ, "COGSIM_CACHE": str(tmp / "cache")}
    env[release_assets.MANIFEST_VARIABLE.format("RNGBENCH")] = str(tmp / "manifest.json")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.timeout(120)
def test_a_zip_listing_millions_of_members_is_refused_before_it_is_read(tiny):
    archive_path = huge_zip_directory(tiny / "many.zip", 2_500_000)
    done = add_in_a_limited_process(archive_path, tiny)
    archive_path.unlink()
    (line,) = done.stderr.strip().splitlines()
    assert done.returncode == 2 and "central directory is 112.1 MiB" in line and "refused" in line, done.stderr


@pytest.mark.timeout(120)
def test_a_tar_gz_declaring_a_1_gb_pax_record_is_refused_before_it_is_read(tiny):
    archive_path = tar_gz_declaring(tiny / "pax.tar.gz", tarfile.XHDTYPE, 1 << 30)
    assert archive_path.stat().st_size < 2 << 20
    done = add_in_a_limited_process(archive_path, tiny)
    (line,) = done.stderr.strip().splitlines()
    assert done.returncode == 2 and "extended record of 1.0 GiB" in line, done.stderr


def test_zip_members_are_counted_as_the_directory_streams(tiny, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("zipfile read a directory past the bounds")

    many = release_members() + [(f"release-0123/docs/{i}.txt", b"") for i in range(60)]
    plain = zip_archive(tiny / "many.zip", many)
    commented = tiny / "commented.zip"
    with zipfile.ZipFile(commented, "w") as out:
        for name, data in many:
            out.writestr(name, data)
        out.comment = b"a comment after the end record moves it from the end of the file; " * 60
    real = zipfile.ZipFile
    monkeypatch.setattr(archive, "MAX_MEMBERS", 50)
    monkeypatch.setattr(archive.zipfile, "ZipFile", refuse)
    for source in (plain, commented, huge_zip_directory(tiny / "zip64.zip", 70_000)):
        assert_refused(lambda: release_assets.add("rngbench", source), "more than 50 members", tiny)
    monkeypatch.setattr(archive, "MAX_MEMBERS", 200_000)
    monkeypatch.setattr(archive, "MAX_ZIP_DIRECTORY_BYTES", 1000)
    assert_refused(lambda: release_assets.add("rngbench", plain), "central directory is 4.2 KiB", tiny)
    monkeypatch.setattr(archive, "MAX_ZIP_DIRECTORY_BYTES", 32 << 20)
    monkeypatch.setattr(archive.zipfile, "ZipFile", real)
    assert release_assets.add("rngbench", commented) == installed_folder(tiny)  # within bounds: read as ever


def pax_tar(path: Path, pax: bytes, after=()) -> Path:
    """A .tar.gz whose first header is a PAX record of exactly ``pax``, then the release's files."""
    header = tarfile.TarInfo("././@PaxHeader")
    header.type, header.size = tarfile.XHDTYPE, len(pax)
    stream = io.BytesIO()
    stream.write(header.tobuf(format=tarfile.USTAR_FORMAT) + pax + bytes(-len(pax) % 512))
    with tarfile.open(fileobj=stream, mode="w") as out:
        for name, data in [*after, *release_members()]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))
    path.write_bytes(zlib_gzip(stream.getvalue()))
    return path


def zlib_gzip(data: bytes) -> bytes:
    import gzip

    return gzip.compress(data, 1)


def pax_chain(path: Path, depth: int) -> Path:
    record = b"18 path=release-0\n"
    header = tarfile.TarInfo("././@PaxHeader")
    header.type, header.size = tarfile.XHDTYPE, len(record)
    one = header.tobuf(format=tarfile.USTAR_FORMAT) + record + bytes(-len(record) % 512)
    path.write_bytes(zlib_gzip(one * depth + bytes(1024)))
    return path


@pytest.mark.timeout(60)  # tarfile's own PAX parse took minutes on the digits (CVE-2024-6232)
@pytest.mark.parametrize(
    "case, match",
    [
        ("pax-100k", "extended record of 100.0 KiB"),
        ("longname-100k", "extended record of 100.0 KiB"),
        ("pax-digits", "a number of more than 20 digits"),
        ("pax-record-past-length", "does not fit its declared length"),
        ("pax-not-records", "not a list of"),
        ("pax-gnu-sparse", "GNU sparse"),
        ("gnu-sparse-member", "GNU sparse"),
        ("pax-chain", "chain more extended headers"),
    ],
)
def test_extended_tar_headers_are_bounded_and_checked_before_tarfile_reads_them(tiny, case, match):
    path = tiny / f"{case}.tar.gz"
    if case == "pax-100k":
        tar_gz_declaring(path, tarfile.XHDTYPE, 100 << 10)
    elif case == "longname-100k":
        tar_gz_declaring(path, tarfile.GNUTYPE_LONGNAME, 100 << 10)
    elif case == "pax-digits":
        pax_tar(path, b"9" * 60_000 + b" hdrcharset\n")
    elif case == "pax-record-past-length":
        pax_tar(path, b"2 " * 20_000 + b"path=x\n")
    elif case == "pax-not-records":
        pax_tar(path, b"hello world\n")
    elif case == "pax-gnu-sparse":
        pax_tar(path, b"25 GNU.sparse.size=99999\n")
    elif case == "gnu-sparse-member":
        sparse = tarfile.TarInfo("release-0123/sparse")
        sparse.type = tarfile.GNUTYPE_SPARSE
        stream = io.BytesIO()
        stream.write(sparse.tobuf(format=tarfile.GNU_FORMAT))
        path.write_bytes(zlib_gzip(stream.getvalue() + bytes(1024)))
    else:
        pax_chain(path, 5000)
    message = assert_refused(lambda: release_assets.add("rngbench", path), match, tiny)
    assert "refused" in message


def test_archives_with_pax_and_gnu_headers_of_real_tools_install(tiny):
    long_name = "release-0123/" + "d" * 120 + "/x.txt"
    extra = [(long_name, b"long names take an extended header")]
    members = release_members() + extra
    for fmt in (tarfile.PAX_FORMAT, tarfile.GNU_FORMAT):
        path = tiny / f"r{fmt}.tar.gz"
        with tarfile.open(path, "w:gz", format=fmt, pax_headers={"comment": COMMIT}) as out:
            for name, data in members:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                info.mtime = 1.5  # a fractional time: a PAX mtime record
                out.addfile(info, io.BytesIO(data))
        assert release_assets.add("rngbench", path) == installed_folder(tiny)


def test_pax_records_are_checked_in_one_pass():
    tar_headers.check_pax_records(b"52 comment=0123456789abcdef0123456789abcdef01234567\n18 path=release-0\n")
    for bad in (b"3 a=\n", b"18 path=release-0", b"18 path=release-0\n1", b"x 1=2\n", b"1" * 21 + b" a=b\n"):
        with pytest.raises(tar_headers.HeaderRefused):
            tar_headers.check_pax_records(bad)


# -- a manifest named by its environment variable ---------------------------------------------------
MANIFEST_CASES = {
    "climbing benchmark": (lambda m: m.update(benchmark="../../x"), "benchmark must be 'rngbench'"),
    "no files": (lambda m: m.update(files={}), "files must be an object of 1 to"),
    "files not an object": (lambda m: m.update(files=[1]), "files must be an object"),
    "huge size": (lambda m: m["files"][A_PNG].update(size=10**30), "size must be an integer in"),
    "negative size": (lambda m: m["files"][A_PNG].update(size=-1), "size must be an integer in"),
    "boolean size": (lambda m: m["files"][A_PNG].update(size=True), "size must be an integer in"),
    "short hash": (lambda m: m["files"][A_PNG].update(sha256="ab" * 8), "64 lowercase hex digits"),
    "hash not hex": (lambda m: m["files"][A_PNG].update(sha256="zz" * 32), "64 lowercase hex digits"),
    "extra field": (lambda m: m["files"][A_PNG].update(mode=0o777), "exactly sha256 and size"),
    "climbing path": (lambda m: m["files"].update({"game/../../x.png": m["files"][A_PNG]}), "a path must be relative"),
    "empty part": (lambda m: m["files"].update({"game//x.png": m["files"][A_PNG]}), "a path must be relative"),
    "dot part": (lambda m: m["files"].update({"./x.png": m["files"][A_PNG]}), "a path must be relative"),
    "absolute path": (lambda m: m["files"].update({"/etc/x.png": m["files"][A_PNG]}), "a path must be relative"),
    "control character": (lambda m: m["files"].update({"game/x\n.png": m["files"][A_PNG]}), "a path must be relative"),
    "long name": (lambda m: m["files"].update({"game/" + "x" * 256: m["files"][A_PNG]}), "a path must be relative"),
    "file and folder": (lambda m: m["files"].update({"game/assets": m["files"][A_PNG]}), "also the folder of"),
    "commit climbing": (lambda m: m.update(commit="../x"), "commit must be a commit"),
    "repository": (lambda m: m.update(repository=["x"]), "repository must be owner/name"),
    "archive url": (lambda m: m.update(archive_url="file:///etc/passwd"), r"archive_url must be an http\(s\) URL"),
    "not an object": (lambda m: m.clear(), "must be a JSON object with"),
}


@pytest.mark.parametrize("case", MANIFEST_CASES)
def test_a_manifest_override_is_checked_field_by_field(tiny, capsys, case):
    change, match = MANIFEST_CASES[case]
    path = tiny / "manifest.json"
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))
    checkout = tiny / "checkout"
    for name, data in FILES.items():
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        (checkout / name).write_bytes(data)
    for source in (checkout, tar_archive(tiny / "r.tar.gz", release_members())):
        with pytest.raises(ValueError, match=match) as refused:
            release_assets.add("rngbench", source)
        assert "\n" not in str(refused.value)
    assert main(["assets", "list"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert re.search(match, line)
    assert not (tiny / "x").exists() and not (tiny / "cache" / "x").exists()
    assert not (tiny / "cache" / "assets").exists() or not any((tiny / "cache" / "assets").rglob("*.png"))


# -- the assets folder and what is in it ----------------------------------------------------------
def plant(path: Path, kind: str, elsewhere: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "file":
        path.write_bytes(b"not a folder")
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        elsewhere.mkdir(exist_ok=True)
        path.symlink_to(elsewhere)


@pytest.mark.timeout(30, method="thread")  # opening a FIFO blocks
@pytest.mark.parametrize("where", ["assets", "assets/rngbench"])
@pytest.mark.parametrize("kind, word", [("file", "a regular file"), ("fifo", "FIFO"), ("link", "symbolic link")])
def test_an_assets_folder_that_is_not_a_folder_is_one_line_and_nothing_is_made_through_it(tiny, where, kind, word):
    elsewhere = tiny / "elsewhere"
    plant(tiny / "cache" / where, kind, elsewhere)
    archive_path = tar_archive(tiny / "r.tar.gz", release_members())
    with pytest.raises(ValueError, match=word) as refused:
        release_assets.add("rngbench", archive_path)
    assert "\n" not in str(refused.value) and "remove it" in str(refused.value)
    if kind == "link":
        assert list(elsewhere.iterdir()) == []  # no rngbench/ or staging folder made in the link's target
    with pytest.raises(release_assets.AssetsMissing, match=word) as missing:
        release_assets.root("rngbench")
    assert "\n" not in str(missing.value) and "cogsim assets add rngbench" in str(missing.value)
    assert main(["assets", "list"]) == 0  # listed as not installed


@pytest.mark.timeout(30, method="thread")
@pytest.mark.parametrize("kind", ["file", "fifo", "link", "folder with a fifo"])
def test_a_previous_install_of_any_kind_is_replaced_without_opening_it(tiny, kind):
    elsewhere = tiny / "elsewhere"
    (elsewhere / "keep").parent.mkdir(parents=True)
    (elsewhere / "keep").write_text("the link's target is left alone")
    previous = installed_folder(tiny)
    if kind == "folder with a fifo":
        previous.mkdir(parents=True)
        os.mkfifo(previous / "pipe")
    else:
        plant(previous, kind, elsewhere)
    assert release_assets.add("rngbench", tar_archive(tiny / "r.tar.gz", release_members())) == previous
    assert release_assets.read("rngbench", A_PNG) == FILES[A_PNG]
    assert (elsewhere / "keep").read_text() == "the link's target is left alone"
    assert sorted(p.name for p in previous.parent.iterdir()) == [COMMIT]  # nothing moved aside is left


def test_an_installation_that_links_elsewhere_is_refused(tiny):
    release_assets.add("rngbench", tar_archive(tiny / "r.tar.gz", release_members()))
    copy = tiny / "copy"
    installed_folder(tiny).rename(copy)
    installed_folder(tiny).symlink_to(copy)  # the very same files, but outside the cache
    with pytest.raises(release_assets.AssetsMissing, match="symbolic link, not a folder"):
        release_assets.root("rngbench")
    installed_folder(tiny).unlink()
    copy.rename(installed_folder(tiny))
    lookup.forget(installed_folder(tiny))
    deep = installed_folder(tiny) / "game/assets/deep"
    deep.rename(tiny / "deep")
    deep.symlink_to(tiny / "deep")
    with pytest.raises(release_assets.AssetsMissing, match="deep is a symbolic link"):
        release_assets.root("rngbench")
    deep.unlink()
    (tiny / "deep").rename(deep)
    picture = installed_folder(tiny) / A_PNG
    picture.rename(tiny / "a.png")
    picture.symlink_to(tiny / "a.png")
    with pytest.raises(release_assets.AssetsMissing, match="a.png is a symbolic link"):
        release_assets.read("rngbench", A_PNG)


# -- installed files, verified ----------------------------------------------------------------------
def test_installed_files_changed_after_install_are_refused_by_their_hash(tiny):
    release_assets.add("rngbench", tar_archive(tiny / "r.tar.gz", release_members()))
    picture = installed_folder(tiny) / A_PNG
    picture.write_bytes(FILES[A_PNG].upper())  # other bytes of the same size
    with pytest.raises(release_assets.AssetsMissing, match="a.png has changed since it was installed") as changed:
        release_assets.root("rngbench")
    assert "\n" not in str(changed.value) and "`cogsim assets add rngbench PATH`" in str(changed.value)
    picture.write_bytes(FILES[A_PNG])
    assert release_assets.root("rngbench") == installed_folder(tiny)
    before = os.stat(picture)
    with open(picture, "r+b") as handle:  # changed in place, its modification time set back
        handle.write(b"A")
    os.utime(picture, ns=(before.st_atime_ns, before.st_mtime_ns))
    with pytest.raises(release_assets.AssetsMissing, match="has changed"):
        release_assets.read("rngbench", A_PNG)


def test_each_installed_file_is_hashed_once_per_process(tiny, monkeypatch):
    release_assets.add("rngbench", tar_archive(tiny / "r.tar.gz", release_members()))
    hashed = []
    real = hashlib.sha256

    def counting(data=b""):
        hashed.append(len(data))
        return real(data)

    monkeypatch.setattr(lookup.hashlib, "sha256", counting)
    for _ in range(3):
        release_assets.root("rngbench")
        assert release_assets.read("rngbench", A_PNG) == FILES[A_PNG]
    assert sorted(hashed) == sorted(len(data) for data in FILES.values())


@pytest.fixture
def kidgym_copy(tmp_path, monkeypatch, kidgym_release_images):
    """KidGym's release images (or their stand-in) installed into a cache of this test's own."""
    source = Path(os.environ["COGSIM_RELEASES"]) / "KidGym" if "COGSIM_RELEASES" in os.environ else None
    if source is None or not source.is_dir():
        source = Path(os.environ["COGSIM_ASSETS_MANIFEST_KIDGYM"]).parent
    monkeypatch.setenv("COGSIM_CACHE", str(tmp_path / "cache"))
    return release_assets.add("kidgym", source)


@pytest.mark.parametrize("change", ["same-size bytes", "a link to a copy"])
def test_a_kidgym_run_on_changed_release_files_stops_before_its_first_episode(kidgym_copy, tmp_path, capsys, change):
    if change == "same-size bytes":
        picture = next(p for p in sorted(kidgym_copy.rglob("*.png")))
        data = bytearray(picture.read_bytes())
        data[-20] ^= 0xFF
        picture.write_bytes(bytes(data))
    else:
        kidgym_copy.rename(tmp_path / "copy")
        kidgym_copy.symlink_to(tmp_path / "copy")
    out = tmp_path / "run"
    args = ["run", "kidgym/classification", "--episodes", "1", "--out", str(out), "--no-progress"]
    assert main(args) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "cogsim assets add kidgym PATH" in line
    assert ("has changed since it was installed" if change == "same-size bytes" else "symbolic link") in line
    if (out / "store.sqlite").exists():
        with sqlite3.connect(out / "store.sqlite") as db:
            assert db.execute("SELECT COUNT(*) FROM episodes").fetchone() == (0,)


# -- a damaged file met mid-run: the serving side's fault ------------------------------------------
def test_release_files_damaged_mid_run_are_a_fault_counted_once_and_retried_on_resume(tiny, capsys):
    release_assets.add("rngbench", tar_archive(tiny / "r.tar.gz", release_members()))
    (installed_folder(tiny) / A_PNG).write_bytes(FILES[A_PNG].upper())
    out = tiny / "run"
    args = [
        "run",
        "releasetest/count",
        "--import",
        LOOP_ENVS,
        "--episodes",
        "3",
        "--concurrency",
        "1",
        "--workers",
        "1",
    ]
    args += ["--env-option", f"release_file=rngbench:{A_PNG}", "--out", str(out), "--no-progress", "--report"]
    assert main(args) == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err
    fault = next(line for line in err.splitlines() if "[release_files]" in line)
    assert fault.startswith("1 episode(s) stopped by damaged or missing release files [release_files]: turn 1: ")
    assert "a.png has changed since it was installed" in fault and "cogsim assets add rngbench PATH" in fault
    assert "reinstall the release files, then `cogsim run --resume" in err
    with sqlite3.connect(out / "store.sqlite") as db:
        rows = db.execute("SELECT status, fault, error FROM episodes").fetchall()
        assert [(status, kind) for status, kind, _ in rows] == [("running", "release_files")]  # the run stopped
        assert "\n" not in rows[0][2]
    report = (out / "report.md").read_text()
    assert "| release\\_files | 1 |" in report and "Traceback" not in report
    release_assets.add("rngbench", tar_archive(tiny / "r.tar.gz", release_members()))
    assert main(["run", "--resume", str(out), "--import", LOOP_ENVS, "--no-progress"]) == 0
    with sqlite3.connect(out / "store.sqlite") as db:
        assert db.execute("SELECT status, fault FROM episodes").fetchall() == [("done", None)] * 3


def png_declaring(width: int, height: int) -> bytes:
    """A PNG whose header declares ``width`` x ``height`` pixels and holds none of them."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">L", len(data)) + kind + data + struct.pack(">L", zlib.crc32(kind + data))

    header = struct.pack(">2L5B", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")


def test_a_damaged_picture_a_manifest_vouches_for_is_a_release_files_fault(kidgym_copy, tmp_path, monkeypatch, capsys):
    damaged = tmp_path / "damaged"
    bomb = png_declaring(60000, 60000)
    manifest = json.loads(json.dumps(release_assets.manifest("kidgym").__dict__))
    manifest.update(commit="damaged-1")
    for path in manifest["files"]:
        (damaged / path).parent.mkdir(parents=True, exist_ok=True)
        data = bomb if path == "assets/imgs/agent/agent.png" else (kidgym_copy / path).read_bytes()
        (damaged / path).write_bytes(data)
    manifest["files"]["assets/imgs/agent/agent.png"] = {"sha256": hashlib.sha256(bomb).hexdigest(), "size": len(bomb)}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.setenv(release_assets.MANIFEST_VARIABLE.format("KIDGYM"), str(tmp_path / "manifest.json"))
    release_assets.add("kidgym", damaged)
    out = tmp_path / "run"
    args = ["run", "kidgym/classification", "--episodes", "2", "--workers", "1", "--out", str(out), "--no-progress"]
    assert main(args) == 3
    err = capsys.readouterr().err
    (fault,) = [line for line in err.splitlines() if "[release_files]" in line]
    assert "assets/imgs/agent/agent.png cannot be read" in fault and "Traceback" not in err
    with sqlite3.connect(out / "store.sqlite") as db:
        assert db.execute("SELECT DISTINCT status, fault FROM episodes").fetchall() == [("running", "release_files")]
