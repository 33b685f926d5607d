"""Where KidGym's release image files are, and what they must be.

The release's pictures are drawn from the user's own copy of the release's images, never from files in
this package. ``release_assets.json`` (shipped) lists every image the drawing loads, with its SHA-256
and size: the manifest ``cogsim assets`` checks installed files against. :func:`assets_root` is the one
place the envs ask for the folder holding them (paths inside it as in the release,
``assets/imgs/...``).
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from importlib import resources
from pathlib import Path

from cogsim._untrusted import printable, read_file

ENV = "COGSIM_KIDGYM_ASSETS"
MAX_IMAGE_BYTES = 4 << 20  # the largest release image is 267 KiB


class AssetsMissing(ValueError):
    """The release's image files are not where cogsim looks for them."""


def assets_root() -> Path:
    """The folder of the installed release files: ``$COGSIM_KIDGYM_ASSETS`` (a copy of the release, or
    a folder holding its ``assets/imgs``)."""
    value = os.environ.get(ENV, "")
    if value:
        return Path(value)
    raise AssetsMissing(
        "KidGym's release pictures need the release's image files (BoBo-Ye/KidGym "
        f"{manifest()['commit'][:7]}): set {ENV}=DIR to a copy of the release, or pass look='cogsim'"
    )


@lru_cache(maxsize=None)
def manifest() -> dict:
    """The shipped manifest: benchmark, repository, commit, archive_url, files {path: {sha256, size}}."""
    text = resources.files("cogsim.benchmarks.kidgym").joinpath("release_assets.json").read_text(encoding="utf-8")
    return json.loads(text)


def read_image_file(root: Path, path: str) -> bytes:
    """The bytes of the release file ``path`` (a manifest path) under ``root``: a regular file of at most
    4 MiB inside the folder (a link out of it is refused); AssetsMissing (one line) when it is not there."""
    if path not in manifest()["files"]:
        raise ValueError(f"{printable(path)} is not one of the KidGym release files cogsim draws with")
    full = Path(root) / path
    if full.exists() and not full.resolve().is_relative_to(Path(root).resolve()):
        raise ValueError(f"KidGym release file {path} under {printable(os.fspath(root))} links outside that folder")
    if not full.exists():
        raise AssetsMissing(
            f"KidGym release file {path} is missing from {printable(os.fspath(root))}; point {ENV} at a copy of "
            f"{manifest()['repository']} {manifest()['commit'][:7]}, or pass look='cogsim'"
        )
    return read_file(full, "KidGym release image", MAX_IMAGE_BYTES)


def verify(root: Path) -> list[str]:
    """The manifest's files under ``root`` that are missing or differ from the manifest (empty: all match)."""
    wrong = []
    for path, expected in manifest()["files"].items():
        try:
            data = read_image_file(root, path)
        except ValueError:
            wrong.append(path)
            continue
        if len(data) != expected["size"] or hashlib.sha256(data).hexdigest() != expected["sha256"]:
            wrong.append(path)
    return wrong
