"""Episode records held column by column: what a report reads of a million episodes in bounded memory.

The metrics read each finished episode as a mapping (the runner's fields and the env's outcome,
``Store.episodes``). Held as a dict each, a million of them take gigabytes; here every field is one
column (an array of 64-bit integers or doubles while every row has the field and it holds only
those, else a list), a text, list or dict that repeats is held once (the first MAX_SHARED_VALUES
distinct ones of a column, lists and dicts of at most MAX_SHARED_SIZE items), and a record
is a read-only view of one row, made when it is read, with the fields in the order its episode's
record has them. A million records of some 25 fields take a few hundred megabytes, and a metric
that holds on to records holds views of 56 bytes.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from typing import Any, Iterable, Iterator, Optional, Union, overload

MAX_SHARED_VALUES = 4096  # distinct values per column held once; past it, values are kept as they come
MAX_SHARED_SIZE = 64  # a list or dict is held once when it has at most this many items in all
MAX_LAYOUTS = 1 << 16  # distinct orders of fields kept; past it, a record's fields come in the columns' order
INT64 = (-(1 << 63), (1 << 63) - 1)


class _Missing:
    """A field an episode's record does not have."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()
_SCALARS = (str, int, float, bool, type(None))
_ARRAY_OF = {int: "q", float: "d"}  # a column of only these (in every row so far) is an array


