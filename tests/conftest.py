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


@pytest.fixture(scope="session")
def cube_oracle():
    from cogsim import cube

    return cube.configure(progress=None)
