"""The image files of a benchmark's release, installed from the user's copy (``cogsim assets``).

Some benchmarks draw their pictures from image files of the authors' release (RNG-Bench's card
faces, KidGym's sprites). cogsim never ships those files: the user installs them once from a copy of
the release (a checkout, or its .zip or .tar.gz archive) or downloads the pinned commit's archive,
and cogsim keeps exactly the files its pictures need under
``$COGSIM_CACHE/assets/<benchmark>/<commit>/<path in the release>``.

Each benchmark ships a manifest in its folder (``benchmarks/<name>/release_assets.json``): the release's repository,
its commit, the archive's address and, per file, its SHA-256 and size. Every file is checked against
it before it is installed. The user's copy and any archive are untrusted input (docs/security.md):
member names that climb out (``..``, absolute names), links, devices and FIFOs where a needed file
belongs, members larger than the manifest says and files whose hash differs are refused with one
line; other members are ignored; nothing is written outside the assets folder, and every write is
atomic and never follows a link (``_files``). The installed set replaces the previous one at once.

    root("rngbench") -> Path        # the installed files; AssetsMissing (one line) when they are not
    read("rngbench", path) -> bytes  # one installed file, its hash checked
    add("rngbench", PATH); fetch("rngbench"); installed()
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import hashlib
import lzma
import os
import re
import secrets
import shutil
import stat
import tarfile
import time
import zipfile
import zlib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import IO, Callable, Iterator, Optional

from cogsim import families
from cogsim._cache import cache_dir
from cogsim._files import PathLike, write_bytes_atomic
from cogsim._untrusted import file_kind, load_json, open_regular_file, printable, read_file, size_text

# A manifest of the user's own in place of the shipped one (e.g. for a stand-in pack of the same
# files): COGSIM_ASSETS_MANIFEST_<BENCHMARK>=FILE. Its commit names the folder the files go to.
MANIFEST_VARIABLE = "COGSIM_ASSETS_MANIFEST_{}"
MAX_ARCHIVE_BYTES = 1 << 30  # an archive given as PATH, or downloaded
MAX_DOWNLOAD_BYTES = 256 << 20
MAX_UNPACKED_BYTES = 2 << 30  # what a .tar.gz may expand to while it is read
MAX_MEMBERS = 200_000
DOWNLOAD_SECONDS = 300.0
_MANIFEST_BYTES = 4 << 20


class AssetsMissing(ValueError):
    """The release files a picture needs are not installed (the message says how to install them)."""


@dataclass(frozen=True, eq=False)  # one instance per manifest file (cached): hashed by identity
class Manifest:
    benchmark: str
    repository: str
    commit: str
    archive_url: str
    files: dict  # path in the release -> {"sha256": hex, "size": bytes}

    @property
    def folder(self) -> Path:
        """Where the files are installed (not created here)."""
        return _assets_root() / self.benchmark / self.commit


def manifest_file(benchmark: str) -> Optional[Path]:
    """The manifest of ``benchmark``: the file its environment variable names, else the one its family
    record names in the package; None where there is none."""
    override = os.environ.get(MANIFEST_VARIABLE.format(benchmark.upper()), "")
    if override:
        return Path(override)
    shipped = families.assets_manifests().get(benchmark)
    if shipped is None:
        return None
    package, name = shipped.split(":", 1)
    path = Path(str(resources.files(package).joinpath(name)))
    return path if path.is_file() else None


def benchmarks() -> list[str]:
    """Benchmarks with a manifest (shipped, or named by its environment variable)."""
    return sorted(name for name in families.assets_manifests() if (manifest_file(name) or Path()).is_file())


def manifest(benchmark: str) -> Manifest:
    path = manifest_file(benchmark) if isinstance(benchmark, str) else None
    if path is None:
        known = benchmarks()
        raise ValueError(f"benchmark must be one of {', '.join(known) or '(none shipped)'}, got {printable(benchmark)}")
    try:
        mtime_ns = path.stat().st_mtime_ns
    except OSError as error:
        raise ValueError(
            f"cannot read the {benchmark} manifest {printable(os.fspath(path))}: {error.strerror}"
        ) from None
    return _parsed(str(path), mtime_ns)


def used(benchmark: str) -> dict:
    """What an episode drawn from ``benchmark``'s installed files records of them: {"benchmark",
    "repository", "commit"} of the manifest they were checked against."""
    m = manifest(benchmark)
    return {"benchmark": m.benchmark, "repository": m.repository, "commit": m.commit}


@lru_cache(maxsize=8)
def _parsed(path: str, mtime_ns: int) -> Manifest:
    what = "release-files manifest"
    data = load_json(read_file(path, what, _MANIFEST_BYTES), what, _MANIFEST_BYTES)
    keys = ("benchmark", "repository", "commit", "archive_url", "files")
    if not isinstance(data, dict) or any(key not in data for key in keys) or not isinstance(data["files"], dict):
        raise ValueError(f"the {what} {printable(path)} must be a JSON object with {', '.join(keys)}")
    files = data["files"]
    if not isinstance(data["commit"], str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", data["commit"]):
        raise ValueError(f"the {what} {printable(path)} names no usable commit (letters, digits, . _ -)")
    for name, entry in files.items():
        valid = isinstance(entry, dict) and isinstance(entry.get("size"), int) and isinstance(entry.get("sha256"), str)
        if _unsafe(name) or not valid or len(entry["sha256"]) != 64:
            raise ValueError(f"the {what} {printable(path)} is broken at {printable(name)}")
    return Manifest(data["benchmark"], data["repository"], data["commit"], data["archive_url"], files)


def missing_message(benchmark: str, detail: str = "") -> str:
    m = manifest(benchmark)
    why = f" ({detail})" if detail else ""
    return (
        f"the {benchmark} pictures need image files of its release ({m.repository} at {m.commit[:7]}) that are not "
        f"installed{why}: run `cogsim assets add {benchmark} PATH` (PATH: a checkout or .zip/.tar.gz of that commit) "
        f"or `cogsim assets fetch {benchmark}`, or pass `--env-option look=cogsim` for cogsim's own pictures"
    )


_complete: set[Path] = set()


def root(benchmark: str) -> Path:
    """The folder of the installed release files of ``benchmark``; AssetsMissing if any is missing."""
    m = manifest(benchmark)
    folder = m.folder
    if folder in _complete:
        return folder
    for path, entry in m.files.items():
        try:
            info = os.lstat(folder / path)
        except OSError:
            raise AssetsMissing(missing_message(benchmark)) from None
        if not stat.S_ISREG(info.st_mode) or info.st_size != entry["size"]:
            raise AssetsMissing(missing_message(benchmark, f"{printable(path)} is not the release's file"))
    _complete.add(folder)
    return folder


def read(benchmark: str, path: str) -> bytes:
    """The bytes of one installed file, checked against the manifest (AssetsMissing otherwise)."""
    m = manifest(benchmark)
    entry = m.files.get(path)
    if entry is None:
        raise ValueError(f"{printable(path)} is not a file of the {benchmark} manifest")
    folder = root(benchmark)
    try:
        fd = os.open(folder / path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        _complete.discard(folder)
        raise AssetsMissing(missing_message(benchmark)) from None
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(entry["size"] + 1)
    if hashlib.sha256(data).hexdigest() != entry["sha256"]:
        _complete.discard(folder)
        raise AssetsMissing(missing_message(benchmark, f"{printable(path)} has changed since it was installed"))
    return data


def installed() -> list[dict]:
    """Per shipped manifest: the benchmark, release, folder and whether all its files are there."""
    rows = []
    for name in benchmarks():
        m = manifest(name)
        try:
            root(name)
            complete = True
        except AssetsMissing:
            complete = False
        rows.append(
            {
                "benchmark": name,
                "repository": m.repository,
                "commit": m.commit,
                "files": len(m.files),
                "installed": complete,
                "path": str(m.folder),
            }
        )
    return rows


# -- installing ---------------------------------------------------------------------------------
def add(benchmark: str, path: PathLike) -> Path:
    """Installs the manifest's files from a copy of the release: a folder (a checkout or an unpacked
    archive, the release's files directly in it or in its one subfolder) or a .zip, .tar.gz or .tar
    archive. Returns the folder they are installed in."""
    m = manifest(benchmark)
    source = Path(path)
    try:
        info = os.stat(source)
    except OSError as error:
        raise ValueError(f"cannot read {printable(os.fspath(source))}: {error.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        found = _from_folder(m, source)
    else:
        with open_regular_file(source, "release archive", MAX_ARCHIVE_BYTES) as handle:
            found = _from_archive(m, handle, printable(os.fspath(source)))
    return _install(m, found)


def fetch(
    benchmark: str,
    transport=None,
    max_bytes: int = MAX_DOWNLOAD_BYTES,
    seconds: float = DOWNLOAD_SECONDS,
) -> Path:
    """Downloads the pinned commit's archive (bounded in size and time) and installs from it.
    ``transport``: an httpx transport (tests)."""
    import httpx

    m = manifest(benchmark)
    folder = _benchmark_folder(benchmark)
    download = folder / f".download-{os.getpid()}-{secrets.token_hex(4)}.tar.gz"
    deadline = time.monotonic() + seconds
    try:
        fd = os.open(download, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "wb") as out:
            timeout = httpx.Timeout(min(30.0, seconds))
            with httpx.Client(transport=transport, follow_redirects=True, timeout=timeout) as client:
                with client.stream("GET", m.archive_url) as response:
                    if response.status_code != 200:
                        raise ValueError(f"HTTP {response.status_code}")
                    received = 0
                    for chunk in response.iter_bytes(1 << 16):
                        received += len(chunk)
                        if received > max_bytes:
                            raise ValueError(f"the archive is larger than the {size_text(max_bytes)} allowed")
                        if time.monotonic() > deadline:
                            raise ValueError(f"the download took longer than {seconds:.0f} s")
                        out.write(chunk)
        with open_regular_file(download, "downloaded archive", max_bytes) as handle:
            found = _from_archive(m, handle, m.archive_url)
        return _install(m, found)
    except (httpx.HTTPError, ValueError) as error:
        reason = error.args[0] if isinstance(error, ValueError) and error.args else printable(error, 160)
        raise ValueError(
            f"cannot fetch the {benchmark} release from {m.archive_url}: {reason}; where this machine has no "
            f"internet, download that archive elsewhere and run `cogsim assets add {benchmark} ARCHIVE`"
        ) from None
    finally:
        try:
            os.unlink(download)
        except OSError:
            pass


def _from_folder(m: Manifest, source: Path) -> dict[str, bytes]:
    """The manifest's files read from a folder: every component a real folder, the file a regular
    file (opened relative to its folder, never through a link)."""
    base = source
    first = PurePosixPath(next(iter(m.files))).parts[0]
    if not os.path.lexists(source / first):
        subfolders = [p for p in source.iterdir() if p.is_dir() and not p.is_symlink()]
        if len(subfolders) == 1:
            base = subfolders[0]
    found = {}
    for path, entry in m.files.items():
        found[path] = _read_in_folder(base, path, entry["size"], printable(os.fspath(source)))
    return found


def _read_in_folder(base: Path, path: str, size: int, shown: str) -> bytes:
    parts = PurePosixPath(path).parts
    where = f"{shown}: {printable(path)}"
    try:
        fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as error:
        raise ValueError(f"cannot read {shown}: {error.strerror}") from None
    try:
        for name in parts[:-1]:
            info = _lstat_at(name, fd, where)
            if not stat.S_ISDIR(info.st_mode):
                raise ValueError(f"{where}: {printable(name)} is {file_kind(info.st_mode)}, not a folder; refused")
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = inner
        info = _lstat_at(parts[-1], fd, where)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{where} is {file_kind(info.st_mode)}, not a regular file; refused")
        if info.st_size > size:
            raise ValueError(f"{where} is {size_text(info.st_size)}, larger than the release's file; refused")
        handle_fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=fd)
        with os.fdopen(handle_fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise ValueError(f"{where} is not a regular file; refused")
            return handle.read(size + 1)
    except OSError as error:
        raise ValueError(f"{where}: {error.strerror}; refused") from None
    finally:
        os.close(fd)


def _lstat_at(name: str, fd: int, where: str) -> os.stat_result:
    try:
        return os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        raise ValueError(f"{where} is missing; is this a copy of the release?") from None


def _from_archive(m: Manifest, handle: IO[bytes], shown: str) -> dict[str, bytes]:
    magic = handle.read(4)
    handle.seek(0)
    if magic.startswith(b"PK"):
        members = _zip_members(handle, shown)
    else:
        members = _tar_members(handle, shown)
    found: dict[str, bytes] = {}
    for member in members:
        path = _manifest_path(member.name, m.files, shown)
        if path is None:
            if member.kind not in ("file", "a folder") and _parent_of_needed(member.name, m.files):
                raise ValueError(f"{shown}: {printable(member.name)} is {member.kind} above needed files; refused")
            continue
        if member.kind != "file":
            raise ValueError(f"{shown}: {printable(member.name)} is {member.kind}, not a regular file; refused")
        if path in found:
            raise ValueError(f"{shown}: {printable(path)} appears twice in the archive; refused")
        size = m.files[path]["size"]
        if member.size > size:
            raise ValueError(
                f"{shown}: {printable(member.name)} is {size_text(member.size)}, larger than the release's file; refused"
            )
        found[path] = member.read(size + 1)
    missing = [path for path in m.files if path not in found]
    if missing:
        raise ValueError(
            f"{shown} lacks {len(missing)} of the {len(m.files)} files the pictures need (first: "
            f"{printable(missing[0])}); is it an archive of {m.repository} at {m.commit[:7]}?"
        )
    return found


@dataclass
class _Member:
    name: str
    kind: str  # "file", "a folder", "a symbolic link", "a hard link", "a device", "a FIFO", "something else"
    size: int
    read: Callable[[int], bytes]


def _zip_members(handle: IO[bytes], shown: str) -> Iterator[_Member]:
    try:
        archive = zipfile.ZipFile(handle)
    except (zipfile.BadZipFile, OSError) as error:
        raise ValueError(f"{shown} is not a readable .zip ({printable(error, 80)})") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_MEMBERS:
            raise ValueError(f"{shown} has more than {MAX_MEMBERS:,} members; refused")
        for info in infos:
            _check_name(info.filename, shown)
            mode = info.external_attr >> 16
            kind = "file"
            if info.is_dir():
                kind = "a folder"
            elif stat.S_IFMT(mode) not in (0, stat.S_IFREG):  # zip tools leave the type out for plain files
                kind = file_kind(mode)

            def read(limit: int, info=info) -> bytes:
                try:
                    with archive.open(info) as member:
                        return member.read(limit)
                except (zipfile.BadZipFile, OSError, EOFError, RuntimeError) as error:
                    raise ValueError(
                        f"{shown}: cannot read {printable(info.filename)} ({printable(error, 80)})"
                    ) from None

            yield _Member(info.filename, kind, info.file_size, read)


def _tar_members(handle: IO[bytes], shown: str) -> Iterator[_Member]:
    magic = handle.read(6)
    handle.seek(0)
    unpacked: IO[bytes] = handle
    if magic.startswith(b"\x1f\x8b"):
        unpacked = gzip.GzipFile(fileobj=handle, mode="rb")
    elif magic.startswith(b"BZh"):
        unpacked = bz2.BZ2File(handle)
    elif magic.startswith(b"\xfd7zXZ\x00"):
        unpacked = lzma.LZMAFile(handle)
    bounded = _Bounded(unpacked, MAX_UNPACKED_BYTES, shown)  # counts what is unpacked: a bomb stops here
    try:
        archive = tarfile.open(fileobj=bounded, mode="r|")  # noqa: SIM115 - closed below
    except (tarfile.TarError, OSError, EOFError) as error:
        raise ValueError(f"{shown} is not a readable .zip, .tar.gz or .tar ({printable(error, 80)})") from None
    try:
        for count, info in enumerate(_tar_infos(archive, shown)):
            if count >= MAX_MEMBERS:
                raise ValueError(f"{shown} has more than {MAX_MEMBERS:,} members; refused")
            _check_name(info.name, shown)
            if info.isreg():
                kind = "file"
            elif info.isdir():
                kind = "a folder"
            elif info.issym():
                kind = "a symbolic link"
            elif info.islnk():
                kind = "a hard link"
            elif info.ischr() or info.isblk():
                kind = "a device"
            elif info.isfifo():
                kind = "a FIFO"
            else:
                kind = "something else"

            def read(limit: int, info=info) -> bytes:
                try:
                    member = archive.extractfile(info)
                    return member.read(limit) if member is not None else b""
                except (tarfile.TarError, OSError, EOFError, zlib.error, lzma.LZMAError) as error:
                    raise ValueError(f"{shown}: cannot read {printable(info.name)} ({printable(error, 80)})") from None

            yield _Member(info.name, kind, info.size, read)
    finally:
        archive.close()


def _tar_infos(archive: tarfile.TarFile, shown: str) -> Iterator[tarfile.TarInfo]:
    while True:
        try:
            info = archive.next()
        except (tarfile.TarError, OSError, EOFError, zlib.error, lzma.LZMAError) as error:
            raise ValueError(f"{shown} is not a readable archive ({printable(error, 80)})") from None
        if info is None:
            return
        yield info


class _Bounded:
    """A read-only stream that refuses to give more than ``limit`` bytes (a .tar.gz bomb stops here)."""

    def __init__(self, handle: IO[bytes], limit: int, shown: str):
        self.handle, self.left, self.shown = handle, limit, shown

    def read(self, size: int = -1) -> bytes:
        data = self.handle.read(size if size is not None and size >= 0 else self.left + 1)
        self.left -= len(data)
        if self.left < 0:
            raise ValueError(f"{self.shown} unpacks to more than {size_text(MAX_UNPACKED_BYTES)}; refused")
        return data


def _check_name(name: str, shown: str) -> None:
    if _unsafe(name):
        raise ValueError(f"{shown}: member {printable(name)} names a path outside the archive; refused")


def _unsafe(name: str) -> bool:
    if not name or name.startswith(("/", "\\")) or "\\" in name or "\x00" in name or (len(name) > 1 and name[1] == ":"):
        return True
    return ".." in PurePosixPath(name).parts


def _manifest_path(name: str, files: dict, shown: str) -> Optional[str]:
    """The manifest path a member stands for: its name, or its name below one top folder
    (GitHub's archives put everything in ``<repo>-<commit>/``)."""
    name = str(PurePosixPath(name))
    if name in files:
        return name
    parts = name.split("/", 1)
    if len(parts) == 2 and parts[1] in files:
        return parts[1]
    return None


def _parent_of_needed(name: str, files: dict) -> bool:
    name = str(PurePosixPath(name))
    below = name.split("/", 1)[1] if "/" in name else ""
    return any(path.startswith(name + "/") or (below and path.startswith(below + "/")) for path in files)


def _install(m: Manifest, found: dict[str, bytes]) -> Path:
    """Checks every file against the manifest, writes them to a fresh staging folder and puts it in
    place of the previous installation at once."""
    for path, data in found.items():
        entry = m.files[path]
        if len(data) != entry["size"] or hashlib.sha256(data).hexdigest() != entry["sha256"]:
            raise ValueError(
                f"{printable(path)} is not the file of {m.repository} at {m.commit[:7]} (its SHA-256 or size "
                "differs from cogsim's manifest); refused"
            )
    folder = _benchmark_folder(m.benchmark)
    staging = folder / f".staging-{os.getpid()}-{secrets.token_hex(4)}"
    os.mkdir(staging, 0o755)
    try:
        for path, data in found.items():
            target = _make_parents(staging, PurePosixPath(path))
            write_bytes_atomic(target, data)
        final = folder / m.commit
        old = folder / f".old-{os.getpid()}-{secrets.token_hex(4)}"
        if os.path.lexists(final):
            os.rename(final, old)
        os.rename(staging, final)
        if os.path.lexists(old):
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _complete.discard(m.folder)
    return m.folder


def _make_parents(base: Path, path: PurePosixPath) -> Path:
    """``base/path`` with its folders made one by one below ``base``, none of them a link."""
    current = base
    for name in path.parts[:-1]:
        current = current / name
        try:
            os.mkdir(current, 0o755)
        except FileExistsError:
            pass
        if not stat.S_ISDIR(os.lstat(current).st_mode):
            raise ValueError(f"{printable(os.fspath(current))} is not a folder; refused")
    return current / path.parts[-1]


def _assets_root() -> Path:
    root = os.environ.get("COGSIM_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "cogsim")
    return Path(root) / "assets"


def _benchmark_folder(benchmark: str) -> Path:
    folder = cache_dir("assets", benchmark)
    for path in (folder.parent, folder):
        if os.path.islink(path):
            raise ValueError(f"{printable(os.fspath(path))} is a symbolic link; cogsim does not write through links")
    return folder


# -- the command line ---------------------------------------------------------------------------
def add_cli(subparsers) -> None:
    parser = subparsers.add_parser(
        "assets", help="install the image files of a benchmark's release that its pictures need"
    )
    commands = parser.add_subparsers(dest="assets_command", metavar="COMMAND", required=True)
    add_parser = commands.add_parser("add", help="install them from a checkout or a .zip/.tar.gz of the release")
    add_parser.add_argument("benchmark", help="rngbench (Matching Pairs) or kidgym, where shipped")
    add_parser.add_argument("path", help="a checkout, an unpacked archive, or a .zip/.tar.gz/.tar archive")
    add_parser.set_defaults(handler=_cli_add)
    fetch_parser = commands.add_parser("fetch", help="download the release's pinned commit from GitHub and install")
    fetch_parser.add_argument("benchmark")
    fetch_parser.set_defaults(handler=_cli_fetch)
    list_parser = commands.add_parser("list", help="what is installed and where")
    list_parser.set_defaults(handler=_cli_list)


def _cli_add(args: argparse.Namespace) -> int:
    folder = add(args.benchmark, args.path)
    print(f"installed {len(manifest(args.benchmark).files)} {args.benchmark} release files in {folder}")
    return 0


def _cli_fetch(args: argparse.Namespace) -> int:
    folder = fetch(args.benchmark)
    print(f"installed {len(manifest(args.benchmark).files)} {args.benchmark} release files in {folder}")
    return 0


def _cli_list(args: argparse.Namespace) -> int:
    rows = installed()
    if not rows:
        print("this cogsim ships no release manifests")
    for row in rows:
        state = "installed" if row["installed"] else "not installed"
        print(
            f"{row['benchmark']}: {row['repository']} at {row['commit'][:12]}, {row['files']} files, {state}: "
            f"{row['path']}"
        )
    return 0


__all__ = ["AssetsMissing", "Manifest", "add", "benchmarks", "fetch", "installed", "manifest", "read", "root"]
