"""A run made by cogsim before JPEG frames (stored frames are PNGs named by their pixels' SHA-256),
interrupted after two lockstep steps so that a resume has episodes to continue: ``python make.py DIR``."""

import sys

from cogsim.harness import RunConfig, Task, run


class Stop(Exception):
    pass


steps = []


def progress(ended, turns, failures):
    steps.append(turns)
    if len(steps) == 2:
        raise Stop


tasks = [Task("pairs/single", 2, {"modality": "image", "rows": 2, "cols": 2}), Task("maze3d/nav", 1, {"size": 3})]
config = RunConfig(tasks, ["oracle"], seed=0, workers=1, concurrency=8)
try:
    run(config, sys.argv[1], progress=progress)
except Stop:
    print("stopped after", steps)
