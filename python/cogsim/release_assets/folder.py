"""The files a manifest needs, read from a folder copy of the release without following a link."""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

from cogsim._untrusted import file_kind, printable, size_text
from cogsim.release_assets.manifests import Manifest


def from_folder(m: Manifest, source: Path) -> dict[str, bytes]:
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
