"""Fixtures of the serving tests."""

from __future__ import annotations

import pytest

from tests.support.law import index_in_two_steps


@pytest.fixture(scope="session")
def indexed(pg_server_url, tmp_path_factory) -> dict:
    """vyhláška 573/2025 Sb. crawled with its three versions and indexed in two steps, the 1. 10. 2026 version
    second (tests/support/law.py); the tests only read it."""
    return index_in_two_steps(pg_server_url, tmp_path_factory.mktemp("in-force-home"))
