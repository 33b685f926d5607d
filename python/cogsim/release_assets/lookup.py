"""The installed release files of a benchmark: where they are, and each read checked against its manifest."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Optional

from cogsim._untrusted import printable
from cogsim.release_assets import place
from cogsim.release_assets.manifests import AssetsMissing, Manifest, benchmarks, manifest, missing_message

# What this process has checked: the manifests whose every file was found as installed (by folder),
# and per installed file the identity of the file whose bytes had the manifest's SHA-256: device,
# inode, size, and the times of its last change (mtime_ns, and ctime_ns, which no one can set back).
_complete: set[tuple[Manifest, Path]] = set()
_verified: dict[tuple[Path, str], tuple[tuple[int, ...], str]] = {}


def root(benchmark: str) -> Path:
    """The folder of the installed release files of ``benchmark``, every file checked against the
    manifest the first time in a process: its SHA-256, unless this process checked the very same file
    before (same device, inode, size and change times). AssetsMissing (one line naming `cogsim assets
    add`) when any is missing, changed, or not a regular file in folders of cogsim's own."""
    m = manifest(benchmark)
    folder = m.folder
    if (m, folder) not in _complete:
        with _Installation(m) as installation:
            for path, entry in m.files.items():
                installation.check(path, entry)
        _complete.add((m, folder))
    return folder


def read(benchmark: str, path: str, folder: Optional[Path] = None) -> bytes:
    """The bytes of one release file, checked against the manifest (AssetsMissing otherwise): from the
    installed files, or from ``folder`` (a copy of the release the caller names: the folder is taken
    as named, everything in it opened without following a link). The bytes read are hashed unless they
    are the file's this process checked already."""
    m = manifest(benchmark)
    entry = m.files.get(path)
    if entry is None:
        raise ValueError(f"{printable(path)} is not a file of the {benchmark} manifest")
    installed = folder is None or Path(folder) == m.folder
    if installed:
        folder = root(benchmark)
    assert folder is not None
    try:
        with _Installation(m, None if installed else Path(folder)) as files:
            data = files.check(path, entry, read=True)
    except AssetsMissing:
        _complete.discard((m, m.folder))  # the next root() checks every file again
        raise
    assert data is not None
    return data


def forget(folder: Path) -> None:
    """Drops what this process checked of the installation at ``folder`` (it was just replaced)."""
    for key in [key for key in _complete if key[1] == folder]:
        _complete.discard(key)
    for key in [key for key in _verified if key[0] == folder]:
        del _verified[key]


class _Installation:
    """The installed folder of a manifest (or a copy the caller names), opened without following a
    link, and its files checked."""

    def __init__(self, m: Manifest, copy: Optional[Path] = None):
        self.m, self.copy = m, copy
        self.folder = m.folder if copy is None else copy
        self.fds: dict[tuple[str, ...], int] = {}

    def __enter__(self) -> "_Installation":
        try:
            if self.copy is None:
                self.fds[()] = place.open_folder((self.m.benchmark, self.m.commit))
            else:
                self.fds[()] = os.open(self.copy, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except FileNotFoundError:
            raise self._missing("" if self.copy is None else f"{printable(os.fspath(self.copy))} is missing") from None
        except NotADirectoryError:
            raise self._missing(f"{printable(os.fspath(self.folder))} is not a folder") from None
        except place.WrongKind as error:
            raise self._missing(str(error)) from None
        return self

    def __exit__(self, *exc) -> None:
        for fd in self.fds.values():
            os.close(fd)

    def check(self, path: str, entry: dict, read: bool = False) -> Optional[bytes]:
        """Checks the installed file ``path``; its bytes with ``read``."""
        parts = tuple(path.split("/"))
        shown = self.folder / path
        try:
            fd, info = place.open_file_at(self._folder(parts[:-1]), parts[-1], shown)
        except FileNotFoundError:
            raise self._missing(f"{printable(path)} is missing") from None
        except place.WrongKind as error:
            raise self._missing(str(error)) from None
        with os.fdopen(fd, "rb") as handle:
            identity = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
            known = _verified.get((self.folder, path)) == (identity, entry["sha256"])
            if info.st_size != entry["size"]:
                raise self._changed(path)
            if known and not read:
                return None
            data = handle.read(entry["size"] + 1)
        if len(data) != entry["size"] or (not known and hashlib.sha256(data).hexdigest() != entry["sha256"]):
            raise self._changed(path)
        _verified[(self.folder, path)] = (identity, entry["sha256"])
        return data

    def _folder(self, parts: tuple[str, ...]) -> int:
        fd = self.fds.get(parts)
        if fd is None:
            parent = self._folder(parts[:-1])
            try:
                fd = place.open_at(parent, parts[-1], self.folder.joinpath(*parts))
            except place.WrongKind as error:
                raise self._missing(str(error)) from None
            self.fds[parts] = fd
        return fd

    def _missing(self, detail: str) -> AssetsMissing:
        return AssetsMissing(missing_message(self.m.benchmark, detail))

    def _changed(self, path: str) -> AssetsMissing:
        _verified.pop((self.folder, path), None)
        if self.copy is not None:
            return self._missing(f"{printable(path)} in {printable(os.fspath(self.copy))} is not the release's file")
        return self._missing(f"{printable(path)} has changed since it was installed")


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
