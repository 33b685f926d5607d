"""``cogsim play`` in a real browser (headless Chromium): a person plays ``kidgym/maze`` to success by
pressing the keys the oracle would choose, and a WILT episode by typing; the frames the page shows
are the bytes a model is sent; the episodes are stored as agent ``human:NAME`` with their timings, and
a stopped session continues where it stopped."""

from __future__ import annotations

import numpy as np
from playwright.sync_api import expect

import cogsim
from cogsim.render import encode_frames
from cogsim.store import open_store
from web_helpers import Command, sha256

pytest_plugins = ("browser_fixtures",)  # the browser and page fixtures


def _turn_shown(page, number: int) -> None:
    expect(page.locator("header")).to_contain_text(f"turn {number}", timeout=60_000)


def _keys_work(page) -> None:
    """Waits for the page's script: a page submitted by a key shows the next one before that runs."""
    expect(page.locator("html")).to_have_attribute("data-keys", "on", timeout=60_000)


def _frames_on_page(page) -> list[bytes]:
    sources = page.locator("#current .frames img").evaluate_all("images => images.map(i => i.src)")
    return [page.request.get(source).body() for source in sources]


def test_play_kidgym_maze_to_success_with_the_oracles_keys(tmp_path, page):
    out = tmp_path / "maze"
    twin = cogsim.make("kidgym/maze")  # the same episode, stepped beside the page to know the oracle's key
    obs, _ = twin.reset(seed=4)
    rng = np.random.default_rng(0)
    with Command("play", "kidgym/maze", "--seed", "4", "--out", str(out), "--name", "tester", "--no-browser") as cmd:
        page.goto(cmd.url)
        assert "token=" not in page.url  # the token moved into a cookie
        turn, done = 0, False
        while not done:
            _turn_shown(page, turn + 1)
            sent = encode_frames(obs["images"], twin.frame_format())
            assert [sha256(b) for b in _frames_on_page(page)] == [sha256(b) for b in sent]
            expect(page.locator("#current pre")).to_have_text(obs["text"])
            letter = twin.scripted_response("oracle", rng)
            _keys_work(page)
            page.keyboard.press(letter)
            obs, reward, terminated, truncated, _ = twin.step(letter)
            turn, done = turn + 1, terminated or truncated
        assert reward == 1.0
        expect(page.locator("h1")).to_have_text("Every episode is played", timeout=60_000)
        assert cmd.wait() == 0
    with open_store(out) as store:
        (episode,) = store.episodes(("done",))
        turns = store.turns(episode["episode_id"])
    assert episode["agent"] == "human:tester" and episode["success"] is True and episode["total_reward"] == 1.0
    assert len(turns) == turn and all(t.parse == "ok" and t.agent == "human:tester" for t in turns)
    assert all(t.latency_s > 0 for t in turns)  # the person's seconds per turn


def test_play_wilt_by_typing_and_continue_after_a_stop(tmp_path, page):
    out = tmp_path / "wilt"
    twin = cogsim.make("wilt/lite")
    twin.reset(seed=2)
    command = ("play", "wilt/lite", "--seed", "2", "--out", str(out), "--name", "typist", "--no-browser")
    test_case = "I try small increasing numbers first.\nTest Case: ```(1, 2, 3)```"
    with Command(*command) as cmd:
        page.goto(cmd.url)
        _turn_shown(page, 1)
        page.fill("textarea", test_case)
        page.get_by_role("button", name="Send", exact=True).click()
        _turn_shown(page, 2)
        expect(page.locator("#current pre")).to_contain_text("Result for input (1.0, 2.0, 3.0)")
        page.get_by_role("button", name="Stop playing", exact=False).click()
        expect(page.locator("h1")).to_have_text("Stopped")
        assert cmd.wait() == 0
    with open_store(out) as store:
        (episode,) = store.episodes(("running",))
        (first,) = store.turns(episode["episode_id"])
    assert first.response == test_case and first.parse == "ok"  # the text box's CRLF lines stored as typed

    twin.step(test_case)
    guess = twin.scripted_response("oracle", np.random.default_rng(0))
    with Command(*command) as cmd:  # the same command continues the stopped episode
        page.goto(cmd.url)
        _turn_shown(page, 2)
        page.fill("textarea", guess)
        _keys_work(page)
        page.keyboard.press("Control+Enter")
        expect(page.locator("h1")).to_have_text("Every episode is played", timeout=60_000)
        assert cmd.wait() == 0
    with open_store(out) as store:
        (episode,) = store.episodes(("done",))
        turns = store.turns(episode["episode_id"])
    assert [t.response for t in turns] == [test_case, guess]
    assert episode["correct"] is True and episode["agent"] == "human:typist"


def test_play_a_duel_against_a_scripted_opponent(tmp_path, page):
    out = tmp_path / "duel"
    args = ("play", "pairs/duel", "--opponent", "oracle", "--seat", "2", "--out", str(out), "--name", "p2")
    with Command(*args, "--no-browser") as cmd:
        page.goto(cmd.url)
        expect(page.locator("header")).to_contain_text("player 2 of 2, against oracle", timeout=60_000)
        page.get_by_role("button", name="Stop playing", exact=False).click()
        assert cmd.wait() == 0
    with open_store(out) as store:
        (episode,) = store.episodes(("running",))
        turns = store.turns(episode["episode_id"])
    assert episode["agents"] == ["oracle", "human:p2"] and turns and all(t.agent == "oracle" for t in turns)
