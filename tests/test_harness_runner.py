"""The lockstep runner on the small envs of loop_envs: scripted agents, model backends, duels,
errors, determinism and resume."""

import platform
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import loop_envs  # noqa: F401  (registers the looptest envs and metrics)
from cogsim.agents import Completion, ModelBackend, register_backend
from cogsim.harness import PendingSlots, Plan, RunConfig, Task, plan, run
from cogsim.harness import slots as slots_module
from cogsim.store import open_store
from cogsim.store.rows import LOOP_SQL, PROMPT_SQL


class CountingModel(ModelBackend):
    """Answers the count env from the conversation alone: one more than its earlier answers. Right
    with full history, always 1 with the current observation only. Records every batch."""

    calls: list = []
    decodings: list = []
    fail_after: int = -1
    healthy: bool = False  # "flaky" answers like "m" once healed

    def __init__(self, model, **options):
        self.model = model
        self.options = options

    def complete(self, conversations, decoding=None):
        CountingModel.calls.append([list(c) for c in conversations])
        CountingModel.decodings.append(decoding)
        if len(CountingModel.calls) == CountingModel.fail_after:
            raise RuntimeError("backend crashed")
        answers = []
        for conversation in conversations:
            said = sum(m.role == "assistant" for m in conversation)
            if self.model == "flaky" and said == 1 and not CountingModel.healthy:
                answers.append(Completion(None, error="HTTP 500 (gave up)"))
            elif self.model == "small-context" and said > 2:
                answers.append(Completion(None, error="HTTP 400: maximum context length exceeded"))
            else:
                answers.append(Completion(f"ANSWER: {said + 1}", latency_s=0.01, prompt_tokens=7, completion_tokens=3))
        return answers


register_backend("counting", CountingModel)


@pytest.fixture(autouse=True)
def fresh_model():
    CountingModel.calls, CountingModel.decodings = [], []
    CountingModel.fail_after = -1
    CountingModel.healthy = False


def rows(run_dir, sql):
    with open_store(run_dir) as store:
        return store.query(sql)


def turns_of(run_dir):
    return rows(
        run_dir,
        f"SELECT e.task, e.agent, e.episode_index, t.turn, t.player, t.agent, {PROMPT_SQL}, t.images, t.response, "
        "t.parsed, "
        "t.parse, t.reward, t.terminated FROM turns t JOIN episodes e ON e.id = t.episode_id ORDER BY 1, 2, 3, 4",
    )


def outcomes_of(run_dir):
    return rows(
        run_dir,
        "SELECT task, agent, episode_index, seed, status, num_turns, total_reward, outcome FROM episodes ORDER BY 1, 2, 3",
    )


def test_oracle_run_matches_hand_computation(tmp_path):
    # seeds 0..4 -> targets 3, 4, 5, 6, 3: the oracle says each number once
    summary = run(RunConfig([Task("looptest/count", 5)], ["oracle"], concurrency=2), tmp_path)
    assert summary.finished == 5 and summary.turns == 21 and summary.parse_failures == 0
    with open_store(tmp_path) as store:
        episodes = store.episodes()
    assert [e["target"] for e in episodes] == [3, 4, 5, 6, 3]
    assert [e["turns"] for e in episodes] == [3, 4, 5, 6, 3]
    assert all(e["success"] and e["mistakes"] == 0 for e in episodes)
    assert [e["seed"] for e in episodes] == [0, 1, 2, 3, 4] and episodes[0]["agent"] == "oracle"
    assert [e["total_reward"] for e in episodes] == [3.0, 4.0, 5.0, 6.0, 3.0]
    first = turns_of(tmp_path)[0]
    assert first[6] == "Count from 1 to 3, one number per turn. Start." and first[8] == "ANSWER: 1"
    assert first[9] == "1" and first[10] == "ok"


