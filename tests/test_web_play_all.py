"""``cogsim play``'s page on every env id (over HTTP, the runner in a thread as the command runs it):
the first turn shows the prompt a model gets (its text and one frame address per frame, each serving
the bytes a model is sent), a reply posted from the page (a quick reply where the env offers one, else
typed text) is stored as the person's turn, and Stop ends the run with it kept. And a duel against a
model behind an OpenAI-compatible server."""

from __future__ import annotations

import hashlib
import re
import threading

import httpx
import pytest

import cogsim
from cogsim import families
from cogsim.agents.human import PlayStopped, attach_console
from cogsim.harness import RunConfig, Task, run
from cogsim.render import encode_frames
from cogsim.store import open_store
from cogsim.web.play import PlayDesk, play_app
from cogsim.web.server import Access, Served
from reply_server import ReplyServer

ENV_IDS = families.declared_env_ids()
TYPED = "I answer as best I can.\nAction: aA"
FRAME = re.compile(r'<img src="(/frames/[0-9a-f]{64}\.(?:png|jpg))"')
NONCE = re.compile(r'name="turn" value="([^"]+)"')


class Session:
    """A play session as ``cogsim play`` runs it: the server, the desk and the runner on a thread."""

    def __init__(self, out, config: RunConfig):
        self.desk = PlayDesk(out, config.agents[0])
        self.served = Served(play_app(self.desk), "127.0.0.1", 0, lambda port: Access.create("127.0.0.1", port))
        self.served.start()
        self.outcome: list = []
        self.client = httpx.Client(
            base_url=f"http://127.0.0.1:{self.served.port}",
            cookies={self.served.access.cookie: self.served.access.token},
            headers={"origin": f"http://127.0.0.1:{self.served.port}"},
            timeout=120,
        )
        self.thread = threading.Thread(target=self._run, args=(config, out))
        with attach_console(self.desk):  # the backend takes the console when the runner makes it
            self.thread.start()
            self.page = self.next_page()

    def _run(self, config, out) -> None:
        try:
            self.outcome.append(run(config, out))
            self.desk.end("finished", [])
        except PlayStopped:
            self.outcome.append("stopped")
            self.desk.end("stopped", [])
        except Exception as error:
            self.outcome.append(error)
            self.desk.end("failed", [str(error)])

    def next_page(self) -> str:
        for _ in range(30):  # a page waits 10 s for the turn before it says "waiting" and reloads
            page = self.client.get("/").text
            if "Waiting for the next turn" not in page:
                return page
        raise AssertionError("no turn came")

    def close(self) -> None:
        self.client.post("/stop", data={"session": self.desk.session})
        self.thread.join(60)
        self.client.close()
        self.served.stop()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_env_id_plays_in_the_page(tmp_path, env_id):
    seats = getattr(cogsim.envs.spec(env_id).entry_point, "num_players", 1)
    agents = ["human:t"] + (["oracle"] if seats > 1 else [])
    session = Session(tmp_path / "run", RunConfig(tasks=[Task(env_id, 1)], agents=agents, concurrency=1))
    try:
        twin = cogsim.make(env_id)
        obs, _ = twin.reset(seed=0)
        page = session.page
        sent = [hashlib.sha256(b).hexdigest() for b in encode_frames(obs["images"], twin.frame_format())]
        shown = FRAME.findall(page)[-len(sent) :] if sent else []  # the turn's own frames come last
        assert [url.split("/")[-1].split(".")[0] for url in shown] == sent
        for url in shown:
            assert hashlib.sha256(session.client.get(url).content).hexdigest() in sent
        quick = re.findall(r'<button type="submit" name="reply" value="([^"]*)"', page)
        reply = quick[0] if quick else TYPED
        reply = reply.replace("&lt;", "<").replace("&gt;", ">").replace("&#39;", "'").replace("&#34;", '"')
        turn = NONCE.search(page).group(1)
        assert session.client.post("/reply", data={"turn": turn, "reply": reply}).status_code == 303
        session.next_page()
    finally:
        session.close()
    assert session.outcome[0] == "stopped" or session.outcome[0].finished == 1, session.outcome
    with open_store(tmp_path / "run") as store:
        (episode,) = store.episodes(("done", "truncated", "running", "error"))
        turns = [t for t in store.turns(episode["episode_id"]) if t.agent == "human:t"]
    assert turns[0].response == reply and episode["status"] != "error"


def test_a_duel_against_a_model_server(tmp_path):
    server = ReplyServer(lambda body: "Thought: the corner.\nAction: aA")
    config = RunConfig(
        tasks=[Task("pairs/duel", 1)],
        agents=["openai:m", "human:t"],
        agent_options={"base_url": server.url, "api_key": "k"},
        concurrency=1,
    )
    session = Session(tmp_path / "run", config)
    try:
        assert "player 2 of 2, against openai:m" in session.page
    finally:
        session.close()
        server.close()
    assert session.outcome == ["stopped"] and server.requests  # the model played its turns first
    with open_store(tmp_path / "run") as store:
        (episode,) = store.episodes(("running",))
        assert {t.agent for t in store.turns(episode["episode_id"])} == {"openai:m"}
