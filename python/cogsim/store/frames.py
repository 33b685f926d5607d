"""Reading the stored frames of a run directory, which may come from someone else (docs/security.md).

A frame is read only at the place its content key names (``images/ab/<key>.png`` or ``.jpg``: the
bytes it was sent as), each folder on the way and the file itself opened without following a link
(relative to the folder before it, so a link swapped in between two steps is not followed either),
the file without blocking (a FIFO there cannot stall an export) and only if it is a regular file
within a size limit that starts as its name says (a PNG's signature, a JPEG's start of image).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from cogsim._untrusted import file_kind, size_text

FRAME_REF = re.compile(r"images/([0-9a-f]{2})/([0-9a-f]{64})\.(png|jpg)")
# What a stored frame of each kind starts with, and its MIME type.
SIGNATURES = {"png": b"\x89PNG\r\n\x1a\n", "jpg": b"\xff\xd8\xff"}
MEDIA_TYPES = {"png": "image/png", "jpg": "image/jpeg"}

_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def media_type(ref: str) -> str:
    """The MIME type of a stored frame's bytes, from its reference; ValueError for any other form."""
    match = FRAME_REF.fullmatch(ref) if isinstance(ref, str) else None
    if match is None:
        raise ValueError(f"{ref!r} is not the content key of a stored frame")
    return MEDIA_TYPES[match.group(3)]


def read_stored_frame(run_dir: Path, ref: str, limit: int) -> bytes:
    """The bytes (PNG or JPEG) of the frame ``ref`` of the run at ``run_dir``; ValueError saying why not
    (not a frame reference, missing, a link, not a regular file, past ``limit`` bytes, not the PNG or
    JPEG file its name says)."""
    match = FRAME_REF.fullmatch(ref) if isinstance(ref, str) else None
    if match is None or match.group(2)[:2] != match.group(1):
        raise ValueError(f"{ref!r} is not the content key of a stored frame")
    folder = os.open(run_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # the user named it
    try:
        for name in ("images", match.group(1)):
            inner = _open(name, _FOLDER, folder, ref)
            os.close(folder)
            folder = inner
        fd = _open(f"{match.group(2)}.{match.group(3)}", _FILE, folder, ref)
    finally:
        os.close(folder)
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{ref} is {file_kind(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise ValueError(f"{ref} is {size_text(info.st_size)}, more than the {size_text(limit)} a frame may be")
        data = file.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{ref} is more than the {size_text(limit)} a frame may be")
    if not data.startswith(SIGNATURES[match.group(3)]):
        raise ValueError(f"{ref} is not a {'PNG' if match.group(3) == 'png' else 'JPEG'} file")
    return data


def _open(name: str, flags: int, folder: int, ref: str) -> int:
    try:
        return os.open(name, flags, dir_fd=folder)
    except OSError as error:
        raise ValueError(f"{ref} cannot be read: {error.strerror} (a link is never followed)") from None
