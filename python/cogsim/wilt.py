"""``from cogsim import wilt``: the public WILT API (rule compiler, batched rule VM, equivalence
checks, the paper's splits), kept at this name for users; the code lives in
``cogsim.benchmarks.wilt``."""

from cogsim.benchmarks.wilt import *  # noqa: F403
from cogsim.benchmarks.wilt import __all__  # noqa: F401
