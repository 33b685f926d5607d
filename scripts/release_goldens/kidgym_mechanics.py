"""KidGym's mechanics as the release plays them, recorded for tests (no cogsim code involved).

    COGSIM_RELEASES=DIR PY scripts/release_goldens/kidgym_mechanics.py

DIR/KidGym is a checkout or an extracted archive of BoBo-Ye/KidGym at 083cf1f; PY a Python with the
release's dependencies (gymnasium, Pillow, numpy). It runs the release's own environments, seeding
Python's `random` and numpy's global generator, and writes
tests/benchmarks/kidgym/data/kidgym_release_mechanics.json:

- transcripts: episodes of every task and level played through the release's step(): the scene the
  release generated (its objects with their attributes, in its list order; agent, backpack, action
  list, task fields), then per step the action chosen (its text), what step() returned and the scene
  after it (objects as [image, label, cell], agent, backpack images, action list). Actions are drawn
  at random, half of the episodes among the actions that succeed.
- maze_accepted: per Maze level and layout, every placement of the keys and doors (their cells in the
  order of "order") that the release's check_grid accepts (none: the release's generate_game never
  returns).
- samples: per task and level, what 200 freshly generated scenes hold (kinds and counts of objects,
  backpack sizes, labels, sizes of the first action list, every image shown, backgrounds) to hold
  cogsim's generators to the release's pools and counts.

The pixels are not made, to keep this fast: the tasks' render() runs its state changes (the memory
tasks' render overrides and get_info_img: reveal, rename, drop the side bar, fill the backpack) and
skips the drawing, and image files are read once (LoadImage cached); nothing else is changed.
"""

from __future__ import annotations

import contextlib
import copy
import io
import itertools
import json
import os
import random
import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[2] / "tests" / "benchmarks" / "kidgym" / "data" / "kidgym_release_mechanics.json"
TASKS = {
    "classification": "CL", "puzzle": "PU", "counting": "CO", "placement": "PL", "sorting": "SO", "filling": "FI",
    "maze": "MA", "decode": "DE", "selection": "SE", "memory_maze": "MMA", "memory_filling": "MFI",
    "memory_decode": "MDE", "decode_maze": "DMA",
}  # fmt: skip
ATTRIBUTES = ("c_pk", "c_ct", "c_op", "save", "visible", "memorized", "related_name", "correct_id", "position_id",
              "relate", "value")  # fmt: skip
EPISODES = 4
SAMPLES = 200


def quiet(call, *args):
    with contextlib.redirect_stdout(io.StringIO()):
        return call(*args)


def record(o) -> dict:
    r = {"image": f"{o.type}/{o.name}", "id": o.id, "pos": list(o.pos) if o.pos is not None else None}
    for attribute in ATTRIBUTES:
        if hasattr(o, attribute):
            r[attribute] = getattr(o, attribute)
    return r


def snapshot(env) -> dict:
    return {
        "objects": [record(o) for o in env.grid.objs],
        "agent": [env.agent.pos[0], env.agent.pos[1], env.agent.dir],
        "bag": [record(o) for o in env.bag.objs if o is not None],
        "actions": list(env.actions),
        "step": env.cur_step,
        "show_id": env.grid.show_id,
        "side_bar": env.side_bar,
    }


def seen(env) -> dict:
    """What a step leaves: objects as [image, label, cell], agent, backpack images, the action list."""
    return {
        "objects": [[f"{o.type}/{o.name}", o.id, list(o.pos)] for o in env.grid.objs],
        "agent": [env.agent.pos[0], env.agent.pos[1], env.agent.dir],
        "bag": [f"{o.type}/{o.name}" for o in env.bag.objs if o is not None],
        "actions": list(env.actions),
    }


def task_fields(env) -> dict:
    fields = {"type": env.type, "max_steps": env.max_steps}
    for name in ("collect_num", "orientation", "direction", "iter"):
        if hasattr(env, name):
            fields[name] = getattr(env, name)
    if hasattr(env, "bag_pieces") and env.name == "Memory_Filling":
        fields["pending"] = [record(o) for o in env.bag_pieces]
    if hasattr(env, "mem_objs"):
        fields["remembered"] = env.mem_objs if isinstance(env.mem_objs, list) else [env.mem_objs]
    if hasattr(env, "info"):
        fields["sorting"] = env.info
    if hasattr(env, "place_obj"):
        fields["place"] = env.place_obj.name
    return fields


def succeeds(env, index: int) -> bool:
    trial = copy.deepcopy(env)
    try:
        _, _, _, _, info = quiet(trial.step, index)
    except Exception:  # the release raises on some actions (see docs/fidelity.md)
        return False
    return bool(info["step_success"])


def play(gym, release_id: str, level: int, episode: int, layout: int) -> dict:
    random.seed(1000 * level + episode)
    np.random.seed(1000 * level + episode)
    env = gym.make(f"{release_id}_L{level}").unwrapped
    env.iter = layout - 1  # reset() counts up to it
    quiet(env.reset)
    transcript = {
        "task": release_id,
        "level": level,
        "layout": layout,
        "fields": task_fields(env),
        "start": snapshot(env),
    }
    steps = []
    while True:
        count = len(env.actions)
        choices = [i for i in range(count) if succeeds(env, i)] if episode % 2 else list(range(count))
        index = random.choice(choices or list(range(count)))
        action = env.actions[index]
        try:
            _, _, terminated, truncated, info = quiet(env.step, index)
        except Exception as error:  # recorded: the release's own code raises here
            steps.append({"action": action, "raises": type(error).__name__})
            break
        steps.append(
            {
                "action": action,
                "terminated": bool(terminated),
                "truncated": bool(truncated),
                "step_success": bool(info["step_success"]),
                "task_success": bool(info["task_success"]),
                "after": seen(env),
            }
        )
        if terminated or truncated:
            break
    transcript["steps"] = steps
    return transcript


