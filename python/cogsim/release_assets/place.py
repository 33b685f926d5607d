"""The assets folder (``$COGSIM_CACHE/assets``) and every folder and file in it, opened without following a link.

The cache folder itself is the user's setting (``$COGSIM_CACHE``, default ``~/.cache/cogsim``) and is
taken as it is. Below it nothing is trusted: ``assets``, ``assets/<benchmark>``, an installation and
every folder and file in one are opened one name at a time relative to the folder before, with
``O_NOFOLLOW`` (a link is refused, never followed) and ``O_NONBLOCK`` (a FIFO is never waited on),
and checked for their kind before use. A folder is made only inside a folder opened so, so nothing
is ever made in a link's target. Every refusal is a :class:`WrongKind` of one line saying what is there.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Iterable, Optional

from cogsim._untrusted import file_kind, printable

_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


class WrongKind(ValueError):
    """Something other than a folder (or a regular file) where cogsim keeps release files."""


def cache_root() -> Path:
    """``$COGSIM_CACHE``, default ``~/.cache/cogsim`` (the user's own setting: a link there is followed)."""
    return Path(os.environ.get("COGSIM_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "cogsim"))


def assets_root() -> Path:
    return cache_root() / "assets"


def open_folder(names: Iterable[str], create: bool = False) -> int:
    """The descriptor of the folder ``$COGSIM_CACHE/assets/<names...>`` (the caller closes it).
    With ``create`` missing folders are made (the cache folder too); without, FileNotFoundError.
    WrongKind (one line) where a name on the way is a link, a FIFO, a file or anything but a folder."""
    root = cache_root()
    if create:
        try:
            os.makedirs(root, exist_ok=True)
        except OSError as error:
            raise WrongKind(f"cannot make the cache folder {printable(os.fspath(root))}: {reason(error)}") from None
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except NotADirectoryError:
        raise WrongKind(f"the cache folder {printable(os.fspath(root))} ($COGSIM_CACHE) is not a folder") from None
    path = root
    try:
        for name in ("assets", *names):
            path = path / name
            inner = open_at(fd, name, path, create)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_at(parent: int, name: str, path: Path, create: bool = False) -> int:
    """The folder ``name`` in the folder ``parent`` (shown as ``path``), opened without following a link."""
    for attempt in (0, 1):
        try:
            return os.open(name, _FOLDER, dir_fd=parent)
        except FileNotFoundError:
            if not create or attempt:
                raise
            try:
                os.mkdir(name, 0o755, dir_fd=parent)
            except FileExistsError:
                pass  # made meanwhile, or a dangling link: the open says which
            except OSError as error:
                raise WrongKind(f"cannot make the folder {printable(os.fspath(path))}: {reason(error)}") from None
        except OSError as error:
            if error.errno in (errno.ELOOP, errno.ENOTDIR):
                raise WrongKind(f"{printable(os.fspath(path))} is {kind_at(parent, name)}, not a folder") from None
            raise WrongKind(f"cannot open the folder {printable(os.fspath(path))}: {reason(error)}") from None
    raise AssertionError("unreachable")


def open_file_at(parent: int, name: str, path: Path) -> tuple[int, os.stat_result]:
    """The regular file ``name`` in the folder ``parent``, opened for reading without following a link
    or blocking, and its ``fstat``; FileNotFoundError where missing, WrongKind for anything else."""
    try:
        fd = os.open(name, _FILE, dir_fd=parent)
    except FileNotFoundError:
        raise
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise WrongKind(f"{printable(os.fspath(path))} is a symbolic link, not a regular file") from None
        raise WrongKind(f"cannot open {printable(os.fspath(path))}: {reason(error)}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise WrongKind(f"{printable(os.fspath(path))} is {file_kind(info.st_mode)}, not a regular file")
    return fd, info


def kind_at(parent: int, name: str) -> str:
    """What ``name`` in ``parent`` is, in words ("a FIFO (named pipe)"), without following a link."""
    try:
        mode = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
    except OSError:
        return "not there any more"
    return "a regular file" if stat.S_ISREG(mode) else file_kind(mode)


def lexists_at(parent: int, name: str) -> Optional[os.stat_result]:
    """``name``'s own ``lstat`` in ``parent``, or None where there is nothing."""
    try:
        return os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return None


def remove_at(parent: int, name: str) -> None:
    """Removes ``name`` from ``parent`` whatever it is, never following a link and never opening
    anything but a folder (a FIFO is unlinked, not opened); best effort."""
    try:
        info = lexists_at(parent, name)
        if info is None:
            return
        if not stat.S_ISDIR(info.st_mode):
            os.unlink(name, dir_fd=parent)
            return
        fd = os.open(name, _FOLDER, dir_fd=parent)
        try:
            with os.scandir(fd) as entries:
                for entry in list(entries):
                    if entry.is_dir(follow_symlinks=False):
                        remove_at(fd, entry.name)
                    else:
                        os.unlink(entry.name, dir_fd=fd)
        finally:
            os.close(fd)
        os.rmdir(name, dir_fd=parent)
    except (OSError, RecursionError):
        pass


def reason(error: OSError) -> str:
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return "no space left on the device"
    return error.strerror or str(error)
