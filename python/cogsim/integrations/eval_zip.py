"""A zip archive written member by member in bounded memory: the container of an inspect ``.eval`` log.

Python's ``zipfile`` keeps a ``ZipInfo`` of every member in memory until it writes the central
directory at the end (some 500 bytes each: half a gigabyte for a log of a million samples). Here
each member's central-directory record is written to a spool file when the member is done, and
copied behind the last member at the end. Members are compressed with Zstandard, as inspect's own
logs are (method 93), in frames of at most FRAME_INPUT_BYTES of input (inspect's viewer decodes
frames up to 256 MiB). ZIP64 records are written where offsets, sizes or the member count need them.
The layout follows PKWARE's APPNOTE (4.3: local headers, central directory, end records; 4.5.3: ZIP64).
"""

from __future__ import annotations

import struct
import tempfile
import time
import zlib
from contextlib import contextmanager
from typing import BinaryIO, Iterator

import zstandard

ZSTANDARD = 93  # APPNOTE 4.4.5: the compression method of Zstandard
VERSION_NEEDED = 63  # APPNOTE 4.4.3.2: 6.3, the version that defines method 93 (and ZIP64, 4.5)
VERSION_MADE_BY = (3 << 8) | VERSION_NEEDED  # made on UNIX
UTF8_NAMES = 0x800  # general purpose flag bit 11: the name is UTF-8
FRAME_INPUT_BYTES = 64 << 20
MARK_32, MARK_16 = 0xFFFFFFFF, 0xFFFF  # a classic field holding this: the value is in the ZIP64 record
ZIP64_FROM = 0xFFFFFFFF  # sizes and offsets from this on go to ZIP64 fields
ZIP64_MEMBERS = 0xFFFF  # from this many members on, the end records are ZIP64's
COPY_BYTES = 1 << 20

LOCAL_HEADER = struct.Struct("<IHHHHHIIIHH")
CENTRAL_HEADER = struct.Struct("<IHHHHHHIIIHHHHHII")
ZIP64_END = struct.Struct("<IQHHIIQQQQ")
ZIP64_LOCATOR = struct.Struct("<IIQI")
END = struct.Struct("<IHHHHIIH")


