"""Results store: one SQLite database (WAL) per run directory, plus content-addressed PNG frames.

    DIR/store.sqlite     runs (the config), sessions, episodes, turns, texts, metrics
    DIR/images/ab/<sha256>.png   every frame a prompt showed, written once

Each prompt and system prompt is stored once in ``texts`` however many turns and episodes showed it
(``rows.PROMPT_SQL`` reads a turn's prompt, ``Store.turn_texts`` a turn's prompt and reply).

Crash safety: the runner commits each lockstep step in one transaction (its turns, the episodes
it started and finished); images are written (atomically) before the rows that name them. A
killed process loses at most the step in flight, which was not yet a completed turn; resuming
replays the stored turns of unfinished episodes and goes on. WAL with ``synchronous=NORMAL`` is
durable against a killed process; against power loss the last transactions may roll back.
"""

from cogsim.store.export import export_jsonl, export_sft
from cogsim.store.rows import EpisodeRow, TurnRow
from cogsim.store.sqlite import Store, open_store

__all__ = ["Store", "EpisodeRow", "TurnRow", "open_store", "export_jsonl", "export_sft"]
