"""A text run made by cogsim before the store kept each prompt once (store schema 3), interrupted
after three lockstep steps so that a resume has episodes to continue: ``python make.py DIR``."""

import sys

from cogsim.harness import RunConfig, Task, run


class Stop(Exception):
    pass


steps = []


def progress(ended, turns, failures):
    steps.append(turns)
    if len(steps) == 3:
        raise Stop


tasks = [
    Task("cube/optimal-move", 4, {"modality": "text", "depth": 2}),
    Task("cube/closed-loop", 2, {"modality": "text", "depth": 2}),
    Task("wilt/lite", 1, {}),
    Task("pairs/single", 1, {"modality": "text", "rows": 2, "cols": 2}),
    Task("kidgym/maze", 2, {"images": False}),
]
config = RunConfig(tasks, ["oracle", "random"], seed=0, workers=1, concurrency=32)
try:
    run(config, sys.argv[1], progress=progress)
except Stop:
    print("stopped after", steps)