def accepted_assignments(gym, level: int) -> dict:
    env = gym.make(f"MA_L{level}").unwrapped
    out = {}
    for layout in range(1, 101):
        env.iter = layout
        env.grid.reset()
        quiet(env.generate_scene_and_goal)
        rule = env.data[str(layout)]
        cells = {code: [(i, j) for i in range(5) for j in range(5) if rule[i][j] == code] for code in (0, 2, 3, 4, "A")}
        keys = [o for o in env.grid.objs if o.type == "key"]
        doors = [o for o in env.grid.objs if o.type == "door"]
        env.agent.set_pos(cells["A"][0])
        for o in env.grid.objs:
            if o.name == "wall":
                continue
            if o.name == "diamond":
                o.set_pos(cells[4][0])
        walls = [o for o in env.grid.objs if o.name == "wall"]
        for wall, cell in zip(walls, cells[0]):
            wall.set_pos(cell)
        good = []
        for key_cells in itertools.permutations(cells[2]):
            for door_cells in itertools.permutations(cells[3]):
                for o, cell in zip(keys + doors, key_cells + door_cells):
                    o.set_pos(cell)
                if env.check_grid():
                    good.append([coordinate for o in keys + doors for coordinate in o.pos])
        out[str(layout)] = good
    out["order"] = [f"{o.type}/{o.name}" for o in keys + doors]
    return out


def kinds(images: list, walls: int) -> list:
    """The kinds of objects and how many of each: items of any category count as "item"."""
    counts: dict = {}
    for image in images:
        folder = image.split("/")[0]
        kind = "item" if folder in ("animal", "fruit", "food", "toy") else folder
        counts[kind] = counts.get(kind, 0) + 1
    return [list(item) for item in sorted(counts.items())] + [["walls", walls]]


def samples(gym, release_id: str, level: int) -> dict:
    random.seed(level)
    np.random.seed(level)
    env = gym.make(f"{release_id}_L{level}").unwrapped
    signatures, bags, labels, actions, images, backgrounds = set(), set(), set(), set(), set(), {}
    for k in range(SAMPLES):
        if release_id in ("MA", "DMA", "MMA"):
            env.iter = [1, 2, 4, 5][k % 4] - 1
        quiet(env.reset)
        shown = [f"{o.type}/{o.name}" for o in env.grid.objs if o.name != "wall"]
        bag = [f"{o.type}/{o.name}" for o in env.bag.objs if o is not None]
        signatures.add(json.dumps(kinds(shown, sum(o.name == "wall" for o in env.grid.objs))))
        bags.add(len(bag))
        labels.add(json.dumps(sorted(o.id for o in env.grid.objs if o.id is not None)))
        actions.add(len(env.actions))
        images.update(shown + bag)
        backgrounds[env.type] = backgrounds.get(env.type, 0) + 1
    return {
        "count": SAMPLES,
        "kinds": sorted(json.loads(s) for s in signatures),
        "bag_sizes": sorted(bags),
        "labels": sorted(json.loads(s) for s in labels),
        "action_counts": sorted(actions),
        "images": sorted(images),
        "backgrounds": backgrounds,
    }


def without_pixels() -> None:
    """The release's render() keeps its state changes and skips the drawing; image files are read once."""
    import functools

    import src.task
    import src.utils

    original = src.utils.LoadImage
    load = functools.lru_cache(maxsize=None)(original)
    for module in list(sys.modules.values()):
        if getattr(module, "LoadImage", None) is original:
            module.LoadImage = lambda path, tile_px=None: load(str(path), tile_px).copy()

    def render(self):
        if self.side_bar:
            self.get_info_img()  # the memory tasks change their state here

    src.task.KidGymTask.render = render


def main() -> int:
    root = Path(os.environ.get("COGSIM_RELEASES", "")) / "KidGym"
    if not (root / "src").is_dir():
        print("set COGSIM_RELEASES=DIR with DIR/KidGym a copy of the KidGym release", file=sys.stderr)
        return 2
    sys.path.insert(0, str(root))
    os.chdir(root)
    import gymnasium as gym
    import tasks  # noqa: F401  (registers the release's tasks)

    without_pixels()

    accepted = {str(level): accepted_assignments(gym, level) for level in (1, 2, 3)}
    never = {level: {int(k) for k, v in table.items() if not v} for level, table in accepted.items()}
    # Sorting_L1.json is not published (its blob is missing from the release's repository): the release
    # cannot make a Sorting level 1 episode, so none is recorded
    playable = [(r, level) for r in TASKS.values() for level in (1, 2, 3) if (r, level) != ("SO", 1)]
    transcripts = []
    for release_id, level in playable:
        layouts = [n for n in range(1, 20) if release_id != "MA" or n not in never[str(level)]][:EPISODES]
        for episode in range(EPISODES):
            transcripts.append(play(gym, release_id, level, episode, layouts[episode]))
    data = {
        "source": (
            "BoBo-Ye/KidGym 083cf1f run offline (its tasks' reset and step, Maze.check_grid), random and numpy seeded "
            "per episode; written by scripts/release_goldens/kidgym_mechanics.py"
        ),
        "maze_accepted": accepted,
        "transcripts": transcripts,
        "unplayable": ["SO_L1"],
        "samples": {f"{r}_L{level}": samples(gym, r, level) for r, level in playable},
    }
    OUT.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"wrote {len(transcripts)} transcripts to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
