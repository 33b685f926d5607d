"""Installing a release's files from the user's copy (``add``) or a download (``fetch``): all checked, all at once."""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import stat
import time
from pathlib import Path, PurePosixPath

from cogsim._cache import cache_dir
from cogsim._files import PathLike, write_bytes_atomic
from cogsim._untrusted import open_regular_file, printable, size_text
from cogsim.release_assets import lookup
from cogsim.release_assets.archive import from_archive
from cogsim.release_assets.folder import from_folder
from cogsim.release_assets.manifests import Manifest, manifest

MAX_ARCHIVE_BYTES = 1 << 30  # an archive given as PATH, or downloaded
MAX_DOWNLOAD_BYTES = 256 << 20
DOWNLOAD_SECONDS = 300.0


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
        found = from_folder(m, source)
    else:
        with open_regular_file(source, "release archive", MAX_ARCHIVE_BYTES) as handle:
            found = from_archive(m, handle, printable(os.fspath(source)))
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
            found = from_archive(m, handle, m.archive_url)
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
    lookup._complete.discard(m.folder)
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


def _benchmark_folder(benchmark: str) -> Path:
    folder = cache_dir("assets", benchmark)
    for path in (folder.parent, folder):
        if os.path.islink(path):
            raise ValueError(f"{printable(os.fspath(path))} is a symbolic link; cogsim does not write through links")
    return folder
