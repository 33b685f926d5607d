"""Where KidGym's release image files are, and what they must be.

The release's pictures are drawn from the user's own copy of the release's images, never from files in
this package: ``cogsim assets add kidgym PATH`` (or ``fetch``) installs them, checked against the shipped
manifest ``release_assets.json`` (every image the drawing loads, with its SHA-256 and size).
:func:`assets_root` is the one place the envs ask for the folder holding them (paths inside it as in
the release, ``assets/imgs/...``).
"""

from __future__ import annotations

from pathlib import Path

from cogsim import release_assets
from cogsim.files import printable
from cogsim.release_assets import AssetsMissing

BENCHMARK = "kidgym"
MAX_IMAGE_BYTES = 4 << 20  # the largest release image is 267 KiB

__all__ = ["AssetsMissing", "BENCHMARK", "assets_root", "manifest", "read_image_file", "verify"]


def assets_root() -> Path:
    """The folder of the installed release files; AssetsMissing (one line naming the commands that
    install them and ``look=cogsim``) when they are not all there."""
    return release_assets.root(BENCHMARK)


def manifest() -> dict:
    """The manifest in use: benchmark, repository, commit, archive_url, files {path: {sha256, size}}."""
    m = release_assets.manifest(BENCHMARK)
    return {
        "benchmark": m.benchmark,
        "repository": m.repository,
        "commit": m.commit,
        "archive_url": m.archive_url,
        "files": m.files,
    }


def read_image_file(root: Path, path: str) -> bytes:
    """The bytes of the release file ``path`` (a manifest path) under ``root`` (the installed files, or
    a copy of the release), checked against the manifest's size and SHA-256: everything inside ``root``
    opened without following a link or blocking (``release_assets.read``); AssetsMissing (one line)
    when it is missing, not a regular file, or not the release's file."""
    if path not in manifest()["files"]:
        raise ValueError(f"{printable(path)} is not one of the KidGym release files cogsim draws with")
    if manifest()["files"][path]["size"] > MAX_IMAGE_BYTES:
        raise AssetsMissing(
            release_assets.missing_message(BENCHMARK, f"{printable(path)} is larger than any release image")
        )
    return release_assets.read(BENCHMARK, path, Path(root))


def verify(root: Path) -> list[str]:
    """The manifest's files under ``root`` that are missing or differ from the manifest (empty: all match)."""
    wrong = []
    for path in manifest()["files"]:
        try:
            read_image_file(root, path)
        except ValueError:
            wrong.append(path)
    return wrong