def test_same_config_same_results_whatever_the_batching_and_processes(tmp_path):
    tasks = [Task("looptest/count", 12), Task("looptest/choice", 4), Task("looptest/duel", 6)]
    agents = ["random", "noisy-oracle:0.4", "oracle"]
    run(RunConfig(tasks, agents, seed=3, concurrency=1), tmp_path / "a")
    run(RunConfig(tasks, agents, seed=3, concurrency=5), tmp_path / "b")
    # worker processes start fresh: they import the module that registered the test envs
    run(RunConfig(tasks, agents, seed=3, concurrency=3, workers=2), tmp_path / "c")
    assert turns_of(tmp_path / "a") == turns_of(tmp_path / "b") == turns_of(tmp_path / "c")
    assert outcomes_of(tmp_path / "a") == outcomes_of(tmp_path / "b") == outcomes_of(tmp_path / "c")
    parses = {r[10] for r in turns_of(tmp_path / "a")}
    assert parses == {"ok", "invalid", "parse_failure"}  # random exercised every parser outcome


def test_one_backend_call_per_step_for_all_active_episodes(tmp_path):
    run(RunConfig([Task("looptest/count", 6)], ["counting:m"], concurrency=4, history="full"), tmp_path)
    sizes = [len(batch) for batch in CountingModel.calls]
    # targets 3 4 5 6 3 4: episodes 0-3 start; each finish frees a place for the next pending one
    # (after steps 3 and 4); then 2, 3 and 4 end at steps 5 and 6, and episode 5 plays alone
    assert sizes == [4, 4, 4, 4, 4, 3, 1, 1]
    assert sum(sizes) == 3 + 4 + 5 + 6 + 3 + 4 == len(turns_of(tmp_path))
    with open_store(tmp_path) as store:
        assert all(e["success"] for e in store.episodes())
        assert store.query("SELECT DISTINCT prompt_tokens, completion_tokens FROM turns") == [(7, 3)]


def test_history_policy_decides_what_the_model_sees(tmp_path):
    run(RunConfig([Task("looptest/count", 2)], ["counting:m"], history="current"), tmp_path / "current")
    with open_store(tmp_path / "current") as store:
        assert not any(e["success"] for e in store.episodes())  # always says 1
    assert all(len(c) == 2 for batch in CountingModel.calls for c in batch)  # system prompt + current turn
    CountingModel.calls = []
    run(RunConfig([Task("looptest/choice", 1)], ["counting:m"]), tmp_path / "default")
    lengths = [len(batch[0]) for batch in CountingModel.calls]
    assert lengths == [1, 3, 3]  # choice env's paper default last:1 keeps one earlier exchange


def test_images_reach_the_model_and_the_store(tmp_path):
    run(RunConfig([Task("looptest/choice", 2, {"size": 16})], ["counting:m"], history="full", max_images=2), tmp_path)
    last_prompt = CountingModel.calls[-1][0]
    assert [len(m.images) for m in last_prompt] == [0, 0, 1, 0, 1]  # cap 2: the first round's frame dropped
    assert last_prompt[-1].images[0].shape == (16, 16, 3)
    refs = [r[7] for r in turns_of(tmp_path)]
    assert all(ref and ref.startswith('["images/') for ref in refs)
    import json

    from PIL import Image

    path = tmp_path / json.loads(refs[0])[0]
    assert Image.open(path).size == (16, 16)


def test_duel_routes_each_player_to_its_seat(tmp_path):
    run(RunConfig([Task("looptest/duel", 8)], ["oracle", "random"]), tmp_path)
    for _, agent, _, _, player, turn_agent, prompt, *_ in turns_of(tmp_path):
        assert agent == "oracle vs random"
        assert turn_agent == ["oracle", "random"][player] and f"Player {player}, take" in prompt
    with open_store(tmp_path) as store:
        episodes = store.episodes()
    assert all(e["agents"] == ["oracle", "random"] for e in episodes)
    # the oracle moves first and wins every pile that is not a multiple of 4 (seeds 0..7: piles 5..11, 5)
    assert all(e["winner"] == 0 for e in episodes if (5 + e["seed"] % 7) % 4)


def test_duel_conversations_are_per_seat(tmp_path):
    # the counting model never says "TAKE k": the runner's turn cap ends these games
    run(RunConfig([Task("looptest/duel", 2)], ["counting:a", "counting:b"], history="full", max_turns=12), tmp_path)
    assert rows(tmp_path, "SELECT status, num_turns FROM episodes") == [("truncated", 12)] * 2
    for batch in CountingModel.calls:
        for conversation in batch:
            seat = conversation[-1].text.split("Player ")[-1][0]
            assert all(f"Player {seat}, take" in m.text for m in conversation if m.role == "user")


