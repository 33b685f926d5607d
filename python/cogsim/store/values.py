"""Values in and out of a store: text kept losslessly, JSON written compactly, and every value read
back checked for its type and bounds (a store may come from someone else, docs/security.md)."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Callable, Optional

import numpy as np

from cogsim._untrusted import load_json, shown

MAX_JSON_BYTES = 16 << 20  # the longest stored JSON document (a config, an outcome, a parsed answer)
STATUSES = ("running", "done", "truncated", "error")


class StoreError(ValueError):
    """A run directory's store cannot be used (not a cogsim store, corrupt, newer schema, a bad value,
    disk full); the message names the file and what is wrong."""


class BadValue(ValueError):
    """A stored value of the wrong type or shape (turned into a StoreError naming where it was)."""


def to_db_text(text: Optional[str]):
    """Text as stored: any ``str`` is kept exactly. Text that UTF-8 cannot encode (lone surrogates,
    valid in JSON replies) is stored as a BLOB of its surrogate-preserving encoding instead of failing
    the write; :func:`from_db_text` gives the same string back."""
    if text is None or text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def from_db_text(value) -> Optional[str]:
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogatepass")
    return value


def json_list(values) -> Optional[str]:
    return json.dumps(list(values)) if values else None


def same(value):
    return value


# -- reading values back: each column's type and shape is checked ---------------------------------------
def read_int(value) -> int:
    if type(value) is not int:
        raise BadValue("an integer")
    return value


def read_real(value) -> float:
    if type(value) is float:
        return value
    if type(value) is not int:
        raise BadValue("a number")
    return float(value)


# The latest time a store may hold (the end of the year 9999, the last a date can show) and the
# longest duration (some 30 years): a number past them is not one cogsim wrote.
MAX_TIME = 253402300799.0
MAX_SECONDS = 1e9


def read_time(value) -> float:
    """A time cogsim recorded (seconds since 1970): finite, from 1970 to the year 9999."""
    time_value = read_real(value)
    if not 0.0 <= time_value <= MAX_TIME:  # False for NaN too
        raise BadValue("a time (seconds since 1970, up to the year 9999)")
    return time_value


def read_seconds(value) -> float:
    """A duration in seconds: finite, not negative, at most MAX_SECONDS."""
    seconds = read_real(value)
    if not 0.0 <= seconds <= MAX_SECONDS:
        raise BadValue(f"a duration (0 to {MAX_SECONDS:.0e} seconds)")
    return seconds


def read_count(value) -> int:
    """A count (turns, tokens, attempts): an integer, not negative."""
    if type(value) is not int or value < 0:
        raise BadValue("a count (an integer, 0 or more)")
    return value


def read_bool(value) -> bool:
    if value not in (0, 1) or type(value) is not int:
        raise BadValue("0 or 1")
    return bool(value)


def read_text(value) -> str:
    if type(value) is str:
        return value
    if type(value) is bytes:  # text UTF-8 cannot encode, stored by to_db_text
        try:
            return value.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            raise BadValue("text") from None
    raise BadValue("text")


def read_json(value) -> Any:
    try:
        return load_json(read_text(value), "the JSON", MAX_JSON_BYTES)
    except ValueError as error:
        raise BadValue(f"JSON within bounds ({error})") from None


def read_dict(value) -> dict:
    data = read_json(value)
    if not isinstance(data, dict):
        raise BadValue("a JSON object")
    return data


def read_texts(value) -> list:
    """A JSON list of strings (stored as NULL when empty)."""
    if value is None:
        return []
    data = read_json(value)
    if not isinstance(data, list) or not all(isinstance(item, str) for item in data):
        raise BadValue("a JSON list of strings")
    return data


# A stored frame: the SHA-256 of its content, in the folder of its first two digits, as the PNG or JPEG
# file it was sent as (runs before JPEG frames named PNGs by the SHA-256 of their pixels; either reads).
IMAGE_REF = re.compile(r"images/([0-9a-f]{2})/([0-9a-f]{64})\.(png|jpg)")
IMAGE_SUFFIXES = (".png", ".jpg")


def is_image_ref(ref: Any) -> bool:
    """Whether ``ref`` has the one form a stored frame's reference may have."""
    match = IMAGE_REF.fullmatch(ref) if isinstance(ref, str) else None
    return match is not None and match.group(2)[:2] == match.group(1)


def read_image_refs(value) -> list:
    """A JSON list of image references, each the content key of a PNG or JPEG inside the run's images/."""
    refs = read_texts(value)
    for ref in refs:
        if not is_image_ref(ref):
            raise BadValue(f"image references of the form images/ab/<64 hex digits>.png or .jpg, not {shown(ref)}")
    return refs


def read_change(value) -> dict:
    """A logged config change: {setting: [old, new]}."""
    data = read_dict(value)
    if not all(isinstance(pair, list) and len(pair) == 2 for pair in data.values()):
        raise BadValue("a JSON object of [old, new] pairs")
    return data


def read_status(value) -> str:
    if value not in STATUSES or type(value) is not str:
        raise BadValue(f"one of {', '.join(STATUSES)}")
    return value


READERS: dict[str, Callable[[Any], Any]] = {
    "int": read_int,
    "real": read_real,
    "time": read_time,
    "seconds": read_seconds,
    "count": read_count,
    "bool": read_bool,
    "text": read_text,
    "json": read_json,
    "dict": read_dict,
    "texts": read_texts,
    "images": read_image_refs,
    "status": read_status,
    "change": read_change,
    "any": same,
}


def nullable(read: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else read(value)


@lru_cache(maxsize=None)
def row_readers(spec: str) -> tuple[tuple[str, Callable[[Any], Any]], ...]:
    """Readers for a row: "name:kind name:kind? ..." (kind in READERS; "?" allows NULL)."""
    columns = []
    for item in spec.split():
        name, _, kind = item.partition(":")
        read = READERS[kind.rstrip("?")]
        columns.append((name, nullable(read) if kind.endswith("?") else read))
    return tuple(columns)


def kind_of(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bytes):
        return f"a blob of {len(value)} bytes"
    if isinstance(value, str):
        return f"the text {shown(value, 40)}"
    return f"the {'integer' if isinstance(value, int) else 'number'} {shown(value, 40)}"


def image_ref(key: str, suffix: str = ".png") -> str:
    """Where the frame with content key ``key`` (64 hex digits) lies in a run directory, as a ``suffix``
    (".png" or ".jpg") file."""
    return f"images/{key[:2]}/{key}{suffix}"


def dumps_parsed(value: Any) -> Optional[str]:
    if value is None:
        return None
    if type(value) is int:  # the common case, without the encoder's setup cost
        return str(value)
    return dumps(value)


def dumps(value: Any) -> str:
    return json.dumps(value, default=json_default, separators=(",", ":"))


def json_default(value: Any):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if hasattr(value, "__dataclass_fields__"):
        from dataclasses import asdict

        return asdict(value)
    return str(value)
