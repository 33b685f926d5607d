"""KidGym's mechanics against the release's own runs (data/kidgym_release_mechanics.json, recorded by
scripts/release_goldens/kidgym_mechanics.py): episodes replayed step by step from the scenes the
release made, the maze layouts and the key placements its check accepts, and its generators' pools
and counts; then the oracle and the random agent on every task and level."""

from __future__ import annotations

import collections
import json
import re
from pathlib import Path

import numpy as np
import pytest

import cogsim
from cogsim import _core
from cogsim.benchmarks.kidgym import TASKS
from cogsim.benchmarks.kidgym import catalog as rc
from cogsim.benchmarks.kidgym.game import ReleasePlay, action_text

DATA = json.loads((Path(__file__).parent / "data" / "kidgym_release_mechanics.json").read_text())
NAMES = {spec.code: name for name, spec in TASKS.items()}
ROLES = {name: i for i, name in enumerate(_core.kidgym_roles())}
VERBS = {name: i for i, name in enumerate(_core.kidgym_verbs())}
ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII")
PIECE_TASKS = ("FI", "PU", "MFI")
UNSHUFFLED = ("CL", "CO")  # the release lists these in object order after the first step
CATALOG = rc.core_catalog()
# Placement's target (dx, dy) from the centre by orientation: levels 1-2 the opposite cell, level 3 one
# step clockwise / anticlockwise from it (the release's check_goal tables)
OPPOSITE = {"north": (0, 1), "south": (0, -1), "west": (1, 0), "east": (-1, 0), "northwest": (1, 1),
            "southwest": (1, -1), "northeast": (-1, 1), "southeast": (-1, -1)}  # fmt: skip
TURNED = {
    "north": {"clockwise": (-1, 1), "anticlockwise": (1, 1)}, "south": {"clockwise": (1, -1), "anticlockwise": (-1, -1)},
    "west": {"clockwise": (1, 1), "anticlockwise": (1, -1)}, "east": {"clockwise": (-1, -1), "anticlockwise": (-1, 1)},
    "northeast": {"clockwise": (-1, 0), "anticlockwise": (0, 1)}, "southeast": {"clockwise": (0, -1), "anticlockwise": (-1, 0)},
    "northwest": {"clockwise": (0, 1), "anticlockwise": (1, 0)}, "southwest": {"clockwise": (1, 0), "anticlockwise": (0, -1)},
}  # fmt: skip


def asset(image: str) -> int:
    folder, name = image.split("/")
    return rc.ASSET_IDS[(folder, name)]


def object_row(o: dict, code: str, fields: dict, in_bag: bool = False) -> list[int]:
    """A release object (its recorded attributes) as the core's row: asset, label, x, y, role, flags, arg, value."""
    folder, name = o["image"].split("/")
    flags = (1 if o.get("c_pk") else 0) | (2 if o.get("visible") is False else 0) | (4 if o.get("memorized") else 0)
    flags |= 8 if "related_name" in o else 0
    arg, value = 0, o.get("value", 0)
    if name == "wall":
        role = "wall"
    elif "save" in o:
        role = "diamond"
    elif name == "treasure":
        role = "treasure"
    elif folder in ("key", "door", "basket"):
        role = folder
        arg = (
            asset(f"key/{o['c_op']}")
            if folder == "door"
            else asset(f"{fields['type']}/{o['c_ct']}")
            if folder == "basket"
            else 0
        )
    elif folder == "roman":
        role, value = "roman", ROMAN.index(name) + 1
        arg = asset(f"animal/{o['relate']}") if "relate" in o else o.get("position_id", 0)
    elif code in PIECE_TASKS and (in_bag or "correct_id" in o):
        role = "piece"
        if "correct_id" in o:
            flags, arg = flags | 16, o["correct_id"]
    elif o.get("position_id") == 5 and code == "PL":
        role = "center"
    else:
        role = "item"
        flags |= 32 if code == "PL" and in_bag else 0
    x, y = o["pos"] if o["pos"] is not None else (0, 0)
    return [asset(o["image"]), 255 if o["id"] is None else o["id"], x, y, ROLES[role], flags, arg, value]