def test_bad_agents_fail_before_any_episode(tmp_path):
    with pytest.raises(ValueError, match="no scripted policy 'stubborn'.*known: oracle, random"):
        run(RunConfig([Task("looptest/choice", 2)], ["stubborn"]), tmp_path / "a")
    with pytest.raises(ValueError, match="probability in \\[0, 1\\]"):
        RunConfig([Task("looptest/count", 2)], ["noisy-oracle:1.5"])
    with pytest.raises(ValueError, match="unknown kind 'gpt'"):
        RunConfig([Task("looptest/count", 2)], ["gpt:4"])
    with pytest.raises(ValueError, match="seats 3 players"):
        from cogsim.harness import seat_groups

        seat_groups(["a", "b"], 3, "x/three")
    with pytest.raises(ValueError, match="history must be"):
        RunConfig([Task("looptest/count", 2)], ["oracle"], history="last:x")


def test_a_backend_fault_stops_the_episode_unscored_and_resume_finishes_it(tmp_path):
    config = RunConfig([Task("looptest/count", 3)], ["counting:flaky"], history="full", concurrency=2)
    summary = run(config, tmp_path / "run")
    # the server fault stops the run: the 2 active episodes wait at turn 1, the third never started
    assert not summary.ok and summary.statuses == {"running": 2} and summary.finished == 0
    assert summary.faults == {"http": (2, "turn 1: HTTP 500 (gave up)")}
    assert summary.fault_lines() == ["2 episode(s) stopped by a backend fault [http]: turn 1: HTTP 500 (gave up)"]
    assert rows(tmp_path / "run", "SELECT COUNT(*), COUNT(error) FROM turns") == [(2, 0)]  # nothing given to the env
    assert rows(tmp_path / "run", "SELECT fault, num_turns FROM episodes") == [("http", 1)] * 2
    CountingModel.healthy = True
    summary = run(None, tmp_path / "run", resume=True)
    assert summary.ok and summary.statuses == {"done": 3} and summary.faults == {}
    run(RunConfig([Task("looptest/count", 3)], ["counting:m"], history="full", concurrency=2), tmp_path / "reference")
    query = (
        f"SELECT e.episode_index, t.turn, {PROMPT_SQL}, t.response, t.reward FROM turns t "
        "JOIN episodes e ON e.id = t.episode_id ORDER BY 1, 2"
    )
    assert rows(tmp_path / "run", query) == rows(tmp_path / "reference", query)
    assert rows(tmp_path / "run", "SELECT DISTINCT fault, error FROM episodes") == [(None, None)]


def test_context_overflow_fails_only_its_episode_or_drops_the_oldest_history(tmp_path):
    summary = run(RunConfig([Task("looptest/count", 2)], ["counting:small-context"], history="full"), tmp_path / "fail")
    # targets 3 and 4: episode 0 finishes in 3 turns, episode 1 needs a 4th turn whose prompt is too long
    assert summary.statuses == {"done": 1, "running": 1}
    assert summary.faults["context_overflow"][0] == 1
    assert rows(tmp_path / "fail", f"SELECT {LOOP_SQL} FROM episodes") == [('{"on_overflow":"fail-episode"}',)] * 2
    config = RunConfig(
        [Task("looptest/count", 2)], ["counting:small-context"], history="full", on_overflow="drop-oldest"
    )
    summary = run(config, tmp_path / "drop")
    assert summary.ok and summary.statuses == {"done": 2}
    dropped = rows(
        tmp_path / "drop",
        "SELECT e.episode_index, t.turn, t.history_dropped FROM turns t JOIN episodes e ON e.id = t.episode_id ORDER BY 1, 2",
    )
    assert [d for i, _, d in dropped if i == 1][:4] == [0, 0, 0, 1]
    assert CountingModel.calls[-1] and all(sum(m.role == "assistant" for m in c) <= 2 for c in CountingModel.calls[-1])
    with pytest.raises(ValueError, match="on_overflow must be one of fail-episode, drop-oldest"):
        RunConfig([Task("looptest/count", 2)], ["oracle"], on_overflow="truncate")