def _container_key(value: Any, budget: list) -> Any:
    """A hashable key that tells a list or dict apart from every unequal value and from equal values
    of other types (1, 1.0 and True stay three); _TooLarge past MAX_SHARED_SIZE items or for NaN."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooLarge
    kind = type(value)
    if kind in _SCALARS:
        if value != value:
            raise _TooLarge  # NaN: not shared
        return (kind, value)
    if kind is list:
        return (list, tuple(_container_key(item, budget) for item in value))
    if kind is dict:
        return (dict, tuple((key, _container_key(item, budget)) for key, item in value.items()))
    raise _TooLarge


class _TooLarge(Exception):
    pass


class EpisodeRecords(Sequence):
    """Records of episodes, each read as a mapping (:class:`EpisodeRecord`); ``append`` adds one."""

    def __init__(self) -> None:
        self._columns: dict[str, Union[array, list]] = {}
        self._strings: dict[str, Optional[dict]] = {}  # per column: its distinct texts, each held once
        self._containers: dict[str, Optional[dict]] = {}  # per column: its distinct small lists and dicts
        self._last: dict[str, Any] = {}  # per column: the last list or dict held (often the next row's too)
        self._size = 0
        self._rows: Optional[array] = None  # of a subset: its rows in the whole
        # each record's fields in its own order: the distinct orders, and which one each row has
        self._layouts: list[tuple[str, ...]] = []
        self._layout_ids: dict[tuple[str, ...], int] = {}
        self._layout_of_row = array("I")

    def append(self, record: Mapping) -> None:
        """Add ``record`` (its values are kept, not copied: it must not change afterwards)."""
        if self._rows is not None:
            raise TypeError("a subset of records is read-only")
        row = self._size
        columns = self._columns
        for key, value in record.items():
            values = columns.get(key)
            kind = type(value)
            if values is None:
                values = columns[key] = self._new_column(key, kind, row)
            elif type(values) is array:
                if len(values) == row and _ARRAY_OF.get(kind) == values.typecode:
                    if kind is float or INT64[0] <= value <= INT64[1]:
                        values.append(value)
                        continue
                values = columns[key] = list(values)
            if len(values) < row:
                values.extend([MISSING] * (row - len(values)))
            if kind is str:
                strings = self._strings[key]
                if strings is not None:
                    held = strings.get(value)
                    if held is not None:
                        value = held
                    elif len(strings) < MAX_SHARED_VALUES:
                        strings[value] = value
                    else:
                        self._strings[key] = None  # this column's texts hardly repeat: stop looking
            elif kind is list or kind is dict:
                value = self._shared_container(key, value)
            values.append(value)
        self._layout_of_row.append(self._layout(tuple(record)))
        self._size += 1

    def _new_column(self, key: str, kind: type, row: int) -> Union[array, list]:
        self._strings[key], self._containers[key] = {}, {}
        if row == 0 and kind in _ARRAY_OF:
            return array(_ARRAY_OF[kind])
        return [MISSING] * row

    def _shared_container(self, key: str, value: Any) -> Any:
        """``value`` (a list or dict), or an equal one held already (a repeat costs a reference)."""
        if self._last.get(key) is value:  # the same object as the row before (records of equal options)
            return value
        shared = self._containers[key]
        if shared is None:
            return value
        try:
            share_key = _container_key(value, [MAX_SHARED_SIZE])
        except _TooLarge:
            return value
        held = shared.get(share_key)
        if held is None:
            if len(shared) >= MAX_SHARED_VALUES:
                self._containers[key] = None
                return value
            held = shared[share_key] = value
        self._last[key] = held
        return held

    def _layout(self, keys: tuple[str, ...]) -> int:
        layout = self._layout_ids.get(keys)
        if layout is None:
            if len(self._layouts) >= MAX_LAYOUTS:
                return len(self._layouts)  # none: the fields in the columns' order
            layout = self._layout_ids[keys] = len(self._layouts)
            self._layouts.append(keys)
        return layout

    def where(self, field: str, value: Any) -> "EpisodeRecords":
        """The records whose ``field`` equals ``value`` (views of the same columns)."""
        subset = EpisodeRecords()
        subset._columns = self._columns
        subset._layouts, subset._layout_of_row = self._layouts, self._layout_of_row
        column = self._columns.get(field, ())
        rows = self._rows if self._rows is not None else range(self._size)
        subset._rows = array("q", (row for row in rows if row < len(column) and column[row] == value))
        subset._size = len(subset._rows)
        return subset

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, index: int) -> "EpisodeRecord": ...

    @overload
    def __getitem__(self, index: slice) -> list["EpisodeRecord"]: ...

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._size))]
        if index < 0:
            index += self._size
        if not 0 <= index < self._size:
            raise IndexError("record index out of range")
        return EpisodeRecord(self, index if self._rows is None else self._rows[index])

    def __iter__(self) -> Iterator["EpisodeRecord"]:
        rows: Iterable[int] = range(self._size) if self._rows is None else self._rows
        return (EpisodeRecord(self, row) for row in rows)

    def _fields(self, row: int) -> Iterable[str]:
        layout = self._layout_of_row[row]
        if layout < len(self._layouts):
            return self._layouts[layout]
        return (key for key, values in self._columns.items() if row < len(values) and values[row] is not MISSING)


class EpisodeRecord(Mapping):
    """One episode's record: a read-only mapping over its row of the columns, its fields in the
    order the episode's record had them."""

    __slots__ = ("_records", "_columns", "_row")

    def __init__(self, records: EpisodeRecords, row: int):
        self._records = records
        self._columns = records._columns
        self._row = row

    def __getitem__(self, key: str) -> Any:
        values = self._columns.get(key)
        if values is not None and self._row < len(values):
            value = values[self._row]
            if value is not MISSING:
                return value
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        values = self._columns.get(key)
        if values is not None and self._row < len(values):
            value = values[self._row]
            if value is not MISSING:
                return value
        return default

    def __contains__(self, key: object) -> bool:
        values = self._columns.get(key)  # type: ignore[call-overload]
        return values is not None and self._row < len(values) and values[self._row] is not MISSING

    def __iter__(self) -> Iterator[str]:
        return iter(self._records._fields(self._row))

    def __len__(self) -> int:
        return sum(1 for _ in self._records._fields(self._row))

    def __repr__(self) -> str:
        return repr(dict(self))