def parse_action(text: str) -> tuple[int, int, int]:
    """An action text of the release's templates as (verb, slot, target)."""
    slot = re.search(r"backpack ([A-D])\b", text)
    slot = "ABCD".index(slot.group(1)) if slot else 0
    label = re.search(r"label (\d+)", text)
    if text == "continue":
        return VERBS["continue"], 0, 0
    if text.startswith("I have already collected"):
        return VERBS["declare"], 0, int(text.split()[4])
    if text.startswith("place"):
        return VERBS["place"], slot, ROMAN.index(text.rsplit(" ", 1)[1]) + 1
    verb = {"pick": "pick", "put ": "put", "obta": "obtain", "use ": "unlock", "choo": "choose"}[text[:4]]
    return VERBS[verb], slot, int(label.group(1))


def facts_of(code: str, level: int, fields: dict, start: dict) -> list[int]:
    if code == "CO":
        item = next(o["image"] for o in start["objects"]).rsplit("_", 1)[0]
        return [fields["collect_num"], asset(f"{item}_1")]
    if code == "SE":
        return [rc.CATEGORIES.index(fields["type"])]
    if code == "PL":
        return [0, 0, 0, asset(start["bag"][0]["image"])]
    if code == "MMA":
        return [asset("maze/treasure")]
    return []


def state_of(transcript: dict):
    code, level, fields, start = transcript["task"], transcript["level"], transcript["fields"], transcript["start"]
    rows = lambda items, bag=False: np.array([object_row(o, code, fields, bag) for o in items], np.uint8).reshape(-1, 8)  # noqa: E731
    target = (0, 0)
    if code == "PL":
        offset = TURNED[fields["orientation"]][fields["direction"]] if level == 3 else OPPOSITE[fields["orientation"]]
        target = (2 + offset[0], 2 + offset[1])
    return _core.kidgym_state(
        TASKS[NAMES[code]].core_id,
        level,
        fields["max_steps"],
        0,
        rows(start["objects"]),
        rows(start["bag"], True),
        rows(fields.get("pending", []), True),
        tuple(start["agent"]),
        facts_of(code, level, fields, start),
        [parse_action(a) for a in start["actions"]],
        start["show_id"],
        start["side_bar"],
        False,
        0,
        target,
        0,
        transcript["layout"] if code in ("MA", "DMA", "MMA") else 0,
    )


def seen(state) -> dict:
    objects = [
        [rc.asset_path(a)[:-4], None if label == 255 else label, [x, y]]
        for a, label, x, y, *_ in state.objects.tolist()
    ]
    return {
        "objects": objects,
        "agent": list(state.agent),
        "bag": [rc.asset_path(r[0])[:-4] for r in state.bag.tolist()],
    }


def recorded(after: dict) -> dict:
    return {"objects": after["objects"], "agent": after["agent"], "bag": after["bag"]}


@pytest.mark.parametrize("transcript", DATA["transcripts"], ids=lambda t: f"{t['task']}_L{t['level']}_{t['layout']}")
def test_release_episodes_replay_step_by_step(transcript):
    """From the scene the release made, each recorded answer leaves cogsim's state as it left the
    release's: objects (in its list order, labels, cells), agent cell and facing, backpack, the action
    list (its order where the release keeps it), whether the action succeeded, and the episode's end."""
    code, spec = transcript["task"], TASKS[NAMES[transcript["task"]]]
    state = state_of(transcript)
    for number, step in enumerate(transcript["steps"], start=1):
        texts = [action_text(spec, state, o) for o in state.options()]
        state.apply(texts.index(step["action"]))
        where = f"{code} L{transcript['level']} step {number}: {step['action']}"
        if "raises" in step:  # the release raises here (an unlock facing no door): cogsim wastes the step
            assert not state.last_step_ok, where
            return
        assert seen(state) == recorded(step["after"]), where
        texts = [action_text(spec, state, o) for o in state.options()]
        if code in UNSHUFFLED:
            assert texts == step["after"]["actions"], where
        else:
            assert sorted(texts) == sorted(step["after"]["actions"]), where
        assert state.last_step_ok == step["step_success"], where
        assert (state.done and not state.truncated) == step["terminated"], where
        if step["terminated"] or step["truncated"]:
            assert state.done and state.success == step["task_success"], where
    assert state.done


