"""A board crawl against the mirror's scale mode: the crawl runner, the register the mirror serves (read as the
register step reads it) and the mirror's generated board of each host — shared by the politeness and budget tests."""

from __future__ import annotations

from assets.boards.register_read import read_register
from mendel.core.config import Settings
from mirror.municipal import observe_robots_txt
from mirror.scale import HTML_LIST_PATH
from tests.support.crawl import crawl_runner


def scaled_crawl(mirror, monkeypatch, tmp_path, database_url):
    """A crawl runner against a scale-mode mirror (its board hosts' requests observed), the register it serves and
    the mirror's generated board of each host."""
    observe_robots_txt(mirror.server)
    run = crawl_runner(monkeypatch, tmp_path, database_url, mirror.base_url)
    register = read_register(
        Settings(profile="demo", mirror_url=mirror.base_url, html_boards=mirror.base_url + HTML_LIST_PATH)
    )
    return run, register, {b.host: b for b in mirror.server.scale.boards}
