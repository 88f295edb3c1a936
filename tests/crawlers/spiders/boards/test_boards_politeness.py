"""Politeness as the sites see it: a board crawl with a per-host delay, measured where the requests arrive (the
mirror's board hosts), counting every request a host gets — robots.txt, the feed, attachments, and for a
JavaScript board what Chromium fetches itself (the page and the notices its script loads)."""

from __future__ import annotations

import pytest

from mendel.core.config import SAMPLE_CORPUS
from mendel.crawl.boards.register import write_boards_file
from mirror.municipal import JS_BOARD_API, JS_BOARD_PATH
from mirror.server import MirrorThread
from tests.support.boards import scaled_crawl

DELAY = 0.3
CLOCK_TOLERANCE = 0.05  # a request's arrival is stamped when the mirror's thread reads it, not on the wire
ATTACHMENTS = 3


@pytest.mark.e2e
@pytest.mark.browser
def test_every_request_to_a_board_host_waits_its_turn(tmp_path, fresh_db, monkeypatch):
    with MirrorThread(SAMPLE_CORPUS, scale=10) as mirror:
        run, register, by_host = scaled_crawl(mirror, monkeypatch, tmp_path, fresh_db)
        scale = mirror.server.scale
        ofn = sorted(
            (b for b in register if not b.javascript), key=lambda b: len(scale.content(by_host[b.host].index)[0])
        )[:3]
        chosen = ofn + [b for b in register if b.javascript]
        assert len(chosen) == 4
        counts = run(
            "boards",
            "polite-1",
            MENDEL_BOARDS_FILE=str(write_boards_file(chosen, tmp_path / "b.json")),
            MENDEL_BOARD_DOWNLOAD_DELAY=str(DELAY),
            MENDEL_BOARD_MAX_ATTACHMENTS=str(ATTACHMENTS),
        )
        arrivals = {h: sorted(hits) for h, hits in mirror.server.board_hosts.arrivals.items()}
        summary = mirror.server.board_hosts.politeness(DELAY)

    assert counts["stored"] > 0 and counts["playwright_pages"] == 1
    # Chromium asked for the page and its notices (each waited for the previous answer, none waited in vain).
    assert counts["boards_browser_requests"] == 2 and "boards_browser_unanswered" not in counts
    assert set(arrivals) == {b.host for b in chosen}
    for host, hits in arrivals.items():
        paths = [path for _, path in hits]
        # Each host got robots.txt once, its board, and the attachments (a bounded number).
        assert paths.count("/robots.txt") == 1, (host, paths)
        attachments = [p for p in paths if p.startswith("/filemanager/files/")]
        expected = min(ATTACHMENTS, len(scale.content(by_host[host].index)[1]))
        assert len(attachments) == expected, (host, paths)
        if by_host[host].javascript:  # Chromium's own requests are counted like the crawler's
            assert paths.count(JS_BOARD_PATH) == 1 and paths.count(JS_BOARD_API) == 1, paths
        gaps = [round(b[0] - a[0], 3) for a, b in zip(hits, hits[1:])]
        assert gaps and min(gaps) >= DELAY - CLOCK_TOLERANCE, (host, list(zip(paths[1:], gaps)))
    assert summary["requests"] == sum(len(hits) for hits in arrivals.values())
    assert summary["min_gap_s"] >= DELAY - CLOCK_TOLERANCE
    assert summary["robots_txt_requests"] == 4 and summary["browser_own_requests"] == 1


def test_host_queue_hands_out_idle_hosts_first_and_counts_its_requests():
    from types import SimpleNamespace

    from scrapy import Request
    from scrapy.squeues import FifoMemoryQueue
    from scrapy.utils.test import get_crawler

    from crawlers.host_queue import LongestReadyHostPriorityQueue

    crawler = get_crawler()
    slots: dict[str, SimpleNamespace] = {}
    crawler.engine = SimpleNamespace(
        downloader=SimpleNamespace(slots=slots, get_slot_key=lambda request: request.url.split("/")[2])
    )
    queue = LongestReadyHostPriorityQueue.from_crawler(crawler, FifoMemoryQueue, "")
    for url in ("http://a/1", "http://a/2", "http://a/3", "http://b/1", "http://c/1"):
        queue.push(Request(url))
    assert len(queue) == 5
    # a (the longest queue) has a request in the downloader: b and c go first, then a's in order
    slots["a"] = SimpleNamespace(active={"a/0"}, concurrency=1, lastseen=0.0, delay=0.0)
    order = [queue.pop().url for _ in range(2)]
    slots["a"].active.clear()
    order += [queue.pop().url for _ in range(3)]
    assert order == ["http://b/1", "http://c/1", "http://a/1", "http://a/2", "http://a/3"]
    assert len(queue) == 0 and queue.pop() is None


@pytest.mark.parametrize(
    "environ, delay",
    [
        ({"MENDEL_PROFILE": "production"}, 1.0),  # real hosts: production's pace
        ({"MENDEL_PROFILE": "production", "MENDEL_BOARD_DOWNLOAD_DELAY": ""}, 1.0),
        ({"MENDEL_PROFILE": "production", "MENDEL_BOARD_DOWNLOAD_DELAY": "2.5"}, 2.5),
        ({"MENDEL_PROFILE": "demo"}, 0.2),  # the mirror's made-up hosts
        ({}, 0.2),  # no profile set is the demo (mendel.core.config.Settings)
        ({"MENDEL_PROFILE": "demo", "MENDEL_BOARD_DOWNLOAD_DELAY": "1"}, 1.0),  # the crawl-scale benchmarks
        ({"MENDEL_PROFILE": "demo", "MENDEL_BOARD_DOWNLOAD_DELAY": "0"}, 0.0),  # tests
    ],
)
def test_a_board_host_is_paced_as_production_unless_the_demo_mirror_stands_in(environ, delay):
    from crawlers.spiders.boards import board_delay

    assert board_delay(environ) == delay
