"""The results store: config, content-addressed frames, atomic steps, reading back, exports."""

import json
import sqlite3

import numpy as np
import pytest
from PIL import Image

import loop_envs  # noqa: F401
from cogsim.harness import RunConfig, Task, run
from cogsim.store import EpisodeRow, Store, TurnRow, export_jsonl, export_sft, open_store


def episode(index=0):
    return EpisodeRow(0, "looptest/count", "looptest", "oracle", ("oracle",), index, index, {"a": 1}, "sys", "full")


def turn(ep, number, response="ANSWER: 1", parsed=1):
    return TurnRow(
        ep, number, 0, "oracle", f"prompt {number}", [], [], response, parsed, "ok", 1.0, False, False, 0.001
    )


def test_one_run_per_directory(tmp_path):
    with Store(tmp_path) as store:
        store.init_run({"seed": 1})
        store.init_run({"seed": 1})  # the same config again: fine (resume)
        with pytest.raises(ValueError, match="already holds a different run"):
            store.init_run({"seed": 2})
        assert store.config() == {"seed": 1}
    with pytest.raises(ValueError, match="holds no cogsim run"):
        open_store(tmp_path / "empty")


def test_frames_are_stored_once_by_content(tmp_path):
    rng = np.random.default_rng(0)
    frame = rng.integers(0, 256, (5, 7, 3), dtype=np.uint8)
    with Store(tmp_path) as store:
        ref = store.put_image(frame)
        assert store.put_image(frame.copy()) == ref
        other = store.put_image(frame[:, :6].copy())
    assert ref != other and ref.startswith("images/") and ref.endswith(".png")
    assert np.array_equal(np.asarray(Image.open(tmp_path / ref)), frame)
    assert len(list((tmp_path / "images").rglob("*.png"))) == 2
    assert not list((tmp_path / "images").rglob("*.tmp"))
    with Store(tmp_path) as again:  # a new process finds the file instead of rewriting it
        assert again.put_image(frame) == ref


def test_a_failed_step_commits_nothing(tmp_path):
    with Store(tmp_path) as store:
        store.begin_session()
        first = episode()
        store.write_step([first], [turn(first, 0)], [])
        second, unstored = episode(1), episode(2)
        with pytest.raises(sqlite3.IntegrityError):  # a turn of an episode never started has no episode id
            store.write_step([second], [turn(second, 0), turn(unstored, 0)], [])
        assert store.query("SELECT COUNT(*) FROM episodes") == [(1,)]
        assert store.query("SELECT COUNT(*) FROM turns") == [(1,)]
        first.status, first.num_turns, first.outcome = "done", 2, {"success": True, "score": np.float32(0.5)}
        store.write_step([], [turn(first, 1, parsed={"move": "A"})], [first])
        (record,) = store.episodes()
    assert record["success"] is True and record["score"] == 0.5 and record["turns"] == 2
    assert record["options"] == {"a": 1} and record["agents"] == ["oracle"] and record["env_id"] == "looptest/count"
    with open_store(tmp_path) as store:
        turns = store.turns(record["episode_id"])
    assert [t.parsed for t in turns] == [1, {"move": "A"}] and turns[0].prompt == "prompt 0"


def test_a_step_delivered_twice_is_stored_once(tmp_path):
    """Remote workers' steps may arrive again (a retried delivery): writes are idempotent on the
    episode's key and on (episode, turn), and the first delivery of a turn stands."""
    with Store(tmp_path) as store:
        store.begin_session()
        first = episode()
        store.write_step([first], [turn(first, 0)], [])
        again = episode()  # the same episode key, as a second delivery builds it
        store.write_step([again], [turn(again, 0, parsed="other"), turn(again, 1)], [])
        assert again.id == first.id
        assert store.query("SELECT COUNT(*) FROM episodes") == [(1,)]
        assert [t.parsed for t in store.turns(first.id)] == [1, 1]


def test_exports(tmp_path):
    run(RunConfig([Task("looptest/choice", 2), Task("looptest/duel", 1)], ["oracle", "random"]), tmp_path / "run")
    assert export_jsonl(tmp_path / "run", tmp_path / "all.jsonl") == 2 + 2 + 1
    first = json.loads((tmp_path / "all.jsonl").read_text().splitlines()[0])
    assert first["env_id"] == "looptest/choice" and len(first["trajectory"]) == 3
    assert first["trajectory"][0]["images"][0].startswith("images/")

    assert (
        export_sft(tmp_path / "run", tmp_path / "sft.jsonl") == 2
    )  # oracle choice episodes; the duel is oracle vs random
    example = json.loads((tmp_path / "sft.jsonl").read_text().splitlines()[0])
    roles = [m["role"] for m in example["messages"]]
    assert roles == ["user", "assistant"] * 3
    image = example["messages"][0]["content"][0]
    assert image["type"] == "image" and Image.open(image["image"]).size == (8, 8)
    assert example["messages"][1]["content"] in "ABCD"

    count = export_sft(tmp_path / "run", tmp_path / "turns.jsonl", agents=("oracle",), per_turn=True)
    examples = [json.loads(line) for line in (tmp_path / "turns.jsonl").read_text().splitlines()]
    assert count == len(examples) == 6
    # the choice env's history is last:1: at most one earlier exchange before the current question
    assert [len(e["messages"]) for e in examples[:3]] == [2, 4, 4]

    assert export_sft(tmp_path / "run", tmp_path / "duel.jsonl", agents=("oracle vs random",)) == 2  # one per seat