def test_transcripts_cover_every_task_and_level():
    played = {(t["task"], t["level"]) for t in DATA["transcripts"]}
    assert played == {(spec.code, level) for spec in TASKS.values() for level in (1, 2, 3)} - {("SO", 1)}
    assert DATA["unplayable"] == ["SO_L1"]  # the release's Sorting_L1.json is not published


@pytest.mark.parametrize("name", ["maze", "decode_maze", "memory_maze"])
@pytest.mark.parametrize("level", [1, 2, 3])
def test_seed_s_plays_layout_s_mod_100_plus_1(name, level):
    env = cogsim.make(f"kidgym/{name}", level=level, images=False)
    layouts = rc.layouts(name, level)
    for seed in (0, 1, 57, 99, 100, 1234):
        env.reset(seed=seed)
        scene = env.scene()
        assert scene["layout"] == seed % 100 + 1
        layout = layouts[seed % 100]
        cells = collections.defaultdict(list)
        for o in scene["objects"]:
            kind = "wall" if o["image"].endswith("/wall.png") else o["image"].split("/")[2]
            cells[kind].append(tuple(o["cell"]))
        code_at = {(i, j): layout[5 * i + j] for i in range(5) for j in range(5)}
        assert sorted(cells["wall"]) == sorted(c for c, code in code_at.items() if code == "0")
        assert sorted(cells["key"]) == sorted(c for c, code in code_at.items() if code == "2")
        assert sorted(cells["door"]) == sorted(c for c, code in code_at.items() if code == "3")
        assert tuple(scene["agent"]["cell"]) == next(c for c, code in code_at.items() if code == "A")


@pytest.mark.parametrize("level", [1, 2, 3])
def test_maze_places_keys_and_doors_as_the_releases_check_accepts(level):
    """Every placement is one the release's Maze.check_grid accepts, each accepted one is drawn; on the
    layouts where it accepts none (the release's generator never returns) any placement is played."""
    accepted = dict(DATA["maze_accepted"][str(level)])
    order = accepted.pop("order")
    never = [int(n) for n, table in accepted.items() if not table]
    assert never == {1: [], 2: [12, 14, 22, 31, 35, 39, 51, 83], 3: [3, 24, 28, 31, 46, 48, 50, 72, 80, 97]}[level]
    play = ReleasePlay(TASKS["maze"], level)
    for layout in range(1, 101):
        table = accepted[str(layout)]
        drawn = set()
        for k in range(20 * len(table) if table else 3):  # n equally likely placements: one missed with p < 1e-7
            state = play.generate(layout - 1 + 100 * k)
            cells = {rc.asset_path(a)[:-4]: (x, y) for a, _, x, y, role, *_ in state.objects.tolist() if role in (2, 3)}
            placement = [coordinate for image in order for coordinate in cells[image]]
            drawn.add(tuple(placement))
            assert not table or placement in table, (layout, placement)
        if table:
            assert drawn == {tuple(p) for p in table}, layout


def _kinds(images: list, walls: int) -> list:
    counts = collections.Counter("item" if i.split("/")[0] in rc.CATEGORIES else i.split("/")[0] for i in images)
    return [list(item) for item in sorted(counts.items())] + [["walls", walls]]


def _cogsim_sample(code: str, level: int, count: int) -> dict:
    play = ReleasePlay(TASKS[NAMES[code]], level)
    kinds, bags, labels, actions, images, backgrounds = [], set(), [], set(), set(), collections.Counter()
    for seed in range(count):
        state = play.generate(seed if code not in ("MA", "DMA", "MMA") else [0, 1, 3, 4][seed % 4] + 100 * seed)
        scene = play.scene(state)
        shown = [o["image"][len("assets/imgs/") : -4] for o in scene["objects"] if not o["image"].endswith("/wall.png")]
        bag = [b[len("assets/imgs/") : -4] for b in scene["backpack"] if b]
        kind = _kinds(shown, len(scene["objects"]) - len(shown))
        kinds += [kind] if kind not in kinds else []
        bags.add(len(bag))
        label = sorted(o["label"] for o in scene["objects"] if o["label"] is not None)
        labels += [label] if label not in labels else []
        actions.add(len(play.texts(state)))
        images.update(shown + bag)
        backgrounds[scene["background"].split("/")[2]] += 1
    return {"kinds": sorted(kinds), "bag_sizes": sorted(bags), "labels": sorted(labels),
            "action_counts": sorted(actions), "images": sorted(images), "backgrounds": backgrounds}  # fmt: skip


