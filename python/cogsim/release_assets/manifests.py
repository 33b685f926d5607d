"""The manifest of a benchmark's release files: the one its family ships, or the one a user names instead."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any, Optional

from cogsim import families
from cogsim._untrusted import load_json, printable, read_file, shown, size_text
from cogsim.release_assets.place import assets_root

# A manifest of the user's own in place of the shipped one (e.g. for a stand-in pack of the same
# files): COGSIM_ASSETS_MANIFEST_<BENCHMARK>=FILE. Its commit names the folder the files go to.
MANIFEST_VARIABLE = "COGSIM_ASSETS_MANIFEST_{}"
_MANIFEST_BYTES = 4 << 20
MAX_FILES = 100_000
MAX_FILE_BYTES = 256 << 20
MAX_TOTAL_BYTES = 1 << 30  # an installation is read whole before it is written
# What each text field may be: a plain name, and texts that go into messages and download requests.
_PLAIN_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
_REPOSITORY = (re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}/[A-Za-z0-9][A-Za-z0-9._-]{0,99}"), "owner/name")
_COMMIT = (re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}"), "a commit: letters, digits, '.', '_' or '-' (at most 64)")
_ARCHIVE_URL = (re.compile(r"https?://[!-~]{1,2000}"), "an http(s) URL")
_SHA256 = re.compile(r"[0-9a-f]{64}")


class ReleaseFilesError(ValueError):
    """The installed release files cannot be used: missing, changed since they were installed, or
    damaged. A run stops the episode that met it with fault ``release_files`` (harness.lockstep); the
    message is one line saying how to install them."""


class AssetsMissing(ReleaseFilesError):
    """The release files a picture needs are not installed, or not as they were installed (the message
    says how to install them)."""


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
    """The manifest of ``benchmark``, every field checked (one line saying which is wrong, and how)."""
    path = manifest_file(benchmark) if isinstance(benchmark, str) and _PLAIN_NAME.fullmatch(benchmark) else None
    if path is None:
        known = benchmarks()
        raise ValueError(f"benchmark must be one of {', '.join(known) or '(none shipped)'}, got {printable(benchmark)}")
    try:
        mtime_ns = path.stat().st_mtime_ns
    except OSError as error:
        raise ValueError(
            f"cannot read the {benchmark} manifest {printable(os.fspath(path))}: {error.strerror}"
        ) from None
    return _parsed(str(path), mtime_ns, benchmark)


def used(benchmark: str) -> dict:
    """What an episode drawn from ``benchmark``'s installed files records of them: {"benchmark",
    "repository", "commit"} of the manifest they were checked against."""
    m = manifest(benchmark)
    return {"benchmark": m.benchmark, "repository": m.repository, "commit": m.commit}


@lru_cache(maxsize=8)
def _parsed(path: str, mtime_ns: int, benchmark: str) -> Manifest:
    what = f"the {benchmark} release-files manifest {printable(path)}"
    data = load_json(read_file(path, what, _MANIFEST_BYTES), what, _MANIFEST_BYTES)
    keys = ("benchmark", "repository", "commit", "archive_url", "files")
    if not isinstance(data, dict) or any(key not in data for key in keys):
        raise ValueError(f"{what} must be a JSON object with {', '.join(keys)}")
    if data["benchmark"] != benchmark:
        raise ValueError(
            f"{what}: benchmark must be {benchmark!r}, the benchmark it is named for, got {shown(data['benchmark'])}"
        )
    _check_text(data["repository"], f"{what}: repository", _REPOSITORY)
    _check_text(data["commit"], f"{what}: commit", _COMMIT)
    _check_text(data["archive_url"], f"{what}: archive_url", _ARCHIVE_URL)
    return Manifest(
        benchmark, data["repository"], data["commit"], data["archive_url"], _checked_files(data["files"], what)
    )


def _check_text(value: Any, what: str, rule: tuple[re.Pattern, str]) -> None:
    pattern, allowed = rule
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise ValueError(f"{what} must be {allowed}, got {shown(value)}")


def _checked_files(files: Any, what: str) -> dict:
    """The manifest's files, each a plain relative path (no ``..``, no empty or ``.`` part, not also
    the folder of another) with an integer size in range and a SHA-256 of 64 lowercase hex digits."""
    if not isinstance(files, dict) or not 1 <= len(files) <= MAX_FILES:
        raise ValueError(f"{what}: files must be an object of 1 to {MAX_FILES:,} paths, got {_described(files)}")
    total = 0
    for path, entry in files.items():
        where = f"{what}: files[{shown(path)}]"
        if not plain_path(path):
            raise ValueError(
                f"{where}: a path must be relative, of plain names joined by '/' (no '..', no '.'), got {shown(path)}"
            )
        if not isinstance(entry, dict) or set(entry) != {"sha256", "size"}:
            raise ValueError(f"{where} must be an object with exactly sha256 and size")
        size = entry["size"]
        if type(size) is not int or not 0 <= size <= MAX_FILE_BYTES:
            raise ValueError(f"{where}.size must be an integer in [0, {MAX_FILE_BYTES:,}], got {shown(size)}")
        if not isinstance(entry["sha256"], str) or not _SHA256.fullmatch(entry["sha256"]):
            raise ValueError(f"{where}.sha256 must be 64 lowercase hex digits, got {shown(entry['sha256'])}")
        total += size
    if total > MAX_TOTAL_BYTES:
        raise ValueError(
            f"{what}: its files add up to {size_text(total)}, more than the {size_text(MAX_TOTAL_BYTES)} cogsim installs"
        )
    folders = {str(parent) for path in files for parent in PurePosixPath(path).parents}
    clash = next((path for path in files if path in folders), None)
    if clash is not None:
        raise ValueError(f"{what}: files[{shown(clash)}] is a file and also the folder of another file")
    return files


def _described(value: Any) -> str:
    return f"{len(value):,} paths" if isinstance(value, dict) else shown(value)


def plain_path(path: Any) -> bool:
    """Whether ``path`` is a relative path of plain names joined by '/': no empty, '.' or '..' part,
    no backslash, control character or drive letter, at most 1024 characters and 255 a name."""
    if not isinstance(path, str) or not 0 < len(path) <= 1024 or "\\" in path or not path.isprintable():
        return False
    parts = path.split("/")
    plain = all(part not in ("", ".", "..") and len(part.encode("utf-8", "surrogatepass")) <= 255 for part in parts)
    return plain and not (len(parts[0]) > 1 and parts[0][1] == ":")


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
