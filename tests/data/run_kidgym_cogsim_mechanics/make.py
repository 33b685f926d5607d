"""A run of KidGym's earlier mechanics (``mechanics="cogsim"``, drawn in cogsim's look), interrupted after
two lockstep steps so that some episodes are finished and some still open: ``python make.py DIR``.
Then ``report.md`` and ``run.jsonl`` are what ``cogsim report`` and ``cogsim export`` gave for it."""

import sys

from cogsim.harness import RunConfig, Task, run


class Stop(Exception):
    pass


steps = []


def progress(ended, turns, failures):
    steps.append(turns)
    if len(steps) == 2:
        raise Stop


earlier = {"mechanics": "cogsim", "look": "cogsim", "cell_size": 32}
tasks = [
    Task("kidgym/placement", 2, dict(earlier)),
    Task("kidgym/decode", 2, dict(earlier, level=2)),
    Task("kidgym/maze", 2, dict(earlier)),
]
config = RunConfig(tasks, ["oracle", "random"], seed=0, workers=1, concurrency=16)
try:
    run(config, sys.argv[1], progress=progress)
except Stop:
    print("stopped after", steps)
