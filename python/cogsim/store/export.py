"""Exports from a run directory: JSONL trajectories, and chat-format SFT data from scripted rollouts
(as RNG-Bench fine-tuned on optimal play)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Optional, Sequence

from cogsim._files import atomic_writer
from cogsim.store.sqlite import DB_NAME, open_store


def _output(run_dir: str | Path, path: str | Path):
    """A writer for an export file, which must not be one of the run's own files; the file appears
    only when the export is complete."""
    return atomic_writer(checked_output(run_dir, path), text=True)


def checked_output(run_dir: str | Path, path: str | Path) -> Path:
    """The resolved path of an export file; ValueError if it is one of the run's own files or a directory."""
    target = Path(path).resolve()
    run = Path(run_dir).resolve()
    if target.parent == run and (target.name.startswith(DB_NAME) or target.name == "run.lock"):
        raise ValueError(f"--out {path}: that is the run's own store; write the export to another file")
    if target.is_dir():
        raise ValueError(f"--out {path} is a directory; give a file name such as run.jsonl")
    return target


def export_jsonl(run_dir: str | Path, path: str | Path) -> int:
    """One JSON line per stored episode: its record (config fields and outcome) and every turn."""
    count = 0
    with open_store(run_dir) as store, _output(run_dir, path) as out:
        for episode in store.episodes(("done", "truncated", "error", "running")):
            turns = store.turns(episode["episode_id"])
            episode["trajectory"] = [asdict(t) for t in turns]
            out.write(json.dumps(episode) + "\n")
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
    ending with its answer. Images are absolute paths of the stored PNGs. Returns the example count.
    """
    from cogsim.agents.base import Message
    from cogsim.agents.history import HistoryPolicy

    run_dir = Path(run_dir).resolve()
    count = 0
    with open_store(run_dir) as store, _output(run_dir, path) as out:
        rows = store.finished_episode_heads()
        for episode_id, env_id, agent, seed, system_prompt, stored_history in rows:
            if agent not in agents:
                continue
            policy = HistoryPolicy.parse(history or (stored_history if per_turn else "full"))
            past: dict[int, list] = {}
            meta = {"env_id": env_id, "seed": seed, "agent": agent}
            for turn in store.turns(episode_id):
                user = Message("user", turn.prompt, tuple(str(run_dir / ref) for ref in turn.images))
                seat_past = past.setdefault(turn.player, [])
                if per_turn:
                    messages = policy.messages(system_prompt, seat_past, user) + [Message("assistant", turn.response)]
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