@pytest.mark.parametrize("key", sorted(DATA["samples"]))
def test_generators_draw_the_releases_pools_and_counts(key):
    """The same kinds and counts of objects, backpack sizes, labels and first action lists as the
    release's generators, drawn from its pools (every image shown is one the release shows for the
    task, and where 200 draws show them all, the same set), with its backgrounds about as often."""
    code, level = key.rsplit("_L", 1)
    release = DATA["samples"][key]
    ours = _cogsim_sample(code, int(level), release["count"])
    for fact in ("kinds", "bag_sizes", "labels", "action_counts"):
        assert ours[fact] == release[fact], fact
    pool = {f"{folder}/{name}" for folder, name in rc.ASSETS}
    assert set(ours["images"]) <= pool and set(release["images"]) <= pool
    if code not in ("DE", "MDE", "CL", "SE", "PL"):  # few images: 200 draws show them all
        assert ours["images"] == release["images"]
    assert set(ours["backgrounds"]) == set(release["backgrounds"])
    total_variation = sum(abs(ours["backgrounds"][b] - n) for b, n in release["backgrounds"].items()) / 2
    assert total_variation / release["count"] < 0.15


def test_decode_maze_tables_start_at_the_releases_offsets():
    """randint(0, 3) % 3: the first pair is blue -> yellow half the time, red -> blue and yellow -> red a quarter each."""
    play = ReleasePlay(TASKS["decode_maze"], 2)
    first = collections.Counter(rc.asset_path(play.generate(seed).facts[0]) for seed in range(4000))
    assert first.keys() == {"key/blue.png", "key/red.png", "key/yellow.png"}
    assert abs(first["key/blue.png"] / 4000 - 0.5) < 0.03 and abs(first["key/red.png"] / 4000 - 0.25) < 0.03


@pytest.mark.parametrize("name", sorted(TASKS))
@pytest.mark.parametrize("level", [1, 2, 3])
def test_oracle_solves_every_episode_the_release_makes_solvable(name, level):
    """The oracle succeeds wherever a plan exists; only Decode Maze at levels 2-3 has release episodes
    with none (its check_grid accepts every placement of the keys)."""
    seeds = list(range(40))
    success, _ = _core.kidgym_play(TASKS[name].core_id, level, seeds, CATALOG, "oracle")
    plans = [ReleasePlay(TASKS[name], level).generate(s).oracle_plan_length() for s in seeds]
    assert [bool(x) for x in success] == [p > 0 for p in plans]
    if not (name == "decode_maze" and level > 1):
        assert success.all()


# The chance a uniform random choice among the options succeeds, where one choice decides.
CHANCE = {
    ("decode", 1): 1 / 4, ("decode", 2): 1 / 6, ("decode", 3): 1 / 8,
    ("memory_decode", 1): 1 / 4, ("memory_decode", 2): 1 / 6, ("memory_decode", 3): 1 / 8,
    ("placement", 1): 1 / 4, ("placement", 2): 1 / 8, ("placement", 3): 1 / 8,
    ("selection", 1): 1 / 4, ("filling", 1): 1 / 4, ("puzzle", 1): 1 / 4, ("memory_filling", 1): 1 / 4,
    ("sorting", 1): 1 / 2, ("sorting", 2): 1 / 6, ("sorting", 3): 1 / 24,
}  # fmt: skip


@pytest.mark.parametrize("task_level", sorted(CHANCE), ids=lambda t: f"{t[0]}-{t[1]}")
def test_random_agent_is_at_chance(task_level):
    name, level = task_level
    success, _ = _core.kidgym_play(TASKS[name].core_id, level, list(range(4000)), CATALOG, "random", 5)
    p = CHANCE[task_level]
    assert abs(success.mean() - p) < 5 * np.sqrt(p * (1 - p) / 4000), (success.mean(), p)
