"""Fixtures of the web tests: Chromium for the browser tests, and a page of it for each test."""

from __future__ import annotations

import pytest

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium (Playwright's sync API), closed with its module so that no other module's tests run beside
    Playwright's event loop; each test opens its own context."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium: apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1100, "height": 900}, locale="cs-CZ")
    yield context.new_page()
    context.close()
