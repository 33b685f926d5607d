"""What the runner, the reports and the exports read from a store: each query's SQL beside the
readers of its columns."""

from __future__ import annotations

from array import array
from typing import Any, Iterator, Optional, Sequence

from cogsim.store.connection import StoreConnection
from cogsim.store.records import EpisodeRecords
from cogsim.store.rows import LOOP_SQL, PROMPT_SQL, SELECT_TURNS, SELECT_TURNS_SPEC, SYSTEM_PROMPT_SQL, StoredTurn
from cogsim.store.values import from_db_text


class StoreQueries(StoreConnection):
    """The read side of a store (the writer, Store, adds the rest)."""

    def config_changes(self) -> list[dict]:
        return [
            c
            for (c,) in self._rows(
                "the config changes", "SELECT changes FROM config_changes ORDER BY rowid", (), "changes:change"
            )
        ]

    def config(self) -> Optional[dict]:
        rows = self._rows("the run config", "SELECT config FROM runs WHERE id = 1", (), "config:dict")
        return rows[0][0] if rows else None

    def signature(self) -> Optional[str]:
        """The stored signature of the run config (None: unsigned)."""
        rows = self._rows(
            "the run config's signature", "SELECT signature FROM runs WHERE id = 1", (), "signature:text?"
        )
        return rows[0][0] if rows else None

    def episode_states_in(self, task: int, agent: str, start: int, stop: int) -> dict[int, tuple[int, str]]:
        """episode index -> (episode id, status) of the stored episodes of (task, agent) with index in
        [start, stop): what a runner needs of a chunk of its plan, read by the key's index."""
        rows = self._rows(
            "the episodes",
            "SELECT episode_index, id, status FROM episodes WHERE task = ? AND agent = ? "
            "AND episode_index >= ? AND episode_index < ?",
            (task, agent, start, stop),
            "episode_index:int id:int status:status",
        )
        return {index: (episode_id, status) for index, episode_id, status in rows}

    def finished_count(self, task: int, agent: str, stop: int, statuses: Sequence[str]) -> int:
        """How many stored episodes of (task, agent) with index below ``stop`` have one of ``statuses``."""
        marks = ",".join("?" * len(statuses))
        ((count,),) = self._rows(
            "the episodes",
            f"SELECT COUNT(*) FROM episodes WHERE task = ? AND agent = ? AND episode_index >= 0 "
            f"AND episode_index < ? AND status IN ({marks})",
            (task, agent, stop, *statuses),
            "count:int",
        )
        return count

    def turns(self, episode_id: int) -> list[StoredTurn]:
        return list(self.iter_turns(episode_id))

    def iter_turns(self, episode_id: int) -> Iterator[StoredTurn]:
        """The stored turns of an episode in order, read one at a time."""
        rows = self._iter_rows(f"the turns of episode {episode_id}", SELECT_TURNS, (episode_id,), SELECT_TURNS_SPEC)
        return (StoredTurn(*row) for row in rows)

    def turn_texts(self, episode_id: int, turn: int) -> Optional[tuple[str, str]]:
        """(the prompt as sent, the reply) of one stored turn, None if there is none: how a turn's texts
        are read wherever they are shown (they may be stored once for many turns, ``rows.PROMPT_SQL``)."""
        rows = self._rows(
            "a turn's texts",
            f"SELECT {PROMPT_SQL}, response FROM turns WHERE episode_id = ? AND turn = ?",
            (episode_id, turn),
            "prompt:text response:text",
        )
        return rows[0] if rows else None

    def system_prompt(self, episode_id: int) -> Optional[str]:
        """The system prompt an episode's first turn was sent with (None: none, or no such episode); a
        later turn sent another one holds it (``StoredTurn.system_prompt``, ``StoredTurn.system``)."""
        rows = self._rows(
            "an episode's system prompt",
            f"SELECT {SYSTEM_PROMPT_SQL} FROM episodes WHERE id = ?",
            (episode_id,),
            "system_prompt:text?",
        )
        return rows[0][0] if rows else None

    def episodes(self, statuses: Sequence[str] = ("done",)) -> list[dict]:
        """Episode records as the metrics expect them: the runner's fields plus the env's outcome."""
        return list(self.iter_episodes(statuses))

    def iter_episodes(self, statuses: Sequence[str] = ("done",)) -> Iterator[dict]:
        """The records of ``episodes`` one at a time, in the same order (a long run is never held whole).

        The runner's fields are the store's typed columns: an outcome field of the same name (a stored
        outcome is untrusted) never replaces one, and an episode without an error or a fault has none."""
        return (_record(row) for row in self._episode_rows(statuses, EPISODE_SPEC))

    def episode_records(self, statuses: Sequence[str] = ("done",)) -> EpisodeRecords:
        """The records of ``episodes`` held column by column (``store/records.py``): what a report
        keeps of a run of any size. Records of equal options (agents) share one dict (list), read-only."""
        records = EpisodeRecords()
        shared: dict[tuple, Any] = {}
        for row in self._episode_rows(statuses, EPISODE_SPEC_SHARED):
            values = list(row)
            values[5] = self._shared_value(shared, values[5], "agents", "texts")
            values[8] = self._shared_value(shared, values[8], "options", "dict")
            records.append(_record(values))
        return records

    def episode_envs(self, statuses: Sequence[str]) -> Iterator[tuple[str, list]]:
        """(env id, agents) of the episodes ``iter_episodes`` gives, in its order, one at a time."""
        marks = ",".join("?" * len(statuses))
        return self._iter_rows(
            "the episodes",
            f"SELECT env_id, agents FROM episodes WHERE status IN ({marks}) ORDER BY task, agent, episode_index",
            tuple(statuses),
            "env_id:text agents:texts",
        )

    def _episode_rows(self, statuses: Sequence[str], spec: str) -> Iterator[tuple]:
        marks = ",".join("?" * len(statuses))
        return self._iter_rows(
            "the episodes",
            f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE status IN ({marks}) ORDER BY task, agent, episode_index",
            tuple(statuses),
            spec,
        )

    # -- summaries (the runner's progress and summary, the report's tables) ---------------------------
    def progress_counts(self) -> tuple[int, int, int]:
        """(finished episodes, stored turns, parse failures)."""
        ((finished,),) = self._rows(
            "the episodes", "SELECT COUNT(*) FROM episodes WHERE status != 'running'", (), "finished:int"
        )
        ((turns, failures),) = self._rows(
            "the turns",
            "SELECT COUNT(*), COALESCE(SUM(parse = 'parse_failure'), 0) FROM turns",
            (),
            "turns:int failures:int",
        )
        return finished, turns, failures

    def progress_since(self, mark: Optional[tuple] = None) -> tuple[tuple[int, int, int], tuple]:
        """``progress_counts`` read from where the call that returned ``mark`` left off (None: from
        the start), and the mark for the next call. Only the store's tail is read each time: turns
        past the last one counted, and episodes from the first one still running then (every earlier
        one is finished, and a finished episode stays so while a run writes), so a watcher of a long
        run spends no more on a look at its millionth episode than at its first."""
        first_open, settled, last_turn, turns, failures = mark or (0, 0, 0, 0, 0)
        ((running, finished, last_id),) = self._rows(
            "the episodes",
            "SELECT MIN(CASE WHEN status = 'running' THEN id END), COALESCE(SUM(status != 'running'), 0), MAX(id) "
            "FROM episodes WHERE id >= ?",
            (first_open,),
            "running:int? finished:int last:int?",
        )
        ((new_turns, new_failures, newest),) = self._rows(
            "the turns",
            "SELECT COUNT(*), COALESCE(SUM(parse = 'parse_failure'), 0), MAX(rowid) FROM turns WHERE rowid > ?",
            (last_turn,),
            "turns:int failures:int last:int?",
        )
        counts = (settled + finished, turns + new_turns, failures + new_failures)
        next_open = running if running is not None else (first_open if last_id is None else last_id + 1)
        ((now_settled,),) = self._rows(  # all finished: they are counted from now on without being read
            "the episodes",
            "SELECT COUNT(*) FROM episodes WHERE id >= ? AND id < ?",
            (first_open, next_open),
            "count:int",
        )
        return counts, (next_open, settled + now_settled, last_turn if newest is None else newest, *counts[1:])

    def turn_count(self) -> int:
        return self._rows("the turns", "SELECT COUNT(*) FROM turns", (), "turns:int")[0][0]

    def status_counts(self) -> dict[str, int]:
        rows = self._rows(
            "the episodes", "SELECT status, COUNT(*) FROM episodes GROUP BY status", (), "status:status count:int"
        )
        return dict(rows)

    def turn_totals(self) -> tuple[int, int, int]:
        """(turns, parse failures, turns with a backend error)."""
        return self._rows(
            "the turns",
            "SELECT COUNT(*), COALESCE(SUM(parse = 'parse_failure'), 0), COALESCE(SUM(error IS NOT NULL), 0) FROM turns",
            (),
            "turns:int failures:int errors:int",
        )[0]

    def pending_faults(self) -> dict[str, tuple[int, str]]:
        """Backend faults that stopped still-unfinished episodes: kind -> (episodes, the message of the
        first such episode, the one that stopped the run)."""
        faults = {}
        for kind, count in self._rows(
            "the backend faults",
            "SELECT fault, COUNT(*) FROM episodes WHERE status = 'running' AND fault IS NOT NULL GROUP BY fault",
            (),
            "fault:text count:int",
        ):
            ((first,),) = self._rows(
                "the backend faults",
                "SELECT error FROM episodes WHERE status = 'running' AND fault = ? ORDER BY finished IS NULL, id LIMIT 1",
                (kind,),
                "error:text?",
            )
            faults[kind] = (count, first or "")
        return faults

    def suites(self) -> list[str]:
        rows = self._rows("the episodes", "SELECT DISTINCT suite FROM episodes ORDER BY suite", (), "suite:text")
        return [suite for (suite,) in rows]

    def episode_counts(self) -> list[tuple]:
        """Per (task, agent): task, env_id, agent, episodes, done, truncated, errors, unfinished, stopped
        by a backend fault, stored turns (an interrupted run's unfinished episodes have turns too)."""
        return self._rows(
            "the episodes",
            """SELECT e.task, e.env_id, e.agent, COUNT(*), SUM(e.status = 'done'), SUM(e.status = 'truncated'),
                      SUM(e.status = 'error'), SUM(e.status = 'running' AND e.fault IS NULL),
                      SUM(e.status = 'running' AND e.fault IS NOT NULL), COALESCE(SUM(c.turns), 0)
               FROM episodes e LEFT JOIN (SELECT episode_id, COUNT(*) AS turns FROM turns GROUP BY episode_id) c
               ON c.episode_id = e.id GROUP BY e.task, e.agent ORDER BY e.task, e.agent""",
            (),
            "task:int env_id:text agent:text episodes:int done:int truncated:int errors:int unfinished:int "
            "faulted:int turns:int",
        )

    def turn_stats(self) -> dict[tuple, tuple]:
        """(task, agent) -> (parse failures, invalid answers, replies cut by length, replies with a finish
        reason, mean latency, prompt tokens, completion tokens)."""
        rows = self._rows(
            "the turns",
            """SELECT e.task, e.agent, SUM(t.parse = 'parse_failure'), SUM(t.parse = 'invalid'),
                      SUM(t.finish_reason = 'length'), SUM(t.finish_reason IS NOT NULL), AVG(t.latency_s),
                      SUM(t.prompt_tokens), SUM(t.completion_tokens)
               FROM turns t JOIN episodes e ON e.id = t.episode_id GROUP BY e.task, e.agent""",
            (),
            "task:int agent:text failures:int? invalid:int? cut:int? reasons:int? latency:seconds? prompt_tokens:count? "
            "completion_tokens:count?",
        )
        return {(task, agent): tuple(stats) for task, agent, *stats in rows}

    def finished_rewards(self) -> dict[tuple, array]:
        """(task, agent) -> total rewards of the finished ('done') episodes, as an array of doubles."""
        rewards: dict[tuple, array] = {}
        for task, agent, total in self._iter_rows(
            "the episodes",
            "SELECT task, agent, total_reward FROM episodes WHERE status = 'done'",
            (),
            "task:int agent:text total_reward:real",
        ):
            column = rewards.get((task, agent))
            if column is None:
                column = rewards[(task, agent)] = array("d")
            column.append(total)
        return rewards

    def loop_counts(self) -> Iterator[tuple]:
        """(loop record as stored, episodes) for every distinct loop record (untrusted: any value)."""
        return self._iter_rows(
            "the episodes",
            f"SELECT {LOOP_SQL} AS record, COUNT(*) FROM episodes WHERE record IS NOT NULL GROUP BY record",
            (),
            "loop:any count:int",
        )

    def failed_episodes(self, limit: int) -> list[tuple]:
        """(env_id, agent, seed, error) of the first episodes that ended in an error."""
        return self._rows(
            "the episodes",
            "SELECT env_id, agent, seed, error FROM episodes WHERE status = 'error' ORDER BY id LIMIT ?",
            (limit,),
            "env_id:text agent:text seed:int error:text?",
        )

    def parse_failure_examples(self, limit: int) -> list[tuple]:
        """(env_id, agent, seed, turn, response, backend error) of the first turns the parser rejected."""
        return self._rows(
            "the turns",
            """SELECT e.env_id, t.agent, e.seed, t.turn, t.response, t.error FROM turns t JOIN episodes e
               ON e.id = t.episode_id WHERE t.parse = 'parse_failure' ORDER BY e.id, t.turn LIMIT ?""",
            (limit,),
            "env_id:text agent:text seed:int turn:int response:text error:text?",
        )

    def session_spans(self) -> list[tuple[float, float, int]]:
        """(start, last turn's time, turns) of every session that stored turns, by start."""
        return self._rows(
            "the sessions",
            "SELECT s.started, MAX(t.t), COUNT(*) FROM sessions s JOIN turns t ON t.session = s.id "
            "GROUP BY s.id ORDER BY s.started",
            (),
            "started:time t:time turns:int",
        )

    def process_count(self) -> int:
        return self._rows("the sessions", "SELECT COUNT(DISTINCT pid) FROM sessions", (), "processes:int")[0][0]

    def finished_episode_heads(self) -> Iterator[tuple]:
        """(id, env_id, agent, seed, system prompt, history policy) of the finished episodes, in order,
        read one at a time."""
        return self._iter_rows(
            "the episodes",
            f"SELECT id, env_id, agent, seed, {SYSTEM_PROMPT_SQL}, history FROM episodes WHERE status = 'done' ORDER BY id",
            (),
            "id:int env_id:text agent:text seed:int system_prompt:text? history:text",
        )

    def query(self, sql: str, params: Sequence = ()) -> list[tuple]:
        """Rows of a read query, for tests and ad-hoc inspection (cogsim's own modules use the methods
        above, so the SQL stays in this module); text stored as a BLOB comes back as ``str``."""
        return [
            row if not any(type(v) is bytes for v in row) else tuple(from_db_text(v) for v in row)
            for row in self._rows("a query", sql, params)
        ]


