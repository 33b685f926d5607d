"""Installing a release's files from the user's copy (``add``) or a download (``fetch``): all checked, all at once."""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
import time
from pathlib import Path

from cogsim._files import PathLike
from cogsim._untrusted import open_regular_file, printable, size_text
from cogsim.release_assets import lookup, place
from cogsim.release_assets.archive import from_archive
from cogsim.release_assets.folder import from_folder
from cogsim.release_assets.manifests import Manifest, manifest

MAX_ARCHIVE_BYTES = 1 << 30  # an archive given as PATH, or downloaded
MAX_DOWNLOAD_BYTES = 256 << 20
DOWNLOAD_SECONDS = 300.0
_NEW_FILE = os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


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
    with _BenchmarkFolder(m) as folder:
        download = f".download-{os.getpid()}-{secrets.token_hex(4)}.tar.gz"
        deadline = time.monotonic() + seconds
        try:
            fd = os.open(download, _NEW_FILE | os.O_RDWR, 0o600, dir_fd=folder.fd)
            with os.fdopen(fd, "w+b") as archive:
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
                            archive.write(chunk)
                archive.seek(0)
                found = from_archive(m, archive, m.archive_url)
            return folder.install(found)
        except (httpx.HTTPError, ValueError) as error:
            reason = error.args[0] if isinstance(error, ValueError) and error.args else printable(error, 160)
            raise ValueError(
                f"cannot fetch the {benchmark} release from {m.archive_url}: {reason}; where this machine has no "
                f"internet, download that archive elsewhere and run `cogsim assets add {benchmark} ARCHIVE`"
            ) from None
        finally:
            place.remove_at(folder.fd, download)


def _install(m: Manifest, found: dict[str, bytes]) -> Path:
    with _BenchmarkFolder(m) as folder:
        return folder.install(found)


class _BenchmarkFolder:
    """``$COGSIM_CACHE/assets/<benchmark>``, opened (and made where missing) without following a link:
    an installation is written and put in place relative to it, so nothing is written elsewhere."""

    def __init__(self, m: Manifest):
        self.m = m
        self.path = m.folder.parent

    def __enter__(self) -> "_BenchmarkFolder":
        try:
            self.fd = place.open_folder((self.m.benchmark,), create=True)
        except place.WrongKind as error:
            raise ValueError(
                f"{error}; cogsim installs release files only into folders of its own (it never writes through a "
                "link or into anything else): remove it, then run `cogsim assets add` again"
            ) from None
        return self

    def __exit__(self, *exc) -> None:
        os.close(self.fd)

    def install(self, found: dict[str, bytes]) -> Path:
        """Checks every file against the manifest, writes them to a fresh staging folder and puts it in
        place of the previous installation at once (whatever that was: a folder, a file, a link or a
        FIFO is moved aside and removed, never opened)."""
        m = self.m
        for path, data in found.items():
            entry = m.files[path]
            if len(data) != entry["size"] or hashlib.sha256(data).hexdigest() != entry["sha256"]:
                raise ValueError(
                    f"{printable(path)} is not the file of {m.repository} at {m.commit[:7]} (its SHA-256 or size "
                    "differs from cogsim's manifest); refused"
                )
        staging = f".staging-{os.getpid()}-{secrets.token_hex(4)}"
        old = f".old-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            self._write(staging, found)
            if place.lexists_at(self.fd, m.commit) is not None:
                os.rename(m.commit, old, src_dir_fd=self.fd, dst_dir_fd=self.fd)
            os.rename(staging, m.commit, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except OSError as error:
            raise ValueError(f"cannot install into {printable(os.fspath(self.path))}: {place.reason(error)}") from None
        finally:
            place.remove_at(self.fd, staging)
            place.remove_at(self.fd, old)
            lookup.forget(m.folder)
        return m.folder

    def _write(self, staging: str, found: dict[str, bytes]) -> None:
        """The files, each in its folders made one by one in a fresh ``staging`` folder."""
        os.mkdir(staging, 0o755, dir_fd=self.fd)
        folders = {(): place.open_at(self.fd, staging, self.path / staging)}
        try:
            for path, data in found.items():
                *parents, name = path.split("/")
                for depth in range(1, len(parents) + 1):
                    key = tuple(parents[:depth])
                    if key not in folders:
                        folders[key] = place.open_at(folders[key[:-1]], key[-1], self.path / staging / path, True)
                fd = os.open(name, _NEW_FILE | os.O_WRONLY, 0o644, dir_fd=folders[tuple(parents)])
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
        finally:
            for fd in folders.values():
                os.close(fd)
