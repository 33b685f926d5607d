"""The files a manifest needs, read from a .zip or .tar archive of the release within bounds."""

from __future__ import annotations

import bz2
import gzip
import lzma
import stat
import tarfile
import zipfile
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import IO, Callable, Iterator, Optional

from cogsim._untrusted import file_kind, printable, size_text
from cogsim.release_assets.manifests import Manifest, unsafe_name
from cogsim.release_assets.tar_headers import BoundedTarInfo, HeaderRefused
from cogsim.release_assets.zip_directory import check_directory

MAX_UNPACKED_BYTES = 2 << 30  # what a .tar.gz may expand to while it is read
MAX_MEMBERS = 200_000
MAX_ZIP_DIRECTORY_BYTES = 32 << 20  # a .zip's list of members, which zipfile reads whole
# What reading a damaged archive may raise (an int() of a header field too: ValueError)
_UNREADABLE = (tarfile.TarError, OSError, EOFError, zlib.error, lzma.LZMAError, ValueError)


def from_archive(m: Manifest, handle: IO[bytes], shown: str) -> dict[str, bytes]:
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
    check_directory(handle, MAX_MEMBERS, MAX_ZIP_DIRECTORY_BYTES, shown)  # before zipfile reads it whole
    try:
        archive = zipfile.ZipFile(handle)
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise ValueError(f"{shown} is not a readable .zip ({printable(error, 80)})") from None
    with archive:
        if len(archive.infolist()) > MAX_MEMBERS:  # where another Python's zipfile found another directory
            raise ValueError(f"{shown} has more than {MAX_MEMBERS:,} members; refused")
        for info in archive.infolist():
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
    with _tar_errors(shown, f"{shown} is not a readable .zip, .tar.gz or .tar"):  # reads the first member's header
        archive = tarfile.open(fileobj=bounded, mode="r|", tarinfo=BoundedTarInfo)  # noqa: SIM115 - closed below
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
                with _tar_errors(shown, f"{shown}: cannot read {printable(info.name)}"):
                    member = archive.extractfile(info)
                    return member.read(limit) if member is not None else b""

            yield _Member(info.name, kind, info.size, read)
    finally:
        archive.close()


def _tar_infos(archive: tarfile.TarFile, shown: str) -> Iterator[tarfile.TarInfo]:
    while True:
        del archive.members[:]  # a stream's members are read once: keep none (tarfile keeps them all)
        with _tar_errors(shown, f"{shown} is not a readable archive"):
            info = archive.next()
        if info is None:
            return
        yield info


@contextmanager
def _tar_errors(shown: str, unreadable: str) -> Iterator[None]:
    """What reading the tar stream of ``shown`` raises, as one line: cogsim's refusals as they are, a
    damaged stream as ``unreadable`` with the reason."""
    try:
        yield
    except _Refusal:
        raise
    except HeaderRefused as error:
        raise ValueError(f"{shown}: {error}; refused") from None
    except RecursionError:
        raise ValueError(f"{shown}: its headers chain more extended headers than cogsim reads; refused") from None
    except _UNREADABLE as error:
        raise ValueError(f"{unreadable} ({printable(error, 80)})") from None


class _Refusal(ValueError):
    """A bound of cogsim's was met (raised through tarfile's reads, passed on as it is)."""


class _Bounded:
    """A read-only stream that refuses to give more than ``limit`` bytes (a .tar.gz bomb stops here)."""

    def __init__(self, handle: IO[bytes], limit: int, shown: str):
        self.handle, self.left, self.shown = handle, limit, shown

    def read(self, size: int = -1) -> bytes:
        data = self.handle.read(size if size is not None and size >= 0 else self.left + 1)
        self.left -= len(data)
        if self.left < 0:
            raise _Refusal(f"{self.shown} unpacks to more than {size_text(MAX_UNPACKED_BYTES)}; refused")
        return data


def _check_name(name: str, shown: str) -> None:
    if unsafe_name(name):
        raise ValueError(f"{shown}: member {printable(name)} names a path outside the archive; refused")


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