# The runner's fields of an episode record, as ``Store.episodes`` reads them (then the outcome's).
EPISODE_COLUMNS = (
    "id, task, env_id, suite, agent, agents, episode_index, seed, options, status, num_turns, total_reward, "
    "outcome, error, fault"
)
EPISODE_SPEC = (
    "id:int task:int env_id:text suite:text agent:text agents:texts episode_index:int seed:int options:dict "
    "status:status num_turns:count total_reward:real outcome:dict? error:text? fault:text?"
)
# The same, with agents and options left as stored (read once per distinct text by _shared_value).
EPISODE_SPEC_SHARED = EPISODE_SPEC.replace("agents:texts", "agents:any").replace("options:dict", "options:any")


def _record(row: Sequence) -> dict:
    """An episode's record: the typed columns, then each outcome field that has no column's name."""
    (
        episode_id,
        task,
        env_id,
        suite,
        agent,
        agents,
        index,
        seed,
        options,
        status,
        num_turns,
        total_reward,
        outcome,
        error,
        fault,
    ) = row
    record = {
        "env_id": env_id,
        "options": options,
        "seed": seed,
        "agent": agent,
        "agents": agents,
        "turns": num_turns,
        "episode_index": index,
        "task": task,
        "suite": suite,
        "status": status,
        "total_reward": total_reward,
        "episode_id": episode_id,
    }
    if error:
        record["error"] = error
    if fault:
        record["fault"] = fault
    for key, value in (outcome or {}).items():
        if key not in record and key not in RUNNER_FIELDS:
            record[key] = value
    return record


RUNNER_FIELDS = frozenset(
    (
        "env_id",
        "options",
        "seed",
        "agent",
        "agents",
        "turns",
        "episode_index",
        "task",
        "suite",
        "status",
        "total_reward",
        "episode_id",
        "error",
        "fault",
    )
)
