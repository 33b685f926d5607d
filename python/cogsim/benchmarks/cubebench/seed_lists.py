"""Cube Bench seed lists: the items of episodes 0..N-1 of one test and depth in a JSON file, written,
read back (a file cogsim does not trust: bounded, shape-checked) and verified item by item against
what each seed generates (``items``), so an edited list is refused, never trusted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Union

from cogsim.benchmarks.cubebench.items import check_depth, check_seed, make_item, scramble_of
from cogsim.benchmarks.cubebench.prompts import PROMPT_VERSION
from cogsim.cube import Cube
from cogsim.files import load_json, read_file, write_text_atomic

SEED_LIST_FORMAT = "cogsim-cubebench-seed-list/2"
# Lists of format /1 named the older line's sampler "release"; they read it as "release-1ca7d58".
_LEGACY_SEED_LIST_FORMAT = "cogsim-cubebench-seed-list/1"
MAX_SEED_LIST_BYTES = 64 << 20


def build_seed_list(
    test: str,
    depth: int,
    count: int,
    first_seed: int = 0,
    unique_states: bool = False,
    scrambles: str = "cogsim",
    layout: str = "cogsim",
) -> dict:
    """Items for episode indices 0..count-1. Episode i uses seed first_seed + i, unless
    ``unique_states`` skips seeds whose scramble state repeats an earlier one (then the list records
    which seed each index uses)."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"count must be a positive int, got {count!r}")
    depth = check_depth(depth)
    seed, seen, episodes = check_seed(first_seed, "first_seed"), set(), {}
    while len(episodes) < count:
        if unique_states:
            state = Cube.from_moves(" ".join(scramble_of(depth, seed, scrambles))).to_facelets()
            if state in seen:
                seed += 1
                if seed - first_seed > 1000 * count:
                    raise ValueError(f"depth {depth} has fewer than {count} distinct scramble states")
                continue
            seen.add(state)
        index = len(episodes)
        episodes[str(index)] = make_item(test, depth, seed, index, scrambles, layout)
        seed += 1
    return {
        "format": SEED_LIST_FORMAT,
        "prompt_version": PROMPT_VERSION,
        "test": test,
        "depth": depth,
        "episodes": episodes,
    }


def export_seed_list(seed_list: dict, path: Union[str, Path]) -> Path:
    path = Path(path)
    write_text_atomic(path, json.dumps(seed_list, indent=1, sort_keys=True))  # replaces a link, never follows it
    return path


def load_seed_list(source: Union[str, Path, dict]) -> dict:
    """Reads a seed list (a path or an already-loaded dict) and checks its shape and its ground
    truth: each item must equal what its seed generates (so edited lists are refused, not trusted)."""
    if isinstance(source, (str, Path)):
        data = load_json(
            read_file(source, "seed_list", MAX_SEED_LIST_BYTES), f"seed_list {source}", MAX_SEED_LIST_BYTES
        )
    else:
        data = source
    if not isinstance(data, dict) or data.get("format") not in (SEED_LIST_FORMAT, _LEGACY_SEED_LIST_FORMAT):
        raise ValueError(f"seed_list must be a {SEED_LIST_FORMAT} JSON object")
    episodes = data.get("episodes")
    if not isinstance(episodes, dict) or not episodes:
        raise ValueError("seed_list['episodes'] must map episode indices to items")
    if data["format"] == _LEGACY_SEED_LIST_FORMAT:
        legacy = {k: v for k, v in episodes.items() if isinstance(v, dict) and v.get("scrambles") == "release"}
        data = {
            **data,
            "episodes": {**episodes, **{k: {**v, "scrambles": "release-1ca7d58"} for k, v in legacy.items()}},
        }
    return data


def verify_seed_list(data: dict) -> None:
    """Regenerates every item of a seed list from its seed; raises ValueError on any difference."""
    data = load_seed_list(data)
    legacy = data["format"] == _LEGACY_SEED_LIST_FORMAT  # written before the fields of later layouts
    for key, item in data["episodes"].items():
        regenerated = make_item(
            item["test"],
            item["depth"],
            item["seed"],
            item["index"],
            item.get("scrambles", "cogsim"),
            item.get("layout", "cogsim"),
        )
        if legacy:
            regenerated = {k: v for k, v in regenerated.items() if k in item}
        if _jsonable(regenerated) != _jsonable(item):
            raise ValueError(f"seed_list episode {key} differs from what seed {item['seed']} generates")


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True))


def seed_list_item(data: dict, test: str, depth: int, index: int) -> dict:
    item = data["episodes"].get(str(index))
    if item is None:
        raise ValueError(f"seed_list has no episode {index}; it holds {len(data['episodes'])} episodes")
    if item.get("test") != test or item.get("depth") != depth:
        raise ValueError(
            f"seed_list episode {index} is for test {item.get('test')!r} depth {item.get('depth')!r}, "
            f"not {test!r} depth {depth}"
        )
    return item
