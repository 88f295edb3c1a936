"""The board crawl's scheduling queue (crawlers.host_queue), driven by a simulated downloader and clock: one long
host among many short ones, each host paced one request a delay (from the previous start and the previous answer)."""

from __future__ import annotations

import heapq
from types import SimpleNamespace

import pytest
from scrapy import Request
from scrapy.squeues import FifoMemoryQueue
from scrapy.utils.test import get_crawler

import crawlers.host_queue as host_queue

DELAY = 1.0
LATENCY = 0.2  # seconds from a request's start to its answer
CONCURRENCY = 4  # requests in the downloader at once (waiting out a gap included)
HEARTBEAT = 5.0  # Scrapy's engine asks the scheduler again at least this often
LONG_REQUESTS = 60
SHORT_HOSTS, SHORT_REQUESTS = 200, 4


class SimulatedCrawl:
    """Scrapy's engine, downloader and the host pacer in virtual time: the engine pops while the downloader has
    room, whenever an answer comes and at each heartbeat; a request starts no sooner than a delay after its host's
    previous start and previous answer."""

    def __init__(self, monkeypatch, queue_cls=host_queue.LongestReadyHostPriorityQueue):
        self.now = 0.0
        monkeypatch.setattr(host_queue, "monotonic", lambda: self.now)
        monkeypatch.setattr(host_queue, "time", lambda: self.now)
        self.crawler = get_crawler(settings_dict={"DOWNLOAD_DELAY": DELAY})
        self.slots: dict[str, SimpleNamespace] = {}
        self.crawler.engine = SimpleNamespace(
            downloader=SimpleNamespace(slots=self.slots, get_slot_key=lambda request: request.url.split("/")[2])
        )
        self.queue = queue_cls.from_crawler(self.crawler, FifoMemoryQueue, "")
        self.next_start: dict[str, float] = {}
        self.queue._pacer = SimpleNamespace(ready_at=lambda host: self.next_start.get(host, 0.0))
        self.starts: dict[str, list[float]] = {}
        self.order: list[str] = []

    def run(self) -> float:
        in_flight: list[tuple[float, int, str]] = []  # (answer time, seq, host)
        events, seq = [0.0], 0
        while events or in_flight:
            self.now = min([*events, *(a for a, _, _ in in_flight[:1])])
            events = [t for t in events if t > self.now]
            while in_flight and in_flight[0][0] <= self.now:
                _, _, host = heapq.heappop(in_flight)
                self.slots[host].active.discard(host)
                self.next_start[host] = max(self.next_start[host], self.now + DELAY)
            while len(in_flight) < CONCURRENCY:
                request = self.queue.pop()
                if request is None:
                    break
                host = request.url.split("/")[2]
                slot = self.slots.setdefault(
                    host, SimpleNamespace(active=set(), concurrency=1, lastseen=-1e9, delay=DELAY)
                )
                assert not slot.active, "a host got a second request while one was in the downloader"
                slot.active.add(host)
                start = max(self.now, self.next_start.get(host, 0.0), slot.lastseen + slot.delay)
                slot.lastseen = start
                self.next_start[host] = start + DELAY
                self.starts.setdefault(host, []).append(start)
                self.order.append(host)
                seq += 1
                heapq.heappush(in_flight, (start + LATENCY, seq, host))
            if len(self.queue):
                events.append(self.now + HEARTBEAT)
        return max(max(s) for s in self.starts.values()) + LATENCY


def push_long_and_short_hosts(queue) -> None:
    """Short hosts first, as a crawl's boards come; the long host's requests arrive last."""
    for h in range(SHORT_HOSTS):
        for n in range(SHORT_REQUESTS):
            queue.push(Request(f"http://short{h}.test/{n}"))
    for n in range(LONG_REQUESTS):
        queue.push(Request(f"http://long.test/{n}"))


