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

# KidGym's release look draws from the release's image files: the release's own under COGSIM_RELEASES,
# else a stand-in pack of the same files (names, sizes, modes) with made-up pixels (tests/kidgym_standin.py).
KIDGYM_RELEASE = Path(os.environ.get("COGSIM_RELEASES", "/nonexistent")) / "KidGym"
KIDGYM_STANDIN = Path(os.environ["COGSIM_CACHE"]) / "kidgym-release-standin"
if "COGSIM_KIDGYM_ASSETS" not in os.environ:
    os.environ["COGSIM_KIDGYM_ASSETS"] = str(KIDGYM_RELEASE if KIDGYM_RELEASE.is_dir() else KIDGYM_STANDIN)


@pytest.fixture(scope="session", autouse=True)
def kidgym_release_images():
    """The folder of KidGym release images the tests draw with (the stand-in pack is made on first use)."""
    folder = Path(os.environ["COGSIM_KIDGYM_ASSETS"])
    if folder == KIDGYM_STANDIN:
        from kidgym_standin import make_standin

        make_standin(folder)
    return folder


@pytest.fixture(scope="session")
def cube_oracle():
    from cogsim import cube

    return cube.configure(progress=None)
