"""The installed release files of a benchmark: where they are, and each read checked against its manifest."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from cogsim._untrusted import printable
from cogsim.release_assets.manifests import AssetsMissing, benchmarks, manifest, missing_message

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
