"""Reading input cogsim does not trust, within bounds (docs/security.md).

Files are opened only when they are regular files (a FIFO or a device is refused before it is
opened, so nothing blocks and nothing endless is read), never read past a limit, and decoded
strictly. JSON is parsed with a size and a nesting bound. Text from outside shown in an error
message goes through :func:`printable`, which escapes control characters and clips it.
Recorded file content (:func:`file_content`) is how a run keeps a file-valued option: the text and
its hash, so a resumed run never opens the path again.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from typing import IO, Any, Iterable, Union

PathLike = Union[str, os.PathLike]

MAX_JSON_DEPTH = 64  # nesting of any JSON cogsim reads from a store, a server or a file
MAX_VALUE_BYTES = 64 << 20  # the longest single text a store holds or a model reply may be
CONTENT_KEYS = frozenset({"file", "sha256", "text"})


def printable(text: Any, limit: int = 200) -> str:
    """``text`` for an error message: control, format and surrogate characters escaped (no terminal
    escape sequence or NUL reaches the screen), clipped to ``limit`` characters."""
    text = os.fsdecode(text) if isinstance(text, (bytes, os.PathLike)) else str(text)
    clipped = text[:limit]
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in clipped)
    return shown + ("..." if len(text) > limit else "")


def shown(value: Any, limit: int = 80) -> str:
    """``repr(value)`` for an error message: clipped, control characters escaped, and safe for values
    whose repr itself fails (an integer past Python's digit limit is named by its size)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 256:
        return f"an integer of {value.bit_length()} bits"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - any object's repr may fail; the message must not
        text = f"<{type(value).__name__}>"
    return printable(text, limit)


def size_text(count: int) -> str:
    """A byte count as people read it ("300.0 MiB")."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} bytes"


def load_json(data: Union[str, bytes], what: str, max_bytes: int, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The value of a JSON text; ValueError naming ``what`` when it is longer than ``max_bytes``,
    nested deeper than ``max_depth`` or not JSON."""
    if len(data) > max_bytes:
        raise ValueError(f"{what} is {size_text(len(data))}, more than the {size_text(max_bytes)} cogsim reads")
    try:
        value = json.loads(data)
    except RecursionError:
        raise ValueError(f"{what} is JSON nested deeper than {max_depth} levels") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"{what} is not valid JSON ({printable(error, 120)})") from None
    check_depth(value, what, max_depth)
    return value


def check_depth(value: Any, what: str, max_depth: int = MAX_JSON_DEPTH) -> None:
    """ValueError if lists and dicts in ``value`` nest deeper than ``max_depth`` (checked without recursion)."""
    if not isinstance(value, (dict, list, tuple)):
        return
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children: Iterable[Any] = item.values() if isinstance(item, dict) else item
        if depth > max_depth:
            raise ValueError(f"{what} is JSON nested deeper than {max_depth} levels")
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list, tuple)))


def open_regular_file(path: PathLike, what: str, limit: int) -> IO[bytes]:
    """A binary handle of the regular file at ``path`` no longer than ``limit`` bytes. A FIFO, a
    device, a socket or a directory is refused before it is opened (opening some blocks or has
    effects); the check is repeated on the open handle."""
    shown = printable(os.fspath(path))
    try:
        before = os.stat(path)
    except OSError as error:
        raise ValueError(f"{what}: cannot read {shown}: {error.strerror}") from None
    _require_regular(before, shown, what, limit)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as error:
        raise ValueError(f"{what}: cannot read {shown}: {error.strerror}") from None
    try:
        _require_regular(os.fstat(fd), shown, what, limit)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def _require_regular(info: os.stat_result, shown: str, what: str, limit: int) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(
            f"{what}: {shown} is {file_kind(info.st_mode)}, not a regular file; cogsim reads only regular files"
        )
    if info.st_size > limit:
        raise ValueError(f"{what}: {shown} is {size_text(info.st_size)}, more than the {size_text(limit)} allowed")


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is, for an error message ("a FIFO (named pipe)")."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"


def read_file(path: PathLike, what: str, limit: int) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` (see :func:`open_regular_file`)."""
    with open_regular_file(path, what, limit) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:  # it grew after the check
        raise ValueError(f"{what}: {printable(os.fspath(path))} is more than the {size_text(limit)} allowed")
    return data


def read_text_file(path: PathLike, what: str, limit: int) -> str:
    """The UTF-8 text of the regular file at ``path`` (at most ``limit`` bytes)."""
    return decode_utf8(read_file(path, what, limit), f"{what}: {printable(os.fspath(path))}")


def decode_utf8(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{what} is not UTF-8 text (byte {error.start})") from None


def file_content(path: PathLike, what: str, limit: int) -> dict:
    """A file-valued option as a run records it: the file's name, the SHA-256 of its bytes and its text."""
    text = read_text_file(path, what, limit)
    return {"file": os.path.basename(os.fspath(path)), "sha256": _sha256(text), "text": text}


def content_reference(value: Any) -> Any:
    """Recorded file content without its text (name and hash), for records that only need to say
    which file was used (an episode's options); any other value as it is."""
    return {"file": value["file"], "sha256": value["sha256"]} if is_file_content(value) else value


def is_file_content(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == CONTENT_KEYS


def content_text(value: Any, what: str, limit: int) -> str:
    """The text of a file-valued option: read from a path (given by the caller, who is trusted), or
    taken from recorded content (:func:`file_content`), whose size and hash are checked."""
    if isinstance(value, (str, os.PathLike)):
        return read_text_file(value, what, limit)
    if not is_file_content(value):
        raise ValueError(f"{what} must be a path or recorded file content ({', '.join(sorted(CONTENT_KEYS))})")
    text, digest = value["text"], value["sha256"]
    if not isinstance(text, str) or not isinstance(digest, str) or not isinstance(value["file"], str):
        raise ValueError(f"{what}: recorded file content must hold strings")
    data = text.encode("utf-8", "surrogatepass")
    if len(data) > limit:
        raise ValueError(
            f"{what}: the recorded text is {size_text(len(data))}, more than the {size_text(limit)} allowed"
        )
    if hashlib.sha256(data).hexdigest() != digest:
        raise ValueError(f"{what}: the recorded text does not match its SHA-256 ({printable(digest, 80)})")
    return text


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
