import os
import tempfile
from pathlib import Path

import pytest

# Tests share one table cache inside the build tree (fresh on CI, reused between local runs).
os.environ.setdefault("COGSIM_CACHE", str(Path(__file__).resolve().parents[1] / "build" / "test-cache"))
# The run key that signs the runs tests create lives in a fresh folder, never in the user's config.
os.environ.setdefault("COGSIM_CONFIG", tempfile.mkdtemp(prefix="cogsim-config-"))


@pytest.fixture(scope="session")
def cube_oracle():
    from cogsim import cube

    return cube.configure(progress=None)
