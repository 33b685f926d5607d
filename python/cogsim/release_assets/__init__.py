"""The image files of a benchmark's release, installed from the user's copy (``cogsim assets``).

Some benchmarks draw their pictures from image files of the authors' release (RNG-Bench's card
faces, KidGym's sprites). cogsim never ships those files: the user installs them once from a copy of
the release (a checkout, or its .zip or .tar.gz archive) or downloads the pinned commit's archive,
and cogsim keeps exactly the files its pictures need under
``$COGSIM_CACHE/assets/<benchmark>/<commit>/<path in the release>``.

Each benchmark ships a manifest in its folder (``benchmarks/<name>/release_assets.json``): the release's repository,
its commit, the archive's address and, per file, its SHA-256 and size. Every file is checked against
it before it is installed. The user's copy and any archive are untrusted input (docs/security.md):
member names that climb out (``..``, absolute names), links, devices and FIFOs where a needed file
belongs, members larger than the manifest says and files whose hash differs are refused with one
line; other members are ignored; nothing is written outside the assets folder, and no write follows
a link (``place``). The installed set replaces the previous one at once. The installed files are
untrusted too: each is checked against the manifest's SHA-256 before a process first draws from it,
and one found changed, damaged or gone is ReleaseFilesError, a run's fault ``release_files``.

    root("rngbench") -> Path        # the installed files, checked; AssetsMissing (one line) when they are not
    read("rngbench", path) -> bytes  # one installed file (or one in a copy: folder=), its hash checked
    with opened_picture("rngbench", path, data, max_side) as image: ...  # ReleaseFilesError when damaged
    add("rngbench", PATH); fetch("rngbench"); installed()
"""

from cogsim.release_assets.cli import add_cli
from cogsim.release_assets.install import add, fetch
from cogsim.release_assets.lookup import installed, read, root
from cogsim.release_assets.manifests import (
    MANIFEST_VARIABLE,
    AssetsMissing,
    Manifest,
    ReleaseFilesError,
    benchmarks,
    manifest,
    manifest_file,
    missing_message,
    used,
)
from cogsim.release_assets.pictures import opened_picture

__all__ = [
    "MANIFEST_VARIABLE",
    "AssetsMissing",
    "Manifest",
    "ReleaseFilesError",
    "add",
    "add_cli",
    "benchmarks",
    "fetch",
    "installed",
    "manifest",
    "manifest_file",
    "missing_message",
    "opened_picture",
    "read",
    "root",
    "used",
]
