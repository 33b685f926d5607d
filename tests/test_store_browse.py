"""Browsing a store a page at a time (cogsim.store.browse, what ``cogsim view`` reads): pages walked
forward and back hold every matching episode once and in order, under every filter; a turn's prompt
rebuilt from the store is the very prompt the runner sent (history policies, image caps, duels)."""

from __future__ import annotations

import itertools

import pytest

from cogsim.agents import Completion, ModelBackend, register_backend
from cogsim.harness import RunConfig, Task, run
from cogsim.store import browse, open_store
from cogsim.store.values import image_ref


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    out = tmp_path_factory.mktemp("browse") / "run"
    tasks = [Task("wilt/lite", 12), Task("wilt/lite", 9, {"max_attempts": 2})]
    run(RunConfig(tasks=tasks, agents=["oracle", "random"], max_turns=2, workers=1), out)
    return out


def _walk(store, where, limit):
    """The ids of every page from the first on (``later``), and from the last back (``earlier``)."""
    forward, after = [], None
    while True:
        page = browse.episode_page(store, where, after=after, limit=limit)
        forward += [e.id for e in page.episodes]
        if page.later is None:
            break
        after = page.later
    backward, before = [], (forward[-1] + 1 if forward else 0)
    while True:
        page = browse.episode_page(store, where, before=before, limit=limit)
        backward = [e.id for e in page.episodes] + backward
        if page.earlier is None:
            break
        before = page.earlier
    return forward, backward


@pytest.mark.parametrize(
    "where",
    [
        browse.EpisodeFilter(),
        browse.EpisodeFilter(agent="random"),
        browse.EpisodeFilter(outcome="rewarded"),
        browse.EpisodeFilter(outcome="unrewarded", agent="random"),
        browse.EpisodeFilter(task=1, seed=3),
        browse.EpisodeFilter(env_id="wilt/lite", suite="wilt", outcome="done"),
        browse.EpisodeFilter(outcome="error"),
    ],
)
def test_pages_hold_every_match_once_in_order(many, where):
    with open_store(many) as store:
        records = store.episodes(("done", "truncated", "error", "running"))
        expected = sorted(
            e["episode_id"]
            for e in records
            if (where.agent is None or e["agent"] == where.agent)
            and (where.task is None or e["task"] == where.task)
            and (where.seed is None or e["seed"] == where.seed)
            and (where.outcome != "rewarded" or (e["status"] == "done" and e["total_reward"] > 0))
            and (where.outcome != "unrewarded" or (e["status"] == "done" and e["total_reward"] <= 0))
            and (where.outcome != "done" or e["status"] == "done")
            and (where.outcome != "error" or e["status"] == "error")
        )
        assert browse.count_episodes(store, where) == len(expected)
        for limit in (1, 4, 50):
            assert _walk(store, where, limit) == (expected, expected)


def test_choices_and_heads(many):
    with open_store(many) as store:
        choices = browse.filter_choices(store)
        assert choices == {"suite": ["wilt"], "env_id": ["wilt/lite"], "agent": ["oracle", "random"]}
        summary = browse.episode_summary(store)
        assert [row[:9] for row in summary] == [row[:9] for row in store.episode_counts()]
        assert sum(row[9] for row in summary) == store.turn_count()  # every episode of this run ended
        head = browse.episode_head(store, 1)
        assert head.env_id == "wilt/lite" and head.system_prompt is None and head.history == "full"
        assert browse.episode_head(store, 10**9) is None
        assert [t.turn for t in browse.turn_page(store, 1, 1, 5)] == [t.turn for t in store.turns(1)][1:6]
        same = browse.episode_page(store, browse.EpisodeFilter(env_id="wilt/lite", seed=0)).episodes
        assert len(same) == 4  # 2 tasks x 2 agents played seed 0


class RecordingBackend(ModelBackend):
    """Answers every prompt with ``answer`` and keeps each prompt as the wire sees it: (role, text, the
    stored references of its frames)."""

    sent: dict = {}

    def __init__(self, model: str, **options):
        self.spec = f"record:{model}"
        self.answer = {"kid": "A", "pairs": "Action: aA", "wilt": "Test Case: ```(1, 2, 3)```"}[model.split("-")[0]]
        RecordingBackend.sent[self.spec] = []

    def complete(self, conversations, decoding=None):
        for conversation in conversations:
            RecordingBackend.sent[self.spec].append(
                [(m.role, m.text, tuple(image_ref(f.key, f.suffix) for f in m.images)) for m in conversation]
            )
        return [Completion(self.answer, latency_s=0.001) for _ in conversations]


@pytest.mark.parametrize(
    "env_id, agents, history, max_images",
    [
        ("kidgym/memory_maze", ["record:kid"], None, None),
        ("kidgym/memory_maze", ["record:kid"], "last:1", None),
        ("kidgym/memory_maze", ["record:kid"], None, 2),
        ("pairs/duel", ["record:pairs-a", "record:pairs-b"], None, None),
        ("wilt/lite", ["record:wilt"], "last:2", None),
    ],
)
def test_the_prompt_rebuilt_is_the_prompt_sent(tmp_path, env_id, agents, history, max_images):
    register_backend("record", RecordingBackend)
    out = tmp_path / "run"
    config = RunConfig(
        tasks=[Task(env_id, 1)], agents=agents, history=history, max_images=max_images, max_turns=5, workers=1
    )
    run(config, out)
    with open_store(out) as store:
        (episode,) = store.episodes(("done", "truncated"))
        head = browse.episode_head(store, episode["episode_id"])
        stored_once = store.query("SELECT system_text, loop_text FROM episodes WHERE id = ?", (head.id,))[0]
        assert stored_once[1] is not None and isinstance(head.loop, dict)  # read through texts
        assert head.system_prompt == store.system_prompt(head.id)
        assert (stored_once[0] is not None) == (head.system_prompt is not None)
        turns = store.turns(head.id)
        rebuilt = {spec: [] for spec in agents}
        for turn in turns:
            sent = browse.prompt_at(store, head, turn.turn, browse.run_max_images(store.config()))
            rebuilt[turn.agent].append([(m.role, m.text, tuple(m.images)) for m in sent.messages])
        assert browse.prompt_at(store, head, len(turns), None) is None
    for spec in agents:
        assert rebuilt[spec] == RecordingBackend.sent[spec] and rebuilt[spec]
    if max_images is not None:
        assert all(sum(len(m[2]) for m in prompt) <= max_images for prompt in rebuilt[agents[0]])
    assert any(len(prompt) > 2 for prompt in itertools.chain(*rebuilt.values())) or history == "last:1"
