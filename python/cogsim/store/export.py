"""Exports from a run directory: JSONL trajectories, and chat-format SFT data from scripted rollouts
(as RNG-Bench fine-tuned on optimal play)."""

from __future__ import annotations

import json
import os
import stat
from dataclasses import asdict
from pathlib import Path
from typing import Optional, Sequence

from cogsim._files import atomic_writer, refuse_links
from cogsim._untrusted import size_text
from cogsim.store.sqlite import DB_NAME, StoreError, open_store

MAX_EPISODE_TEXT_BYTES = 256 << 20  # the text of one episode an SFT export holds at once


def _output(run_dir: str | Path, path: str | Path):
    """A writer for an export file, which must not be one of the run's own files; the file appears
    only when the export is complete."""
    return atomic_writer(checked_output(run_dir, path), text=True)


def checked_output(run_dir: str | Path, path: str | Path) -> Path:
    """The path of an export file, its folder resolved but not the name itself: a symbolic link at
    the name is replaced by the export, never followed. ValueError if it is one of the run's own
    files or a directory."""
    given = Path(path)
    target = given.parent.resolve() / given.name
    run = Path(run_dir).resolve()
    if target.parent == run and (target.name.startswith(DB_NAME) or target.name == "run.lock"):
        raise ValueError(f"--out {path}: that is the run's own store; write the export to another file")
    if target.is_dir() and not target.is_symlink():
        raise ValueError(f"--out {path} is a directory; give a file name such as run.jsonl")
    return target


def export_jsonl(run_dir: str | Path, path: str | Path) -> int:
    """One JSON line per stored episode: its record (config fields and outcome) and every turn (with
    ``system_prompt`` where the turn was sent a system prompt other than its episode's first).
    Episodes and their turns are read and written one at a time, so neither a long run nor a long
    episode ever sits in memory whole."""
    count = 0
    with open_store(run_dir) as store, _output(run_dir, path) as out:
        for episode in store.iter_episodes(("done", "truncated", "error", "running")):
            out.write(json.dumps(episode)[:-1] + ', "trajectory": [')  # the record, its turns appended
            for index, turn in enumerate(store.iter_turns(episode["episode_id"])):
                record = asdict(turn)
                if record["system_prompt"] is None:
                    del record["system_prompt"]
                out.write((", " if index else "") + json.dumps(record))
            out.write("]}\n")
            count += 1
    return count


def export_sft(
    run_dir: str | Path,
    path: str | Path,
    agents: Sequence[str] = ("oracle",),
    per_turn: bool = False,
    history: Optional[str] = None,
) -> int:
    """Chat-format training examples ({"messages": [...]}) from finished episodes of ``agents``.

    Default: one example per episode and seat, the whole conversation. ``per_turn``: one example per
    turn holding exactly the context the agent saw (the episode's history policy, or ``history``),
    ending with its answer. Images are absolute paths of the stored frames, the PNG or JPEG bytes the
    model was sent (the suffix says which): every reference must be the content key of a regular file
    inside the run's ``images/`` (the store is untrusted). An
    episode holding more than MAX_EPISODE_TEXT_BYTES of text is refused. Returns the example count.
    """
    from cogsim.agents.base import Message
    from cogsim.agents.history import HistoryPolicy

    run_dir = Path(run_dir).resolve()
    count = 0
    with open_store(run_dir) as store, _output(run_dir, path) as out:
        images = _ImageFiles(run_dir)
        rows = store.finished_episode_heads()  # read one at a time
        for episode_id, env_id, agent, seed, system_prompt, stored_history in rows:
            if agent not in agents:
                continue
            policy = HistoryPolicy.parse(history or (stored_history if per_turn else "full"))
            past: dict[int, list] = {}
            meta = {"env_id": env_id, "seed": seed, "agent": agent}
            held = len(system_prompt or "")
            for turn in store.iter_turns(episode_id):
                held += len(turn.prompt) + len(turn.response)
                if held > MAX_EPISODE_TEXT_BYTES:
                    raise StoreError(
                        f"{store.path}: episode {episode_id} holds more than {size_text(MAX_EPISODE_TEXT_BYTES)} of "
                        "text; cogsim exports SFT examples of episodes up to that size"
                    )
                where = f"episode {episode_id} turn {turn.turn}"
                user = Message("user", turn.prompt, tuple(images.path(ref, where, store.path) for ref in turn.images))
                seat_past = past.setdefault(turn.player, [])
                if per_turn:
                    sent = policy.messages(turn.system(system_prompt), seat_past, user)
                    messages = sent + [Message("assistant", turn.response)]
                    out.write(json.dumps({"messages": _chat(messages), **meta, "turn": turn.turn}) + "\n")
                    count += 1
                seat_past.append((user, turn.response))
            if not per_turn:
                for player, exchanges in sorted(past.items()):
                    messages = [Message("system", system_prompt)] if system_prompt else []
                    for user, answer in exchanges:
                        messages += [user, Message("assistant", answer)]
                    out.write(json.dumps({"messages": _chat(messages), **meta, "player": player}) + "\n")
                    count += 1
    return count


class _ImageFiles:
    """Absolute paths of a run's stored frames, each checked once: a regular file (no link) in the
    run's own images/ folder, also free of links."""

    def __init__(self, run_dir: Path):
        self.run_dir = run_dir
        self.checked: set[str] = set()

    def path(self, ref: str, where: str, store_path: Path) -> str:
        path = self.run_dir / ref  # ref is images/ab/<key>.png or .jpg: the store checked its form
        if ref not in self.checked:
            refuse_links(self.run_dir / "images", path.parent)
            try:
                info = os.lstat(path)
            except OSError:
                info = None
            if info is None or not stat.S_ISREG(info.st_mode):
                raise StoreError(
                    f"{store_path}: {where} shows {ref}, which is not a regular file in the run's images/ folder; "
                    "restore the run's images or export without them (--format jsonl)"
                )
            self.checked.add(ref)
        return str(path)


def _chat(messages) -> list[dict]:
    chat = []
    for message in messages:
        if message.images:
            content = [{"type": "image", "image": path} for path in message.images]
            content.append({"type": "text", "text": message.text})
            chat.append({"role": message.role, "content": content})
        else:
            chat.append({"role": message.role, "content": message.text})
    return chat
