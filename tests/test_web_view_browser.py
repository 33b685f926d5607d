"""``cogsim view`` in a real browser (headless Chromium): an episode of a stored image run shows, turn
by turn, frames whose bytes are the stored ones (each image's URL fetched and hashed), a reply holding
``<script>`` shows as text and runs nothing, two agents on the same env and seed sit side by side, and
the run's report links into the episode lists."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from cogsim.agents import Completion, ModelBackend, register_backend
from cogsim.harness import RunConfig, Task, run
from cogsim.store import open_store
from web_helpers import Command, sha256

pytest_plugins = ("browser_fixtures",)  # the browser and page fixtures

MARKUP = "<script>window.cogsimInjected = 1</script><img src=x onerror=alert(1)> A"


class MarkupBackend(ModelBackend):
    """A model whose every reply is markup meant for whoever reads it (and still names option A)."""

    def __init__(self, model: str, **options):
        self.spec = f"markup:{model}"

    def complete(self, conversations, decoding=None):
        return [Completion(MARKUP, latency_s=0.01, prompt_tokens=12, completion_tokens=7) for _ in conversations]


@pytest.fixture(scope="module")
def image_run(tmp_path_factory) -> Path:
    register_backend("markup", MarkupBackend)
    out = tmp_path_factory.mktemp("view") / "run"
    config = RunConfig(tasks=[Task("kidgym/maze", 2)], agents=["oracle", "markup:m"], max_turns=3, workers=1)
    run(config, out)
    subprocess.run([str(Path(sys.executable).parent / "cogsim"), "report", str(out)], check=True, capture_output=True)
    return out


def test_view_shows_the_stored_frames_and_replies_as_text(image_run, page):
    with open_store(image_run) as store:
        first = {e["agent"]: e["episode_id"] for e in store.episodes(("done", "truncated")) if e["episode_index"] == 0}
    oracle_episode, markup_episode = first["oracle"], first["markup:m"]
    with Command("view", str(image_run), "--no-browser") as cmd:
        page.goto(cmd.url)
        expect(page.locator("h1")).to_contain_text("Run")
        page.click("text=episodes >> nth=0")
        page.click(f"a[href='/runs/0/episodes/{oracle_episode}'] >> nth=0")
        expect(page.locator("h1")).to_contain_text(f"Episode {oracle_episode}")
        sources = page.locator(".turn .frames img").evaluate_all("images => images.map(i => i.src)")
        assert sources, "the episode page shows no frame"
        for source in sources:
            response = page.request.get(source)
            assert response.ok and response.headers["content-type"] == "image/png"
            name = source.rsplit("/", 1)[1]
            stored = (image_run / "images" / name[:2] / name).read_bytes()
            assert sha256(response.body()) == sha256(stored) == name.split(".")[0]

        page.goto(f"{cmd.base()}/runs/0/episodes/{markup_episode}")
        expect(page.locator("pre.reply").first).to_have_text(MARKUP)
        assert page.evaluate("typeof window.cogsimInjected") == "undefined"
        assert page.locator("main img[src='x']").count() == 0

        page.click("text=in run 0")  # the episodes of the same env and seed
        rows = page.locator("table tr")
        expect(rows).to_have_count(3)  # the heading, this episode and the oracle's
        expect(page.locator("text=side by side with")).to_have_count(1)  # not beside itself
        page.click("text=side by side with")
        expect(page.locator(".columns h2")).to_have_count(2)
        expect(page.locator(".columns")).to_contain_text("oracle")
        expect(page.locator(".columns")).to_contain_text("markup:m")

        page.goto(f"{cmd.base()}/runs/0/episodes/{oracle_episode}/turns/1")
        expect(page.locator("h1")).to_contain_text("the prompt as sent")

        response = page.goto(f"{cmd.base()}/runs/0/report.html")
        assert "sandbox" in response.headers["content-security-policy"]
        page.click("table >> text=2 >> nth=0")  # the episode count of the first row links into the list
        expect(page.locator("h1")).to_contain_text("Episodes")
        expect(page.locator("table").last).to_contain_text("kidgym/maze")