def test_a_context_overflow_names_the_options_that_fit_it_and_resumes_after_the_change(tmp_path):
    summary = run(RunConfig([Task("looptest/count", 2)], ["counting:small-context"], history="full"), tmp_path)
    (error,) = [e for (e,) in rows(tmp_path, "SELECT error FROM episodes WHERE fault = 'context_overflow'")]
    assert "\n" not in error and error.startswith("turn 3: HTTP 400: maximum context length exceeded; to fit it in")
    assert "--history last:K with K < 3 (the prompt carried 3 earlier turns)" in error
    assert "--agent-option max_model_len=N" in error and "--max-images" not in error  # the prompt had no images
    # the stored run continues under a narrower history: the change is recorded, the episode finishes
    summary = run(None, tmp_path, resume=True, changes={"history": "last:2"})
    assert summary.ok and summary.statuses == {"done": 2}
    with open_store(tmp_path) as store:
        assert store.config_changes() == [{"history": ["full", "last:2"]}]
    with pytest.raises(ValueError, match=r"max_turns differ\); a resume may change only .*--history, --max-images"):
        run(
            RunConfig([Task("looptest/count", 2)], ["counting:small-context"], history="full", max_turns=9),
            tmp_path,
            resume=True,
        )


class DecodingCount(loop_envs.CountEnv):
    metadata = {**loop_envs.CountEnv.metadata, "cogsim.decoding": {"max_tokens": 65536}}


loop_envs.envs.register("loopbug/decoding", DecodingCount)


def test_env_decoding_defaults_reach_the_backend_and_the_store(tmp_path):
    run(RunConfig([Task("loopbug/decoding", 1), Task("looptest/count", 1)], ["counting:m"], concurrency=1), tmp_path)
    assert CountingModel.decodings[0] == [{"max_tokens": 65536}]
    assert None in CountingModel.decodings  # an env without defaults: the plain call
    assert rows(tmp_path, f"SELECT env_id, {LOOP_SQL} FROM episodes ORDER BY id") == [
        ("loopbug/decoding", '{"on_overflow":"fail-episode","decoding":{"max_tokens":65536}}'),
        ("looptest/count", '{"on_overflow":"fail-episode"}'),
    ]


def test_resume_may_change_only_settings_that_do_not_change_results(tmp_path):
    config = RunConfig(
        [Task("looptest/count", 3)], ["counting:flaky"], history="full", agent_options={"base_url": "http://a"}
    )
    run(config, tmp_path)
    CountingModel.healthy = True
    with pytest.raises(ValueError, match=r"agent_options.temperature differ"):
        run(None, tmp_path, resume=True, changes={"agent_options": {"temperature": 0.5}})
    summary = run(None, tmp_path, resume=True, changes={"concurrency": 1, "agent_options": {"base_url": "http://b"}})
    assert summary.ok
    with open_store(tmp_path) as store:
        assert store.config_changes() == [{"agent_options.base_url": ["http://a", "http://b"], "concurrency": [64, 1]}]
        assert store.config()["agent_options"] == {"base_url": "http://b"}


class Exploding(loop_envs.CountEnv):
    def _step(self, action):
        if self.seed_value == 1:
            raise RuntimeError("env bug")
        return super()._step(action)

    def _reset(self, seed, options):
        self.seed_value = seed
        return super()._reset(seed, options)


class ResetBug(loop_envs.CountEnv):
    def _reset(self, seed, options):
        if seed == 2:
            raise RuntimeError("reset bug")
        obs = super()._reset(seed, options)
        self.options = ["an env may reuse this name"]  # the runner records the task's options instead
        return obs


loop_envs.envs.register("loopbug/exploding", Exploding)
loop_envs.envs.register("loopbug/reset", ResetBug, flavour="plain")


def test_an_env_error_ends_only_its_episode(tmp_path):
    summary = run(RunConfig([Task("loopbug/exploding", 3), Task("loopbug/reset", 3, {"x": 1})], ["oracle"]), tmp_path)
    assert summary.statuses == {"done": 4, "error": 2}
    errors = rows(tmp_path, "SELECT env_id, seed, error FROM episodes WHERE status = 'error' ORDER BY env_id")
    assert [(env_id, seed) for env_id, seed, _ in errors] == [("loopbug/exploding", 1), ("loopbug/reset", 2)]
    assert "env bug" in errors[0][2] and "env reset failed" in errors[1][2] and "reset bug" in errors[1][2]
    assert rows(tmp_path, "SELECT DISTINCT options FROM episodes WHERE env_id = 'loopbug/reset'") == [
        ('{"flavour":"plain","x":1}',)
    ]