def test_turn_rows_and_stored_turns_follow_the_one_column_list():
    from dataclasses import fields

    from cogsim.store.rows import StoredTurn, TurnRow
    from cogsim.store.schema import TURN_COLUMNS

    # then the texts a turn names by id beside its columns (schema 5: its own system prompt)
    assert tuple(f.name for f in fields(StoredTurn)) == (*TURN_COLUMNS, "system_prompt")
    assert tuple(f.name for f in fields(TurnRow)) == ("episode", *TURN_COLUMNS, "system_prompt")


def test_an_older_store_is_read_as_it_is_and_migrated_when_opened_for_writing(tmp_path):
    import sqlite3

    from cogsim.store.schema import SCHEMA, SCHEMA_VERSION
    from cogsim.store.sqlite import Store

    run_dir = tmp_path / "old"
    run_dir.mkdir()
    with sqlite3.connect(run_dir / "store.sqlite") as db:  # schema 1: the tables without the later columns
        db.executescript(SCHEMA)
        db.execute("INSERT INTO runs (id, schema_version, created, config) VALUES (1, 1, 0, '{}')")
        db.execute(
            "INSERT INTO episodes (task, env_id, suite, agent, agents, episode_index, seed, options, history, status, "
            "started, session) VALUES (0, 'looptest/count', 'looptest', 'oracle', '[\"oracle\"]', 0, 0, '{}', 'full', "
            "'running', 0, 0)"
        )
    before = (run_dir / "store.sqlite").read_bytes()
    with open_store(run_dir) as store:  # read-only: the later columns read as older rows have them
        assert store.pending_faults() == {} and store.episodes(("running",))[0]["env_id"] == "looptest/count"
        assert store.query("SELECT schema_version FROM runs")[0][0] == 1
    assert (run_dir / "store.sqlite").read_bytes() == before
    with Store(run_dir) as store:
        assert store.query("SELECT schema_version FROM runs")[0][0] == SCHEMA_VERSION == 5
        turn_columns = {row[1] for row in store.query("PRAGMA table_info(turns)")}
        assert {"finish_reason", "history_dropped", "prompt_text", "system_text"} <= turn_columns
        assert "signature" in {row[1] for row in store.query("PRAGMA table_info(runs)")}
        assert "system_text" in {row[1] for row in store.query("PRAGMA table_info(episodes)")}
        assert store.query("SELECT COUNT(*) FROM texts") == [(0,)]


def test_a_system_prompt_that_changes_by_turn_is_stored_with_its_turn(tmp_path):
    """Cube Bench's reflection sends each of its three calls its own system prompt: the store keeps
    what each turn was sent (the first as the episode's, a later one with its turn), and the per-turn
    SFT export and the viewer's rebuilt prompt carry each turn's own."""
    from cogsim import make
    from cogsim.store.browse import episode_head, prompt_at

    options = {"depth": 1, "modality": "text"}
    run(RunConfig([Task("cube/reflection", 2, options)], ["random_then_hint"]), tmp_path / "run")
    sent_by_turn = []
    with open_store(tmp_path / "run") as store:
        for episode_id, _, _, seed, episode_system, _ in list(store.finished_episode_heads()):
            env = make("cube/reflection", **options)
            env.reset(seed=seed)
            turns = store.turns(episode_id)
            sent = []
            for stored in turns:  # replay: the system prompt in force when each reply was asked for
                sent.append(env.system_prompt)
                env.step(stored.response)
            assert store.system_prompt(episode_id) == episode_system
            assert len(turns) == 3 and len(set(sent)) == 3 and episode_system == sent[0]
            assert [t.system_prompt for t in turns] == [None, sent[1], sent[2]]
            assert [t.system(episode_system) for t in turns] == sent
            head = episode_head(store, episode_id)
            assert [prompt_at(store, head, t, None).messages[0].text for t in range(3)] == sent
            sent_by_turn += sent
    count = export_sft(tmp_path / "run", tmp_path / "turns.jsonl", agents=("random_then_hint",), per_turn=True)
    examples = [json.loads(line) for line in (tmp_path / "turns.jsonl").read_text().splitlines()]
    assert count == 6 and [e["messages"][0] for e in examples] == [
        {"role": "system", "content": text} for text in sent_by_turn
    ]
