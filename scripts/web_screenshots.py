"""The screenshots of the play and view guides (docs/images/play.png, view-episodes.png, view-episode.png):
`cogsim play` and `cogsim view` started as a user starts them, photographed by a headless Chromium
(Debian's package, driven by Playwright). KidGym is drawn in cogsim's own look, so no picture of a
release's files reaches the docs.

    .venv/bin/python scripts/web_screenshots.py [--out docs/images]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

URL = re.compile(r"(http://\S+/\?token=\S+)")
LOOK = ("--env-option", "look=cogsim")


def cogsim(*args: str, **kwargs) -> subprocess.Popen:
    command = [str(Path(sys.executable).parent / "cogsim"), *args]
    env = {**os.environ, "DISPLAY": "", "WAYLAND_DISPLAY": ""}
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env, **kwargs)


def address(process: subprocess.Popen) -> str:
    for line in process.stdout:
        found = URL.search(line)
        if found:
            return found.group(1)
    raise SystemExit("the command printed no address")


def play_page(browser, folder: Path, out: Path) -> None:
    process = cogsim(
        "play", "kidgym/maze", *LOOK, "--seed", "7", "--out", str(folder / "play"), "--name", "ada", "--no-browser"
    )
    try:
        page = browser.new_page(viewport={"width": 1100, "height": 1240})
        page.goto(address(process))
        page.wait_for_selector("#current img")
        page.keyboard.press("A")
        page.wait_for_selector("text=turn 2")
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(out / "play.png"))
        page.get_by_role("button", name="Stop playing", exact=False).click()
        process.wait(60)
    finally:
        process.kill()


def view_pages(browser, folder: Path, out: Path) -> None:
    run = folder / "run"
    subprocess.run(
        [
            str(Path(sys.executable).parent / "cogsim"),
            "run",
            "kidgym/maze",
            *LOOK,
            "--agent",
            "oracle",
            "--agent",
            "random",
            "--episodes",
            "3",
            "--max-turns",
            "6",
            "--workers",
            "1",
            "--out",
            str(run),
            "--no-progress",
        ],
        check=True,
        capture_output=True,
    )
    process = cogsim("view", str(run), "--no-browser")
    try:
        page = browser.new_page(viewport={"width": 1100, "height": 420})
        page.goto(address(process))
        base = page.url.split("/runs/")[0]
        page.goto(f"{base}/runs/0/episodes?env=kidgym%2Fmaze")
        page.screenshot(path=str(out / "view-episodes.png"))
        page.set_viewport_size({"width": 1100, "height": 1300})
        page.goto(f"{base}/runs/0/episodes/1")
        page.screenshot(path=str(out / "view-episode.png"))
    finally:
        process.kill()


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/images", help="folder for the PNG files (default docs/images)")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    chromium = os.environ.get("COGSIM_CHROMIUM") or shutil.which("chromium")
    if not chromium:
        raise SystemExit("needs Chromium: apt-get install chromium (or set COGSIM_CHROMIUM)")
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True)
        try:
            play_page(browser, Path(scratch), out)
            view_pages(browser, Path(scratch), out)
        finally:
            browser.close()
    print(f"screenshots written to {out}")


if __name__ == "__main__":
    main()
