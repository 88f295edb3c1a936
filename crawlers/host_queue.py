"""Scrapy's downloader-aware scheduling queue, longest host queue first, without a scan of every host per request.

:class:`scrapy.pqueues.DownloaderAwarePriorityQueue` picks, for every request it hands out, the host with the fewest
requests in the downloader by looking at every host with queued requests: over 1,500 board hosts, 1,500 look-ups
per request. Taking the hosts in turn instead (one request each, round after round) is cheap but slow at the end:
a crawl can never finish sooner than its busiest host's requests one delay apart, and in turns the busiest host
got one request per round of 1,300 hosts, so most of its queue was left for the end.

Here a pop hands out the next request of the **ready host with the most requests waiting**: ready is nothing of it
in the downloader (fewer than its slot's concurrency) and its pacing gap elapsed — the per-host delay of the
crawl's :class:`crawlers.host_pacing.HostPacer` and of Scrapy's download slot. The busiest hosts so start at once
and get a request every delay, the others fill the time between. Hosts are kept in a heap by queue length
(equal lengths: the one that waited longest first), so a pop looks only at the hosts that are not ready (in the
downloader or in their gap) before it finds one.

Fair: a host handed a request is not ready again before its answer and a delay after it, so within one delay a
waiting host is passed over at most once by each other host. When no host is ready, the longest queue among the
hosts with nothing in the downloader goes anyway and waits its gap out in the downloader (the pacer holds it):
no crawl stalls waiting for the engine's next heartbeat. Politeness never depends on this queue — the pacer and
the download slot keep every host's gap — only how well the gaps are filled does. Inside one host, Scrapy's
priorities hold (each host's requests are a :class:`scrapy.pqueues.ScrapyPriorityQueue`).
"""

from __future__ import annotations

import heapq
from itertools import count
from time import monotonic, time

from scrapy.pqueues import DownloaderAwarePriorityQueue

from crawlers.host_pacing import crawler_pacer


class LongestReadyHostPriorityQueue(DownloaderAwarePriorityQueue):
    def __init__(self, crawler, *args, **kwargs):
        super().__init__(crawler, *args, **kwargs)
        self._pacer = crawler_pacer(crawler, crawler.settings.getfloat("DOWNLOAD_DELAY"))
        self._turns = count()
        self._waited_since: dict[str, int] = {}  # host → the turn number when it last got a request (or arrived)
        # (−queued, waited since, host); an entry whose count no longer matches its host's queue is stale.
        self._heap: list[tuple[int, int, str]] = []
        self._queued = 0
        for slot, queue in self.pqueues.items():
            self._waited_since[slot] = next(self._turns)
            self._heap_push(slot, len(queue))
            self._queued += len(queue)

    def _heap_push(self, slot: str, queued: int) -> None:
        heapq.heappush(self._heap, (-queued, self._waited_since[slot], slot))
        if len(self._heap) > 4 * len(self.pqueues) + 64:  # mostly stale entries: rebuild
            self._heap = [(-len(q), self._waited_since[s], s) for s, q in self.pqueues.items()]
            heapq.heapify(self._heap)

    def _is_current(self, entry: tuple[int, int, str]) -> bool:
        queued, since, slot = entry
        queue = self.pqueues.get(slot)
        return queue is not None and -queued == len(queue) and since == self._waited_since[slot]

    def push(self, request) -> None:
        slot = self._downloader_interface.get_slot_key(request)
        if slot not in self.pqueues:
            self._waited_since[slot] = next(self._turns)
        super().push(request)
        self._queued += 1
        self._heap_push(slot, len(self.pqueues[slot]))

    def _state(self, slot: str, now_monotonic: float, now_wall: float) -> str:
        """ "ready", "gap" (nothing in the downloader, its delay not over yet) or "busy"."""
        download_slot = self._downloader_interface.downloader.slots.get(slot)
        if download_slot is not None:
            if len(download_slot.active) >= max(1, download_slot.concurrency):
                return "busy"
            if download_slot.lastseen + download_slot.delay > now_wall:
                return "gap"
        return "ready" if self._pacer.ready_at(slot) <= now_monotonic else "gap"

    def pop(self):
        heap, queues = self._heap, self.pqueues
        now_monotonic, now_wall = monotonic(), time()
        passed_over: list[tuple[int, int, str]] = []
        chosen = fallback = None
        while heap:
            entry = heapq.heappop(heap)
            if not self._is_current(entry):
                continue
            state = self._state(entry[2], now_monotonic, now_wall)
            if state == "ready":
                chosen = entry[2]
                break
            if state == "gap" and fallback is None:
                fallback = entry[2]  # the longest queue of the hosts waiting out their gap
            passed_over.append(entry)
        for entry in passed_over:
            heapq.heappush(heap, entry)
        chosen = chosen or fallback
        if chosen is None:  # every host has requests in the downloader: its answers call for the next pop
            return None
        queue = queues[chosen]
        request = queue.pop()
        if request is not None:
            self._queued -= 1
        if len(queue) == 0:
            del queues[chosen]
            del self._waited_since[chosen]
            queue.close()
        else:
            self._waited_since[chosen] = next(self._turns)  # behind the hosts of equal length
            self._heap_push(chosen, len(queue))
        return request

    def peek(self):
        raise NotImplementedError("the next request depends on the moment it is asked for")

    def close(self):
        self._heap.clear()
        self._waited_since.clear()
        self._queued = 0
        return super().close()

    def __len__(self) -> int:
        return self._queued
