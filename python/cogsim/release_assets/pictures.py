"""A release file's bytes opened as a picture, or ReleaseFilesError saying that they are damaged."""

from __future__ import annotations

import io
from contextlib import contextmanager
from typing import Iterator

from PIL import Image

from cogsim._untrusted import printable
from cogsim.release_assets.manifests import ReleaseFilesError, missing_message


@contextmanager
def opened_picture(benchmark: str, path: str, data: bytes, max_side: int) -> Iterator[Image.Image]:
    """``data`` (the checked bytes of the release file ``path``) opened by Pillow for the block to decode.
    Bytes the manifest vouches for that are no picture, or one larger than ``max_side`` pixels a side
    (only a manifest override can vouch for such), are damaged release files: ReleaseFilesError, one
    line naming `cogsim assets add`, which a run stores as its fault, not the env's."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            if max(image.size) > max_side:
                raise ValueError(f"it is {image.size[0]}x{image.size[1]} px, more than {max_side} px a side")
            yield image
    except (OSError, ValueError, Image.DecompressionBombError, SyntaxError) as error:
        detail = f"{printable(path)} cannot be read as a picture: {printable(error, 120)}"
        raise ReleaseFilesError(missing_message(benchmark, detail)) from None