def test_the_long_host_starts_at_once_and_the_crawl_ends_near_its_floor(monkeypatch):
    crawl = SimulatedCrawl(monkeypatch)
    push_long_and_short_hosts(crawl.queue)
    assert len(crawl.queue) == SHORT_HOSTS * SHORT_REQUESTS + LONG_REQUESTS
    wall = crawl.run()
    assert len(crawl.queue) == 0 and crawl.queue.pop() is None

    long_starts = crawl.starts["long.test"]
    assert len(long_starts) == LONG_REQUESTS and crawl.order[0] == "long.test"
    # Its floor: each request a delay after the previous answer. The crawl ends within 5 % of it.
    floor = (LONG_REQUESTS - 1) * (DELAY + LATENCY) + LATENCY
    assert wall <= floor * 1.05, (wall, floor)
    # The long host's requests interleave with the short hosts' instead of waiting for them.
    short_starts = sorted(s for host, starts in crawl.starts.items() if host != "long.test" for s in starts)
    assert long_starts[LONG_REQUESTS // 2] < short_starts[-1]
    # Politeness: never two starts to one host closer than the delay, nor sooner than a delay after an answer.
    for host, starts in crawl.starts.items():
        gaps = [b - a for a, b in zip(starts, starts[1:])]
        assert not gaps or min(gaps) >= DELAY + LATENCY - 1e-9, host
    # Fair: every short host has all its requests, and its first one early (no host waits for the long one).
    assert all(len(crawl.starts[f"short{h}.test"]) == SHORT_REQUESTS for h in range(SHORT_HOSTS))
    first_short_starts = [crawl.starts[f"short{h}.test"][0] for h in range(SHORT_HOSTS)]
    assert max(first_short_starts) < wall / 2


def test_hosts_taking_turns_would_leave_the_long_host_for_the_end(monkeypatch):
    """The same crawl with a queue that ignores queue lengths (the hosts in their order): far from the floor —
    what the longest-queue order is there to avoid."""

    class ArrivalOrderQueue(host_queue.LongestReadyHostPriorityQueue):
        def _heap_push(self, slot, queued):
            heapq.heappush(self._heap, (0 if queued else 1, self._waited_since[slot], slot))

        def _is_current(self, entry):
            return entry[2] in self.pqueues and entry[1] == self._waited_since[entry[2]]

    crawl = SimulatedCrawl(monkeypatch, ArrivalOrderQueue)
    push_long_and_short_hosts(crawl.queue)
    turns_wall = crawl.run()
    floor = (LONG_REQUESTS - 1) * (DELAY + LATENCY) + LATENCY
    assert turns_wall > floor * 1.2, (turns_wall, floor)


def test_priorities_hold_inside_a_host_and_busy_hosts_wait(monkeypatch):
    crawl = SimulatedCrawl(monkeypatch)
    queue = crawl.queue
    queue.push(Request("http://a.test/attachment", priority=-1))
    queue.push(Request("http://a.test/listing", priority=1))
    queue.push(Request("http://b.test/listing"))
    assert queue.pop().url == "http://a.test/listing"  # the longest queue, its highest priority first
    crawl.slots["a.test"] = SimpleNamespace(active={"x"}, concurrency=1, lastseen=0.0, delay=DELAY)
    assert queue.pop().url == "http://b.test/listing"
    crawl.slots["b.test"] = SimpleNamespace(active={"y"}, concurrency=1, lastseen=0.0, delay=DELAY)
    assert queue.pop() is None and len(queue) == 1  # everyone in the downloader: nothing handed out
    crawl.slots["a.test"].active.clear()  # answered, its gap not over: handed out anyway (the pacer holds it)
    assert queue.pop().url == "http://a.test/attachment"
    assert len(queue) == 0 and queue.pop() is None


def test_a_ready_host_goes_before_a_longer_one_in_its_gap(monkeypatch):
    crawl = SimulatedCrawl(monkeypatch)
    for n in range(5):
        crawl.queue.push(Request(f"http://long.test/{n}"))
    crawl.queue.push(Request("http://short.test/0"))
    crawl.next_start["long.test"] = 0.5  # its previous request answered less than a delay ago
    assert crawl.queue.pop().url == "http://short.test/0"
    crawl.now = 0.5
    assert crawl.queue.pop().url == "http://long.test/0"


def test_peek_is_refused():
    crawler = get_crawler(settings_dict={"DOWNLOAD_DELAY": DELAY})
    crawler.engine = SimpleNamespace(downloader=SimpleNamespace(slots={}, get_slot_key=lambda r: "h"))
    queue = host_queue.LongestReadyHostPriorityQueue.from_crawler(crawler, FifoMemoryQueue, "")
    with pytest.raises(NotImplementedError):
        queue.peek()
