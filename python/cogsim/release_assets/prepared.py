"""Pictures prepared from release files (decoded, converted and resized as the release does), kept
between processes.

A benchmark that draws with a release's images prepares each one once per process. The sources can be
large (KidGym's sprites are up to 776 px a side, resized to 64), so that preparing is most of a
worker's start: about half a second of KidGym's classification, in every worker of every run.
``prepared`` keeps each result in ``$COGSIM_CACHE/prepared/<benchmark>/pillow-<version>/`` and later
processes load it. An entry is named by the SHA-256 of the release file it was made from (the
caller has read that file and checked it against the manifest) and by how it was prepared. The
Pillow version that made it names the folder, because a resampling's pixels may change with the
version.

An entry is an array of bytes in NumPy's format followed by the SHA-256 of what comes before it. It
is used only if that checksum holds and its header says an uint8 array of the form asked for; the
header is read before any of the array. Anything else is made again and replaced: a damaged entry,
one cut short, or one that is not an entry (a pickle, a link, a FIFO). As with the cube's tables,
whoever can write the cache folder can change a well-formed entry (docs/security.md). The cache only
ever saves time; a cache that cannot be written costs that time and nothing else.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import stat
from pathlib import Path
from typing import Callable, Optional

import numpy as np
import PIL

from cogsim._cache import cache_dir
from cogsim._files import WriteError, write_bytes_atomic

MAX_ENTRY_BYTES = 16 << 20  # a 2048 px square RGBA picture; the largest release picture is 776 px
_CHECKSUM = 32  # bytes of the SHA-256 that ends an entry
_SHA256 = re.compile(r"[0-9a-f]{64}")
_HOW = re.compile(r"[a-z0-9-]{1,64}")


def prepared(
    benchmark: str, sha256: str, how: str, make: Callable[[], np.ndarray], shape: Optional[tuple] = None
) -> np.ndarray:
    """The picture ``make()`` prepares from the release file whose SHA-256 is ``sha256``, in the way
    named ``how`` (lower-case letters, digits and dashes). It is loaded from the cache when an entry of
    that name there is an uint8 (H, W, 4) array (of ``shape``, when given); otherwise it is made and
    stored."""
    if not _SHA256.fullmatch(sha256) or not _HOW.fullmatch(how) or not _HOW.fullmatch(benchmark):
        raise ValueError(f"a prepared picture is named by a SHA-256 and a short name, got {sha256!r}, {how!r}")
    try:
        path: Optional[Path] = _folder(benchmark) / f"{sha256}-{how}.npy"
    except OSError:  # no cache folder can be made: prepared in this process only
        path = None
    pixels = _load(path, shape) if path is not None else None
    if pixels is None:
        pixels = np.ascontiguousarray(make(), dtype=np.uint8)
        if path is not None:
            _store(path, pixels)
    return pixels


def _folder(benchmark: str) -> Path:
    return cache_dir("prepared", benchmark, f"pillow-{PIL.__version__}")


def _load(path: Path, shape: Optional[tuple]) -> Optional[np.ndarray]:
    """The entry's array, or None when it is missing or not an RGBA picture of ``shape`` in full."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_ENTRY_BYTES:
            return None
        data = file.read(MAX_ENTRY_BYTES + 1)
    if len(data) < _CHECKSUM or hashlib.sha256(data[:-_CHECKSUM]).digest() != data[-_CHECKSUM:]:
        return None
    data = data[:-_CHECKSUM]
    try:
        stream = io.BytesIO(data)
        version = np.lib.format.read_magic(stream)
        if version not in ((1, 0), (2, 0)):
            return None
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        found_shape, fortran_order, dtype = read_header(stream)
    except (ValueError, OSError, SyntaxError, TypeError):
        return None
    wanted = shape is None or tuple(found_shape) == tuple(shape)
    if fortran_order or dtype != np.uint8 or len(found_shape) != 3 or found_shape[2] != 4 or not wanted:
        return None
    start = stream.tell()
    if len(data) - start != int(np.prod(found_shape)):
        return None
    return np.frombuffer(data, np.uint8, offset=start).reshape(found_shape).copy()


def _store(path: Path, pixels: np.ndarray) -> None:
    buffer = io.BytesIO()
    np.save(buffer, pixels, allow_pickle=False)
    try:
        write_bytes_atomic(path, buffer.getvalue() + hashlib.sha256(buffer.getvalue()).digest())
    except (OSError, WriteError):
        pass  # a cache that cannot be written (read-only, full) only costs the time it would have saved