def test_max_turns_truncates(tmp_path):
    run(RunConfig([Task("looptest/count", 2)], ["stubborn"], max_turns=2), tmp_path)
    assert (
        rows(tmp_path, "SELECT status, num_turns, outcome FROM episodes")
        == [("truncated", 2, '{"runner_truncated":true}')] * 2
    )


def test_resume_after_a_crash_continues_exactly(tmp_path):
    config = RunConfig([Task("looptest/count", 7)], ["counting:m", "random"], concurrency=3, history="full", seed=5)
    run(config, tmp_path / "reference")
    CountingModel.calls, CountingModel.fail_after = [], 4
    with pytest.raises(RuntimeError, match="backend crashed"):
        run(config, tmp_path / "crashed")
    partial = turns_of(tmp_path / "crashed")
    assert 0 < len(partial) < len(turns_of(tmp_path / "reference"))
    with pytest.raises(ValueError, match="already holds a run"):
        run(config, tmp_path / "crashed")
    CountingModel.fail_after = -1
    summary = run(None, tmp_path / "crashed", resume=True)
    assert summary.finished == 14
    assert turns_of(tmp_path / "crashed") == turns_of(tmp_path / "reference")
    assert outcomes_of(tmp_path / "crashed") == outcomes_of(tmp_path / "reference")
    assert set(partial) <= set(turns_of(tmp_path / "crashed"))


def test_seatings():
    from cogsim.harness import seat_groups

    assert seat_groups(["a", "b"], 1, "x") == [("a",), ("b",)]
    assert seat_groups(["a"], 2, "x") == [("a", "a")]
    assert seat_groups(["b", "a"], 2, "x") == [("b", "a")]
    assert seat_groups(["a", "b", "c"], 2, "x") == [
        ("a", "b"),
        ("a", "c"),
        ("b", "a"),
        ("b", "c"),
        ("c", "a"),
        ("c", "b"),
    ]


def test_plan_gives_every_agent_the_same_seeds():
    slots = plan(RunConfig([Task("looptest/count", 3), Task("looptest/duel", 2)], ["oracle", "random"], seed=10))
    assert [(s.env_id, s.agent, s.seed) for s in slots] == [
        ("looptest/count", "oracle", 10),
        ("looptest/count", "oracle", 11),
        ("looptest/count", "oracle", 12),
        ("looptest/count", "random", 10),
        ("looptest/count", "random", 11),
        ("looptest/count", "random", 12),
        ("looptest/duel", "oracle vs random", 10),
        ("looptest/duel", "oracle vs random", 11),
    ]


def test_the_plan_made_as_iterated_and_its_shards_are_the_planned_slots(tmp_path):
    config = RunConfig([Task("looptest/count", 5), Task("looptest/duel", 3)], ["oracle", "random"], seed=7)
    whole = plan(config)
    lazy = Plan(config)
    assert len(lazy) == len(whole) == 13 and list(lazy) == whole
    for shards in (1, 2, 3, 5, 20):
        parts = [list(lazy.slots(i, shards)) for i in range(shards)]
        assert parts == [whole[i::shards] for i in range(shards)]


def test_pending_slots_are_the_unfinished_ones_read_a_chunk_at_a_time(tmp_path, monkeypatch):
    monkeypatch.setattr(slots_module, "STATES_PER_LOOKUP", 2)
    config = RunConfig([Task("looptest/count", 5), Task("looptest/duel", 3)], ["oracle", "random"], seed=7)
    run(config, tmp_path)
    with sqlite3.connect(tmp_path / "store.sqlite") as db:  # unfinished: running, a backend fault, never started
        db.execute("UPDATE episodes SET status = 'running' WHERE agent = 'oracle' AND episode_index = 1")
        db.execute(
            "UPDATE episodes SET status = 'running', fault = 'timeout' WHERE agent = 'random' AND episode_index = 4"
        )
        db.execute("DELETE FROM episodes WHERE task = 1 AND episode_index = 2")
    with open_store(tmp_path) as store:
        pending = PendingSlots.of(Plan(config), store)
        ids = dict(
            ((task, agent, index), id_)
            for task, agent, index, id_ in store.query("SELECT task, agent, episode_index, id FROM episodes")
        )
    expected = [(0, "oracle", 1), (0, "random", 4), (1, "oracle vs random", 2)]
    assert len(pending) == 3 and [s.key() for s in pending] == expected
    assert [(s.key(), state and state[0]) for s, state in pending.with_states()] == [
        (key, ids.get(key)) for key in expected
    ]
    assert pending.agents == ["oracle", "random"]
    shards = [pending[i::2] for i in range(2)]
    assert sorted(s.key() for shard in shards for s in shard) == expected
    assert sum(len(shard) for shard in shards) == 3
    with pytest.raises(TypeError):
        pending[0:2]


