"""The web server's guards, over HTTP without a browser: every request needs the token (the cookie
after the first), the Host must be the loopback address printed, a change must come from the page
itself, every response carries the strict policy; the viewer answers bad requests and hostile run
directories with one line, serves frames only by content key from the run's own images/, and the run's
report sandboxed. ``cogsim play`` and ``cogsim view`` refuse bad command lines in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import httpx
import pytest

from cogsim.agents import make_agent
from cogsim.agents.base import Message
from cogsim.agents.human import PlayStopped, TurnContext, attach_console
from cogsim.cli import main
from cogsim.envs import QuickReply
from cogsim.harness import RunConfig, Task, run
from cogsim.web.play import PlayDesk, play_app
from cogsim.web.server import PAGE_CSP, Access, Served
from cogsim.web.view import Runs, view_app


def _serve(app, host: str = "127.0.0.1") -> Served:
    return Served(app, host, 0, lambda port: Access.create(host, port)).start()


def _client(served: Served, signed_in: bool = True, **headers) -> httpx.Client:
    """A client of the server (with its token's cookie unless ``signed_in`` is False)."""
    cookies = {served.access.cookie: served.access.token} if signed_in else None
    return httpx.Client(
        base_url=f"http://127.0.0.1:{served.port}", headers=headers, cookies=cookies, follow_redirects=False
    )


@pytest.fixture(scope="module")
def text_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("web") / "run"
    run(RunConfig(tasks=[Task("wilt/lite", 3)], agents=["oracle", "random"], workers=1), out)
    return out


@pytest.fixture
def viewer(text_run):
    served = _serve(view_app(Runs([text_run])))
    yield served
    served.stop()


def test_every_request_needs_the_token(viewer):
    with _client(viewer, signed_in=False) as client:
        refused = client.get("/runs/0/episodes")
        assert refused.status_code == 403 and "access token" in refused.text
        assert client.get("/runs/0/episodes", params={"token": "wrong"}).status_code == 403
        entered = client.get("/runs/0/episodes", params={"token": viewer.access.token, "agent": "oracle"})
        assert entered.status_code == 303 and entered.headers["location"] == "/runs/0/episodes?agent=oracle"
        cookie = entered.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=lax" in cookie and f"cogsim-{viewer.port}=" in cookie
    with _client(viewer) as client:
        page = client.get("/runs/0/episodes?agent=oracle")
    assert page.status_code == 200 and "wilt/lite" in page.text
    for response in (refused, entered, page):
        assert response.headers["content-security-policy"] == PAGE_CSP
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "same-origin"
        assert response.headers["cache-control"] == "no-store"


def test_a_foreign_host_or_origin_is_refused(viewer):
    with _client(viewer, host=f"attacker.example:{viewer.port}") as client:
        assert client.get("/runs/0/").status_code == 421  # a rebound DNS name
    with _client(viewer) as client:
        assert client.get("/runs/0/").status_code == 200
        assert client.post("/runs/0/").status_code == 403  # no Origin: not from the page
        assert client.post("/runs/0/", headers={"origin": "http://attacker.example"}).status_code == 403


def _get(served: Served, path: str, **params) -> httpx.Response:
    with _client(served) as client:
        return client.get(path, params=params)


@pytest.mark.parametrize(
    "path, params, status, words",
    [
        ("/runs/7/", {}, 400, "run must be a whole number in [0, 0]"),
        ("/runs/x/", {}, 400, "run must be a whole number"),
        ("/runs/0/episodes", {"seed": "-1"}, 400, "seed must be a whole number in [0, 4294967295]"),
        ("/runs/0/episodes", {"outcome": "<b>won</b>"}, 400, "outcome must be one of done"),
        ("/runs/0/episodes/999999", {}, 404, "the run has no episode 999999"),
        ("/runs/0/episodes/1/turns/77", {}, 404, "episode 1 has no turn 77"),
        ("/compare", {"a": "0.1", "b": "../x"}, 400, "b must name an episode as RUN.ID"),
        ("/compare", {"a": "0.1", "b": "3.1"}, 400, "run must be a whole number in [0, 0], got &#39;3&#39;"),
    ],
)
def test_bad_requests_get_one_line(viewer, path, params, status, words):
    response = _get(viewer, path, **params)
    assert response.status_code == status and words in response.text
    assert "<b>won</b>" not in response.text and "Traceback" not in response.text


def test_frames_only_by_content_key_from_the_runs_images(viewer, text_run, tmp_path):
    assert _get(viewer, "/runs/0/images/ab/not-a-key.png").status_code == 404
    key = "ab" + "0" * 62
    folder = text_run / "images" / "ab"
    folder.mkdir(parents=True, exist_ok=True)
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"\x89PNG\r\n\x1a\n" + b"secret")
    os.symlink(secret, folder / f"{key}.png")  # a link planted in the run's images/
    response = _get(viewer, f"/runs/0/images/ab/{key}.png")
    assert response.status_code == 404 and "a link is never followed" in response.text
    (folder / f"{key}.png").unlink()
    (folder / f"{key}.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"frame")
    served = _get(viewer, f"/runs/0/images/ab/{key}.png")
    assert served.status_code == 200 and served.headers["content-type"] == "image/png"
    assert "sandbox" in served.headers["content-security-policy"]


def test_the_report_is_served_sandboxed_and_never_through_a_link(viewer, text_run, tmp_path):
    page = text_run / "report.html"
    page.write_text("<p>hostile <script>alert(1)</script></p>")
    served = _get(viewer, "/runs/0/report.html")
    assert served.status_code == 200 and "sandbox" in served.headers["content-security-policy"]
    assert "script-src" not in served.headers["content-security-policy"]  # default-src 'none' covers script
    page.unlink()
    target = tmp_path / "elsewhere.html"
    target.write_text("not the run's")
    os.symlink(target, page)
    refused = _get(viewer, "/runs/0/report.html")
    assert refused.status_code == 404 and "not the run's" not in refused.text
    page.unlink()


def test_stored_text_is_escaped_in_every_page(text_run, tmp_path):
    import shutil
    import sqlite3

    hostile = tmp_path / "hostile"
    shutil.copytree(text_run, hostile)
    db = sqlite3.connect(hostile / "store.sqlite")
    db.execute("UPDATE turns SET response = '</pre><script>alert(1)</script>', agent = '<i>x</i>' WHERE turn = 0")
    db.execute("UPDATE episodes SET agent = '<b>agent</b>' WHERE id = 1")
    db.commit()
    db.close()
    served = _serve(view_app(Runs([hostile])))
    try:
        for path in ("/runs/0/episodes", "/runs/0/episodes/1", "/runs/0/episodes/1/turns/0", "/runs/0/"):
            text = _get(served, path).text
            assert "<script>alert(1)</script>" not in text and "<b>agent</b>" not in text and "<i>x</i>" not in text
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in _get(served, "/runs/0/episodes/1").text
    finally:
        served.stop()


def _ask_in_thread(desk: PlayDesk, result: list) -> threading.Thread:
    context = TurnContext("kidgym/maze", 3, 0, 0, 0, ("human:t",), (QuickReply("A", "A) go", "A"),))

    def ask():
        try:
            result.append(desk.ask([Message("user", "Choose <A>.")], context))
        except PlayStopped:
            result.append("stopped")

    thread = threading.Thread(target=ask)
    thread.start()
    return thread


def test_a_reply_must_come_from_the_page_and_name_the_waiting_turn(tmp_path):
    desk = PlayDesk(tmp_path, "human:t")
    served = _serve(play_app(desk))
    result: list = []
    thread = _ask_in_thread(desk, result)
    try:
        origin = {"origin": f"http://127.0.0.1:{served.port}"}
        with _client(served) as client:
            page = client.get("/")
            assert "Choose &lt;A&gt;." in page.text and 'data-key="A"' in page.text
            nonce = desk.current.nonce
            form = {"turn": nonce, "reply": "A"}
            assert client.post("/reply", data=form).status_code == 403  # no Origin
            assert not result
            stale = client.post("/reply", data={"turn": "old", "reply": "B"}, headers=origin)
            assert stale.status_code == 303 and not result  # a reply to another turn is dropped
            sent = client.post("/reply", data={"turn": nonce, "reply": "A\r\nline"}, headers=origin)
            assert sent.status_code == 303
        thread.join(10)
        assert result[0].text == "A\nline" and result[0].seconds >= 0
    finally:
        desk.end("finished", [])
        served.stop()


def test_an_answered_turn_is_never_shown_again(tmp_path):
    """Between the reply and the runner taking it, the page waits instead of showing the same turn."""
    desk = PlayDesk(tmp_path, "human:t")
    result: list = []
    thread = _ask_in_thread(desk, result)
    state, turn = desk.wait_ready(10)
    assert state == "turn"
    with desk._changed:  # the runner's thread has not woken yet: hold it off while the page asks
        turn.reply = "A"
        assert desk.wait_ready(0.2) == ("busy", None)
        desk._changed.notify_all()
    thread.join(10)
    assert result[0].text == "A"


def test_stop_ends_the_waiting_turn(tmp_path):
    desk = PlayDesk(tmp_path, "human:t")
    served = _serve(play_app(desk))
    result: list = []
    thread = _ask_in_thread(desk, result)
    try:
        origin = {"origin": f"http://127.0.0.1:{served.port}"}
        with _client(served) as client:
            client.get("/")
            assert client.post("/stop", data={"session": "guess"}, headers=origin).status_code == 403
            assert client.post("/stop", data={"session": desk.session}, headers=origin).status_code == 303
        thread.join(10)
        assert result == ["stopped"]
    finally:
        served.stop()


def test_a_human_agent_needs_cogsim_play(capsys):
    with pytest.raises(ValueError, match="is a person: play it with `cogsim play`"):
        make_agent("human:ann")
    with pytest.raises(ValueError, match="a player's name must be 1 to 64 letters"):
        make_agent("human:<ann>")
    desk = PlayDesk(".", "human:ann")
    with attach_console(desk):
        assert make_agent("human:ann").describe() == {"backend": "human", "name": "ann"}


@pytest.mark.parametrize(
    "argv, words",
    [
        (["play", "--out", "{tmp}/none"], "holds no run to continue: give ENV_ID"),
        (["play", "nosuch/env", "--out", "{tmp}/r"], "unknown env id 'nosuch/env'"),
        (["play", "pairs/duel", "--out", "{tmp}/r"], "pairs/duel seats 2 players: name the other with --opponent"),
        (["play", "wilt/lite", "--opponent", "oracle", "--out", "{tmp}/r"], "wilt/lite is played alone"),
        (["play", "wilt/lite", "--name", "a b", "--out", "{tmp}/r"], "a player's name must be"),
        (["play", "wilt/lite", "--port", "70000", "--out", "{tmp}/r"], "--port must be in [0, 65535]"),
        (["view", "{tmp}/none"], "holds no cogsim run"),
        (["play", "--out", "{run}"], "holds a run no person plays (no human:NAME agent)"),
        (["run", "wilt/lite", "--agent", "human:ann", "--out", "{tmp}/r2"], "is a person: play it with `cogsim play`"),
    ],
)
def test_bad_command_lines_get_one_line(tmp_path, capsys, text_run, argv, words):
    assert main([a.replace("{tmp}", str(tmp_path)).replace("{run}", str(text_run)) for a in argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err


def test_cli_lists_play_and_view_without_loading_the_web_stack(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "play" in out and "view" in out
    probe = "import sys, cogsim.cli; print(sorted(m for m in ('starlette', 'uvicorn', 'jinja2') if m in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert json.loads(loaded.replace("'", '"')) == []
