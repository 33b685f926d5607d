"""Writing files in run directories, which may come from someone else (docs/security.md).

A run directory is untrusted: a ``report.md`` or ``run.lock`` in it may be a symbolic link to a file
elsewhere. Nothing here follows a link on write: new content goes to a fresh temporary file
(``O_EXCL | O_NOFOLLOW``) that is renamed over the name, which replaces a link rather than writing
through it; files that must be opened in place are opened with ``O_NOFOLLOW``. A failed write
(disk full) removes its temporary file and raises :class:`WriteError` naming the path.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Callable, Iterator, Optional, Union

from cogsim._untrusted import file_kind

PathLike = Union[str, os.PathLike]


class WriteError(ValueError):
    """A file could not be written (no space, no permission, a link where a file belongs)."""


@contextmanager
def atomic_writer(path: PathLike, text: bool = False) -> Iterator[IO]:
    """A file handle whose content replaces ``path`` when the block ends without an error; on an
    error nothing at ``path`` changes and the temporary file is removed. A symbolic link at ``path``
    is replaced, not followed."""
    path = Path(path)
    temporary = _temporary_name(path)
    fd = _create_exclusive(path, temporary)
    try:
        handle = os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") if text else os.fdopen(fd, "wb")
        with handle:
            yield handle
        os.replace(temporary, path)
    except OSError as error:
        _remove_quietly(temporary)
        raise WriteError(f"cannot write {path}: {_reason(error)}") from None
    except BaseException:
        _remove_quietly(temporary)
        raise


@contextmanager
def atomic_path(path: PathLike) -> Iterator[Path]:
    """For a library that writes a file by name (and would follow a link there): the name of a fresh
    temporary file beside ``path``, created ``O_EXCL | O_NOFOLLOW`` so that it is this process's own
    and no link. The library writes there (it may replace the file with its own); when the block
    ends without an error the temporary file, still a regular file, is renamed over ``path``, which
    replaces a link rather than writing through it. On an error it is removed and ``path`` is unchanged."""
    path = Path(path)
    temporary = _temporary_name(path)
    os.close(_create_exclusive(path, temporary))
    try:
        yield temporary
        if not stat.S_ISREG(os.lstat(temporary).st_mode):
            raise WriteError(f"cannot write {path}: its temporary file was replaced by something that is not a file")
        os.replace(temporary, path)
    except OSError as error:
        _remove_quietly(temporary)
        raise WriteError(f"cannot write {path}: {_reason(error)}") from None
    except BaseException:
        _remove_quietly(temporary)
        raise


def _temporary_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")


def _create_exclusive(path: Path, temporary: Path) -> int:
    try:
        return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as error:
        raise WriteError(f"cannot write {path}: {_reason(error)}") from None


def write_bytes_atomic(path: PathLike, data: bytes) -> None:
    """Replace ``path`` with ``data`` all at once (see :func:`atomic_writer`)."""
    with atomic_writer(path) as handle:
        handle.write(data)


def write_text_atomic(path: PathLike, text: str) -> None:
    """As :func:`write_bytes_atomic`, UTF-8 (a lone surrogate is written as its escape, not an error)."""
    write_bytes_atomic(path, text.encode("utf-8", "backslashreplace"))


def open_no_follow(path: PathLike, flags: int = os.O_RDWR | os.O_CREAT) -> int:
    """A file descriptor for ``path`` opened in place, refusing a symbolic link there and anything
    but a regular file (opened without blocking, then checked: a FIFO or a device is never used)."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC, 0o644)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise WriteError(
                f"{path} is a symbolic link; cogsim does not write through links in a run directory"
            ) from None
        raise WriteError(f"cannot open {path}: {_reason(error)}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise WriteError(f"{path} is {file_kind(mode)}, not a regular file; remove it")
    os.set_blocking(fd, True)
    return fd


class Folders:
    """Folders under a root, each opened once without following a link (``O_NOFOLLOW`` at every step,
    relative to the folder before it) and made where missing; files are then written relative to the
    folder's descriptor, so a link swapped in for a folder later changes nothing (the descriptor is the
    folder that was checked). For many small files in a few folders: a file costs no lookup of its path."""

    def __init__(self, root: PathLike):
        self.root = Path(root)
        self._fds: dict[tuple[str, ...], int] = {}
        self._tag_pid, self._tag, self._written = 0, "", 0

    def fd(self, *names: str) -> int:
        """The descriptor of ``root/names...``, opened (and made) the first time; WriteError for a link
        or anything but a folder on the way."""
        if names in self._fds:
            return self._fds[names]
        parent = self.fd(*names[:-1]) if len(names) > 1 else None
        path = self.root.joinpath(*names)
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
        for attempt in (0, 1):
            try:
                fd = os.open(names[-1], flags, dir_fd=parent) if parent is not None else os.open(path, flags)
                break
            except FileNotFoundError:
                if attempt:
                    raise WriteError(f"cannot make the folder {path}") from None
                try:
                    os.mkdir(names[-1], 0o755, dir_fd=parent) if parent is not None else os.mkdir(path, 0o755)
                except FileExistsError:
                    pass
                except OSError as error:
                    raise WriteError(f"cannot make the folder {path}: {_reason(error)}") from None
            except OSError as error:
                if error.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise WriteError(
                        f"{path} is a symbolic link or not a folder; cogsim does not write through links in a run "
                        "directory"
                    ) from None
                raise WriteError(f"cannot open the folder {path}: {_reason(error)}") from None
        self._fds[names] = fd
        return fd

    def write_unless_same(self, folder: tuple[str, ...], name: str, data) -> bool:
        """Makes ``name`` in the folder the regular file holding ``data`` (bytes, or a function giving
        them): written all at once (a temporary file created exclusively, renamed over the name) unless
        the name is that file already. Anything else there is replaced, never followed or opened
        for writing: a link, a FIFO, a device, or a file with other bytes (a planted or damaged
        one). Whether it wrote."""
        fd = self.fd(*folder)
        content = data() if callable(data) else data
        if _holds(fd, name, content, lambda: self.root.joinpath(*folder, name)):
            return False
        temporary = f".{name}.{self._temporary_tag()}.tmp"
        try:
            out = os.open(
                temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=fd
            )
        except OSError as error:
            raise WriteError(f"cannot write {self.root.joinpath(*folder, name)}: {_reason(error)}") from None
        try:
            try:
                _write_all(out, content)
            finally:
                os.close(out)
            os.replace(temporary, name, src_dir_fd=fd, dst_dir_fd=fd)
        except OSError as error:
            _remove_quietly(temporary, fd)
            raise WriteError(f"cannot write {self.root.joinpath(*folder, name)}: {_reason(error)}") from None
        except BaseException:
            _remove_quietly(temporary, fd)
            raise
        return True

    def _temporary_tag(self) -> str:
        """The process id, a random token drawn once per process and a count: a temporary name no
        other writer uses, without drawing random bytes for every file."""
        if self._tag_pid != os.getpid():  # drawn again in a forked child
            self._tag_pid, self._tag, self._written = os.getpid(), secrets.token_hex(4), 0
        self._written += 1
        return f"{self._tag_pid}.{self._tag}.{self._written}"

    def close(self) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()


def _holds(folder: int, name: str, data: bytes, path: Callable[[], Path]) -> bool:
    """Whether ``name`` in ``folder`` is a regular file holding exactly ``data`` (opened without following
    a link or blocking). WriteError for a folder there (at ``path()``), which a file cannot replace."""
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return False
    if stat.S_ISDIR(info.st_mode):
        raise WriteError(f"{path()} is a directory where cogsim keeps a file; remove it")
    if not stat.S_ISREG(info.st_mode) or info.st_size != len(data):
        return False
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC, dir_fd=folder)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as handle:
        found = os.fstat(handle.fileno())
        if not stat.S_ISREG(found.st_mode) or found.st_size != len(data) or found.st_nlink != 1:
            return False  # a hard link's other name could change these bytes later: written anew
        return handle.read(len(data) + 1) == data


def _write_all(fd: int, data: bytes) -> None:
    """All of ``data`` into the file ``fd`` (a write may take only part of it)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def refuse_links(*paths: PathLike) -> None:
    """WriteError if any of ``paths`` is a symbolic link (checked before a library opens them by name)."""
    for path in paths:
        if Path(path).is_symlink():
            raise WriteError(f"{path} is a symbolic link; cogsim does not write through links in a run directory")


def _reason(error: OSError) -> str:
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return "no space left on the device (free some space, then resume)"
    return error.strerror or str(error)


def _remove_quietly(path: PathLike, dir_fd: Optional[int] = None) -> None:
    try:
        os.unlink(path, dir_fd=dir_fd)
    except OSError:
        pass
