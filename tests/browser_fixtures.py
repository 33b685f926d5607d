"""The browser fixtures of the tests of ``cogsim play`` and ``cogsim view`` (a test module names this
plugin in ``pytest_plugins``): a headless Chromium (the system's, see ``web_helpers.chromium_path``)
per module and a fresh page, with its own cookies, per test."""

from __future__ import annotations

import pytest

from web_helpers import chromium_path


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium (the system's), one per test module."""
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, headless=True, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    opened = context.new_page()
    yield opened
    context.close()
