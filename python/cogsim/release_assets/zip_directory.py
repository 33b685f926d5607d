"""A .zip's central directory measured and counted as it streams, before zipfile reads it whole.

``zipfile.ZipFile`` reads the whole central directory into memory and makes an object of every entry
before anyone can count them: a 117 MB directory of 2.5 million entries takes gigabytes. This finds
the directory where zipfile does (it ends where the end record, or the ZIP64 end record before it,
begins) and walks its entries in chunks of 1 MiB, so that an archive past the bounds is refused in
one line before zipfile reads it. An archive whose directory is not where it should be is left to
zipfile, which refuses it itself.
"""

from __future__ import annotations

import struct
from typing import IO, Optional

from cogsim._untrusted import size_text

_END = struct.Struct("<4s4H2LH")  # end of central directory record
_LOCATOR = struct.Struct("<4sLQL")  # ZIP64 end of central directory locator
_END64 = struct.Struct("<4sQ2H2L4Q")  # ZIP64 end of central directory record
_ENTRY = 46  # a central directory entry's fixed part; its name, extra and comment lengths at 28
_NAME_LENGTHS = struct.Struct("<3H")
_MAX_COMMENT = 1 << 16
_CHUNK = 1 << 20


def check_directory(handle: IO[bytes], max_entries: int, max_bytes: int, shown: str) -> None:
    """ValueError (one line) when the central directory of the .zip ``handle`` is larger than
    ``max_bytes`` or lists more than ``max_entries`` entries; read in bounded chunks."""
    found = _directory(handle)
    if found is None:
        return
    start, size = found
    if size > max_bytes:
        raise ValueError(
            f"{shown}: its central directory is {size_text(size)}, more than the {size_text(max_bytes)} cogsim "
            "reads; refused"
        )
    if _count_entries(handle, start, size, max_entries) > max_entries:
        raise ValueError(f"{shown} has more than {max_entries:,} members; refused")


def _directory(handle: IO[bytes]) -> Optional[tuple[int, int]]:
    """(start, size) of the central directory, as zipfile locates it; None where it finds none."""
    end = handle.seek(0, 2)
    location = record = None
    if end >= _END.size:  # the end record of an archive without a comment closes the file
        handle.seek(end - _END.size)
        last = handle.read(_END.size)
        if last[:4] == b"PK\x05\x06" and last[-2:] == b"\x00\x00":
            location, record = end - _END.size, last
    if location is None:  # else the last one in the final 64 KiB (a comment follows it)
        tail_start = max(end - _MAX_COMMENT - _END.size, 0)
        handle.seek(tail_start)
        tail = handle.read(end - tail_start)
        at = tail.rfind(b"PK\x05\x06")
        if at < 0 or len(tail) - at < _END.size:
            return None
        location, record = tail_start + at, tail[at : at + _END.size]
    size = _END.unpack(record)[5]
    if location >= _LOCATOR.size + _END64.size:
        handle.seek(location - _LOCATOR.size - _END64.size)
        before = handle.read(_END64.size + _LOCATOR.size)
        if before[_END64.size : _END64.size + 4] == b"PK\x06\x07" and before[:4] == b"PK\x06\x06":
            size = _END64.unpack(before[: _END64.size])[8]
            location -= _LOCATOR.size + _END64.size
    if size > location:
        return None
    return location - size, size


def _count_entries(handle: IO[bytes], start: int, size: int, limit: int) -> int:
    """The entries in ``size`` bytes from ``start``, counted up to ``limit + 1``, a chunk at a time."""
    handle.seek(start)
    buffer, at, walked, count = b"", 0, 0, 0
    while walked < size and count <= limit:
        if len(buffer) - at < _ENTRY:
            buffer = buffer[at:] + handle.read(_CHUNK)
            at = 0
        if len(buffer) - at < _ENTRY or buffer[at : at + 4] != b"PK\x01\x02":
            break  # zipfile refuses a truncated or damaged directory itself
        names, extra, comment = _NAME_LENGTHS.unpack_from(buffer, at + 28)
        step = _ENTRY + names + extra + comment
        walked += step
        count += 1
        at += step
        if at > len(buffer):  # the entry's variable part runs past the chunk: skip it in the file
            handle.seek(at - len(buffer), 1)
            buffer, at = b"", 0
    return count