class ZipWriter:
    """Members written one after another into ``file`` (binary, seekable, positioned at 0)."""

    def __init__(self, file: BinaryIO, level: int = 3):
        self.file = file
        self.compressor = zstandard.ZstdCompressor(level=level)
        self.central = tempfile.TemporaryFile()  # the central directory, a record per member written
        self.count = 0
        self.time, self.date = _dos_time(time.localtime())

    def write(self, name: str, data: bytes) -> None:
        """A member holding ``data``."""
        compressed = b"".join(
            self.compressor.compress(data[i : i + FRAME_INPUT_BYTES])
            for i in range(0, max(len(data), 1), FRAME_INPUT_BYTES)
        )
        offset = self.file.tell()
        encoded, flags = _name(name)
        crc = zlib.crc32(data)
        if len(compressed) >= ZIP64_FROM or len(data) >= ZIP64_FROM:
            zip64 = struct.pack("<HHQQ", 1, 16, len(data), len(compressed))
            self.file.write(self._local_header(encoded, flags, crc, MARK_32, MARK_32, zip64))
        else:
            self.file.write(self._local_header(encoded, flags, crc, len(compressed), len(data), b""))
        self.file.write(compressed)
        self._record(encoded, flags, crc, len(compressed), len(data), offset)

    @contextmanager
    def open(self, name: str) -> Iterator["_MemberStream"]:
        """A member of any size written through the stream this yields."""
        offset = self.file.tell()
        encoded, flags = _name(name)
        # sizes unknown yet: ZIP64 fields reserved in the local header, filled in when the member ends
        zip64 = struct.pack("<HHQQ", 1, 16, 0, 0)
        self.file.write(self._local_header(encoded, flags, 0, MARK_32, MARK_32, zip64))
        stream = _MemberStream(self.file, self.compressor)
        yield stream
        stream.finish()
        end = self.file.tell()
        self.file.seek(offset + 14)
        self.file.write(struct.pack("<I", stream.crc))
        self.file.seek(offset + LOCAL_HEADER.size + len(encoded) + 4)
        self.file.write(struct.pack("<QQ", stream.size, stream.compressed))
        self.file.seek(end)
        self._record(encoded, flags, stream.crc, stream.compressed, stream.size, offset)

    def close(self) -> None:
        """The central directory and the end records; the spool is removed."""
        start = self.file.tell()
        self.central.seek(0)
        while chunk := self.central.read(COPY_BYTES):
            self.file.write(chunk)
        self.central.close()
        size = self.file.tell() - start
        if self.count >= ZIP64_MEMBERS or start >= ZIP64_FROM or size >= ZIP64_FROM:
            end64 = self.file.tell()
            self.file.write(
                ZIP64_END.pack(
                    0x06064B50,
                    ZIP64_END.size - 12,
                    VERSION_MADE_BY,
                    VERSION_NEEDED,
                    0,
                    0,
                    self.count,
                    self.count,
                    size,
                    start,
                )
            )
            self.file.write(ZIP64_LOCATOR.pack(0x07064B50, 0, end64, 1))
        count = self.count if self.count < ZIP64_MEMBERS else MARK_16
        size, start = (value if value < ZIP64_FROM else MARK_32 for value in (size, start))
        self.file.write(END.pack(0x06054B50, 0, 0, count, count, size, start, 0))

    def discard(self) -> None:
        """Give up: the spool is removed (the caller removes the file)."""
        self.central.close()

    def _local_header(self, name: bytes, flags: int, crc: int, compressed: int, size: int, extra: bytes) -> bytes:
        return (
            LOCAL_HEADER.pack(
                0x04034B50,
                VERSION_NEEDED,
                flags,
                ZSTANDARD,
                self.time,
                self.date,
                crc,
                compressed,
                size,
                len(name),
                len(extra),
            )
            + name
            + extra
        )

    def _record(self, name: bytes, flags: int, crc: int, compressed: int, size: int, offset: int) -> None:
        """The member's central-directory record, to the spool (APPNOTE 4.3.12; ZIP64 fields, 4.5.3,
        for the values that do not fit 32 bits, in the order size, compressed size, offset)."""
        wide = [value for value in (size, compressed, offset) if value >= ZIP64_FROM]
        extra = struct.pack(f"<HH{len(wide)}Q", 1, 8 * len(wide), *wide) if wide else b""
        self.central.write(
            CENTRAL_HEADER.pack(
                0x02014B50,
                VERSION_MADE_BY,
                VERSION_NEEDED,
                flags,
                ZSTANDARD,
                self.time,
                self.date,
                crc,
                compressed if compressed < ZIP64_FROM else MARK_32,
                size if size < ZIP64_FROM else MARK_32,
                len(name),
                len(extra),
                0,
                0,
                0,
                0o100644 << 16,
                offset if offset < ZIP64_FROM else MARK_32,
            )
            + name
            + extra
        )
        self.count += 1


class _MemberStream:
    """The data of a member being written: compressed as it comes, in frames of FRAME_INPUT_BYTES."""

    def __init__(self, file: BinaryIO, compressor: zstandard.ZstdCompressor):
        self.file, self.compressor = file, compressor
        self.frame = compressor.compressobj()
        self.crc = self.size = self.compressed = self.in_frame = 0

    def write(self, data: bytes) -> None:
        self.crc = zlib.crc32(data, self.crc)
        self.size += len(data)
        while data:
            taken = data[: FRAME_INPUT_BYTES - self.in_frame]
            data = data[len(taken) :]
            self._out(self.frame.compress(taken))
            self.in_frame += len(taken)
            if self.in_frame >= FRAME_INPUT_BYTES:
                self._out(self.frame.flush())
                self.frame, self.in_frame = self.compressor.compressobj(), 0

    def finish(self) -> None:
        self._out(self.frame.flush())

    def _out(self, data: bytes) -> None:
        self.file.write(data)
        self.compressed += len(data)


def _name(name: str) -> tuple[bytes, int]:
    return (name.encode("ascii"), 0) if name.isascii() else (name.encode("utf-8"), UTF8_NAMES)


def _dos_time(now: time.struct_time) -> tuple[int, int]:
    """MS-DOS time and date (APPNOTE 4.4.6), from 1980 on."""
    year = max(now.tm_year, 1980)
    return (now.tm_hour << 11) | (now.tm_min << 5) | (now.tm_sec // 2), ((year - 1980) << 9) | (
        now.tm_mon << 5
    ) | now.tm_mday
