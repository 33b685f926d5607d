import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

# Tests share one table cache inside the build tree (fresh on CI, reused between local runs).
os.environ.setdefault("COGSIM_CACHE", str(Path(__file__).resolve().parents[1] / "build" / "test-cache"))
# The run key that signs the runs tests create lives in a fresh folder, never in the user's config.
if "COGSIM_CONFIG" not in os.environ:
    os.environ["COGSIM_CONFIG"] = tempfile.mkdtemp(prefix="cogsim-config-")
    atexit.register(shutil.rmtree, os.environ["COGSIM_CONFIG"], ignore_errors=True)

# KidGym's release look draws from the release's image files, installed as a user installs them
# (`cogsim assets add kidgym PATH`) into the tests' cache: the release's own under COGSIM_RELEASES, else
# a stand-in pack of the same files (names, sizes, modes) with made-up pixels and a manifest of its own
# (tests/kidgym_standin.py), named by the variable that spawned workers inherit too.
KIDGYM_RELEASE = Path(os.environ.get("COGSIM_RELEASES", "/nonexistent")) / "KidGym"
if not KIDGYM_RELEASE.is_dir():
    os.environ.setdefault(
        "COGSIM_ASSETS_MANIFEST_KIDGYM", str(Path(os.environ["COGSIM_CACHE"]) / "kidgym-standin" / "manifest.json")
    )


@pytest.fixture(scope="session", autouse=True)
def kidgym_release_images():
    """The installed KidGym release images the tests draw with (installed once per cache)."""
    from kidgym_standin import install_kidgym_images

    return install_kidgym_images(KIDGYM_RELEASE)


@pytest.fixture(scope="session")
def cube_oracle():
    from cogsim import cube

    return cube.configure(progress=None)
