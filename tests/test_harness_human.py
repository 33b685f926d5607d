"""A person (agent ``human:NAME``) in the runner, through a console (what ``cogsim play``'s page is):
each turn the console gets the prompt a model would and the turn's context, the reply goes through the
env's parser and step, the turn is stored with the person's seconds; a stop ends the run with every
answered turn kept and the same run continues where it stopped; the report shows the person beside a
model of the same run."""

from __future__ import annotations

import pytest

from cogsim.agents.human import PlayStopped, Reply, attach_console
from cogsim.harness import RunConfig, Task, run
from cogsim.report import write_report
from cogsim.store import open_store


class FirstChoice:
    """A person who always presses the first quick reply (or types a WILT test case), taking 0.25 s;
    after ``stop_after`` answers they stop."""

    def __init__(self, stop_after: int = 10**9):
        self.asked: list = []
        self.stop_after = stop_after

    def ask(self, prompt, context):
        if len(self.asked) >= self.stop_after:
            raise PlayStopped()
        self.asked.append((prompt, context))
        replies = context.quick_replies
        return Reply(replies[0].reply if replies else "Test Case: ```(1, 2, 3)```", 0.25)


def test_a_person_plays_through_the_runner_beside_a_model(tmp_path):
    out = tmp_path / "run"
    person = FirstChoice()
    config = RunConfig(tasks=[Task("kidgym/maze", 2)], agents=["human:ann", "oracle"], concurrency=1, max_turns=4)
    with attach_console(person):
        summary = run(config, out)
    assert summary.ok
    contexts = [context for _, context in person.asked]
    assert {c.env_id for c in contexts} == {"kidgym/maze"} and {c.seats for c in contexts} == {("human:ann",)}
    assert [c.turn for c in contexts if c.episode_index == 0] == list(
        range(sum(c.episode_index == 0 for c in contexts))
    )
    prompt, context = person.asked[0]
    assert [m.role for m in prompt] == ["system", "user"] and len(prompt[1].images) == 1  # what a model gets
    with open_store(out) as store:
        episodes = [e for e in store.episodes(("done", "truncated")) if e["agent"] == "human:ann"]
        turns = [t for e in episodes for t in store.turns(e["episode_id"])]
    assert len(episodes) == 2 and len(turns) == len(person.asked)
    assert all(t.latency_s == 0.25 and t.parse == "ok" and t.prompt_tokens is None for t in turns)
    markdown, _ = write_report(out)
    table = markdown.read_text().split("Episodes and turns")[1].split("\n\n")[1]
    assert "| `kidgym/maze` | human:ann |" in table and "| `kidgym/maze` | oracle |" in table


def test_a_stopped_person_continues_where_they_stopped(tmp_path):
    out = tmp_path / "run"
    config = RunConfig(tasks=[Task("wilt/lite", 1)], agents=["human:bo"], concurrency=1, max_turns=5)
    with attach_console(FirstChoice(stop_after=2)), pytest.raises(PlayStopped):
        run(config, out)
    with open_store(out) as store:
        (episode,) = store.episodes(("running",))
        assert len(store.turns(episode["episode_id"])) == 2
    again = FirstChoice()
    with attach_console(again):
        summary = run(config, out, resume=True)
    assert summary.ok and summary.turns == 5 and len(again.asked) == 3  # the stored turns were replayed, not asked
    assert again.asked[0][1].turn == 2
