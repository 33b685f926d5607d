"""The manifest of a benchmark's release files: the one its family ships, or the one a user names instead."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Optional

from cogsim import families
from cogsim._untrusted import load_json, printable, read_file

# A manifest of the user's own in place of the shipped one (e.g. for a stand-in pack of the same
# files): COGSIM_ASSETS_MANIFEST_<BENCHMARK>=FILE. Its commit names the folder the files go to.
MANIFEST_VARIABLE = "COGSIM_ASSETS_MANIFEST_{}"
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
        return assets_root() / self.benchmark / self.commit


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
        if unsafe_name(name) or not valid or len(entry["sha256"]) != 64:
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


def unsafe_name(name: str) -> bool:
    if not name or name.startswith(("/", "\\")) or "\\" in name or "\x00" in name or (len(name) > 1 and name[1] == ":"):
        return True
    return ".." in PurePosixPath(name).parts


def assets_root() -> Path:
    root = os.environ.get("COGSIM_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "cogsim")
    return Path(root) / "assets"
