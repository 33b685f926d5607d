"""Copies of an oracle's cached tables with one byte damaged, for the rebuild-on-corruption tests."""

import shutil
from pathlib import Path


def copy_with_one_corrupt_byte(oracle, directory: Path, victim: str, offset: int, mask: int) -> Path:
    """Copies every table of `oracle` into `directory`, then flips `mask` bits of byte `offset` of
    the file named `victim`; returns that file's path."""
    for table in oracle.info()["tables"]:
        shutil.copy(table["path"], directory)
    path = directory / victim
    data = bytearray(path.read_bytes())
    data[offset] ^= mask
    path.write_bytes(bytes(data))
    return path