def test_store_rejects_a_duplicate_episode(tmp_path):
    run(RunConfig([Task("looptest/count", 1)], ["oracle"]), tmp_path)
    db = sqlite3.connect(tmp_path / "store.sqlite")
    with pytest.raises(sqlite3.IntegrityError):
        db.execute(
            "INSERT INTO episodes (task, env_id, suite, agent, agents, episode_index, seed, options, history, status, "
            "started, session) SELECT task, env_id, suite, agent, agents, episode_index, seed, options, history, status, "
            "started, session FROM episodes"
        )


class ShardingExecutor:
    """What a cluster executor does: split the pending slots into shards and have each run by
    ``run_slots`` somewhere that sees the run directory (here: one after another, in-process)."""

    def __init__(self, shards):
        self.shards = shards
        self.seen = []

    def execute(self, out, config, slots, progress):
        from cogsim.harness import run_slots

        for worker in range(self.shards):
            shard = slots[worker :: self.shards]
            self.seen.append(len(shard))
            run_slots(out, config, shard, worker + 1, progress)


def test_a_pluggable_executor_gives_the_same_results(tmp_path):
    config = RunConfig([Task("looptest/count", 7), Task("looptest/duel", 3)], ["random", "oracle"], seed=4)
    run(config, tmp_path / "local")
    executor = ShardingExecutor(3)
    run(config, tmp_path / "sharded", executor=executor)
    assert executor.seen == [6, 6, 5]
    assert turns_of(tmp_path / "sharded") == turns_of(tmp_path / "local")
    assert outcomes_of(tmp_path / "sharded") == outcomes_of(tmp_path / "local")
    assert rows(tmp_path / "sharded", "SELECT COUNT(DISTINCT worker) FROM sessions") == [(3,)]


@pytest.mark.parametrize("worker", [False, True])
def test_only_a_worker_process_freezes_what_its_first_step_left_alive(tmp_path, worker):
    # gc.freeze in a process someone else owns would keep their objects from ever being collected
    script = (
        "import gc, sys; sys.path.insert(0, sys.argv[1]); import loop_envs\n"
        "from cogsim.harness import RunConfig, Task, run, lockstep\n"
        f"if {worker}: lockstep.in_worker_process()\n"
        "run(RunConfig([Task('looptest/count', 3)], ['oracle']), sys.argv[2])\n"
        "print(gc.get_freeze_count())\n"
    )
    tests = str(Path(__file__).parent)
    done = subprocess.run([sys.executable, "-c", script, tests, str(tmp_path / "run")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (int(done.stdout) > 1000) == worker


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the setting is glibc's malloc's")
def test_a_worker_keeps_the_memory_it_frees_for_its_next_frames():
    # frames of a megabyte, made and dropped as an image env's turns do: faulted in again every time
    # unless the worker keeps what it freed
    script = (
        "import resource, sys\n"
        "import numpy as np\n"
        "from cogsim.harness.executor import keep_freed_memory\n"
        "if sys.argv[1] == 'keep': keep_freed_memory()\n"
        "def turns(n):\n"
        "    for _ in range(n):\n"
        "        frames = [np.ones(1 << 20, np.uint8) for _ in range(16)]\n"
        "        del frames\n"
        "turns(2)\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt\n"
        "turns(20)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)\n"
    )
    faults = {}
    for mode in ("keep", "default"):
        done = subprocess.run([sys.executable, "-c", script, mode], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        faults[mode] = int(done.stdout)
    assert faults["keep"] < 1000 < faults["default"] // 10, faults
