"""Tar member headers as tarfile reads them, with their extended records bounded before they are read.

tarfile reads a PAX record or a GNU long name whole, however large its header says it is (a 1 MB
.tar.gz can declare a 1 GB record), and parses PAX records with regular expressions that take
quadratic time on some inputs in Python versions before the fix of CVE-2024-6232. ``BoundedTarInfo``
(tarfile's documented hook for member processing, ``TarInfo._proc_member``) refuses, in one line:
an extended record larger than ``MAX_HEADER_BYTES`` before it is read; PAX records that are not
well formed (each ``"<length> <keyword>=<value>\\n"`` within its declared length, no run of more than
20 digits), checked in linear time before tarfile parses them; GNU sparse members and sparse PAX
keys (no release holds one; tarfile's sparse maps are unbounded); and a chain of extended headers
deeper than the interpreter's recursion allows.
"""

from __future__ import annotations

import re
import tarfile
from typing import Any

from cogsim._untrusted import size_text

MAX_HEADER_BYTES = 64 << 10  # a PAX record or GNU long name (a release's are a few hundred bytes)
_PAX = (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE)
_EXTENDED = (*_PAX, tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK)
_LONG_NUMBER = re.compile(rb"[0-9]{21}")


class HeaderRefused(ValueError):
    """A member header cogsim does not read (the message says which and why)."""


class BoundedTarInfo(tarfile.TarInfo):
    def _proc_member(self, tarfile_: Any) -> Any:
        if self.type in _EXTENDED and self.size > MAX_HEADER_BYTES:
            raise HeaderRefused(
                f"a member header declares an extended record of {size_text(self.size)}, more than the "
                f"{size_text(MAX_HEADER_BYTES)} cogsim reads"
            )
        if self.type == tarfile.GNUTYPE_SPARSE:
            raise HeaderRefused("it holds a GNU sparse member, which cogsim does not read")
        if self.type in _PAX:
            return self._proc_checked_pax(tarfile_)
        return super()._proc_member(tarfile_)

    def _proc_checked_pax(self, tarfile_: Any) -> Any:
        """Reads the PAX records, checks them, then lets tarfile parse the same bytes."""
        stream = tarfile_.fileobj
        data = stream.read(self._block(self.size))
        check_pax_records(data[: self.size])
        tarfile_.fileobj = _Replay(data, stream)
        try:
            return self._proc_pax(tarfile_)
        finally:
            tarfile_.fileobj = stream


def check_pax_records(data: bytes) -> None:
    """HeaderRefused unless ``data`` is well-formed PAX records: each ``<length> <keyword>=<value>\\n``
    with its '=' and final newline inside its declared length, no digit run past 20 digits, and no
    GNU sparse keyword. Linear in ``len(data)``; with these, tarfile's own parse is linear too."""
    if _LONG_NUMBER.search(data):
        raise HeaderRefused("a PAX header holds a number of more than 20 digits")
    at = 0
    while at < len(data):
        space = data.find(b" ", at, at + 21)
        if space <= at or not data[at:space].isdigit():
            raise HeaderRefused("a PAX header is not a list of '<length> <keyword>=<value>' records")
        end = at + int(data[at:space])
        equals = data.find(b"=", space + 1, end)
        if end > len(data) or equals <= space + 1 or data[end - 1 : end] != b"\n":
            raise HeaderRefused("a PAX record does not fit its declared length")
        if data.startswith(b"GNU.sparse", space + 1):
            raise HeaderRefused("it holds a GNU sparse member, which cogsim does not read")
        at = end


class _Replay:
    """The stream tarfile reads headers from, giving ``data`` (already read from it) again first."""

    def __init__(self, data: bytes, stream: Any):
        self.data, self.at, self.stream = data, 0, stream

    def read(self, size: int) -> bytes:
        head = self.data[self.at : self.at + size]
        self.at += len(head)
        return head + self.stream.read(size - len(head)) if len(head) < size else head

    def tell(self) -> int:
        return self.stream.tell() - (len(self.data) - self.at)
