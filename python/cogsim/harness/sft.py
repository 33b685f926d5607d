"""Chat-format SFT data from optimal rollouts of the RNG-Bench games (pairs/single, maze3d/nav).

Training and evaluation use disjoint seed ranges, so a model tuned on TRAIN_SEEDS is evaluated on
boards and mazes it has never seen. A record is {"messages": [...], "meta": {...}}; a message's
content is a string, or a list of {"type": "image", "image": "data:image/png;base64,..."} (or
"data:image/jpeg;..." for an env whose release sends JPEG: the bytes a model gets, ``frame_format()``)
and {"type": "text", "text": ...} parts when the turn carries images. With the env's history policy
"full" a record is one whole episode; with "last:K" or "current" there is one record per step
holding the window the model would have seen.
"""

from __future__ import annotations

import base64
import json
from typing import Iterable, Iterator, Optional, Sequence, Union

import numpy as np

from cogsim._files import atomic_writer

EVAL_SEEDS = range(0, 1_000_000)
TRAIN_SEEDS = range(1_000_000, 2_000_000)
SPLITS = {"train": TRAIN_SEEDS, "eval": EVAL_SEEDS}
_SINGLE_PLAYER = {"pairs/single": "oracle", "maze3d/nav": "oracle"}


def _size_options(env_id: str, size) -> dict:
    if env_id == "maze3d/nav":
        return {"size": int(size)}
    rows, cols = size
    return {"rows": int(rows), "cols": int(cols)}


def _content(obs: dict, frame_format: dict) -> Union[str, list]:
    if not obs["images"]:
        return obs["text"]
    from cogsim.render.frames import encode_frames, media_type

    prefix = f"data:{media_type(frame_format)};base64,"
    parts = [
        {"type": "image", "image": prefix + base64.b64encode(data).decode()}
        for data in encode_frames(obs["images"], frame_format)
    ]
    return parts + [{"type": "text", "text": obs["text"]}]


def _windows(history: str, turns: list) -> Iterator[list]:
    if history == "full":
        yield turns
        return
    keep = 1 if history == "current" else int(history.split(":")[1])
    for end in range(1, len(turns) + 1):
        yield turns[max(0, end - keep) : end]


def sft_records(
    env_id: str, sizes: Sequence, seeds: Iterable[int], split: str = "train", options: Optional[dict] = None
) -> Iterator[dict]:
    """Optimal-policy rollouts for every size x seed, as chat records.

    ``sizes``: maze sides (maze3d/nav) or (rows, cols) boards (pairs/single); ``seeds`` must all lie
    in the split's range (TRAIN_SEEDS for "train", EVAL_SEEDS for "eval")."""
    from cogsim.envs import make

    if env_id not in _SINGLE_PLAYER:
        raise ValueError(f"env_id must be one of {', '.join(_SINGLE_PLAYER)}, got {env_id!r}")
    if split not in SPLITS:
        raise ValueError(f"split must be 'train' or 'eval', got {split!r}")
    seeds = [int(s) for s in seeds]
    outside = [s for s in seeds if s not in SPLITS[split]]
    if outside:
        allowed = SPLITS[split]
        raise ValueError(f"seeds for split {split!r} must lie in [{allowed.start}, {allowed.stop}), got {outside[0]}")
    for size in sizes:
        env = make(env_id, **{**(options or {}), **_size_options(env_id, size)})
        for seed in seeds:
            yield from _episode_records(env, seed, split)
        env.close()


def _episode_records(env, seed: int, split: str) -> Iterator[dict]:
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    turns = []
    while True:
        response = env.scripted_response(_SINGLE_PLAYER[env.env_id], rng)
        turns.append(
            ({"role": "user", "content": _content(obs, env.frame_format())}, {"role": "assistant", "content": response})
        )
        obs, _, terminated, truncated, info = env.step(response)
        if terminated or truncated:
            break
    system = [{"role": "system", "content": env.system_prompt}] if env.system_prompt else []
    meta = {
        "env_id": env.env_id,
        "options": dict(env.options),
        "seed": seed,
        "split": split,
        "episode": info["episode"],
    }
    for window in _windows(env.default_history, turns):
        yield {"messages": system + [m for turn in window for m in turn], "meta": meta}


def write_jsonl(records: Iterable[dict], path) -> int:
    """Writes records one JSON object per line (the file appears when all are written; a link at
    ``path`` is replaced, not written through); returns how many."""
    count = 0
    with atomic_writer(path, text=True) as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    return count
