"""Scrapy's downloader-aware scheduling queue without a scan of every host on each request.

:class:`scrapy.pqueues.DownloaderAwarePriorityQueue` picks, for every request it hands out, the host with the fewest
requests in the downloader by looking at every host with queued requests. Over 1,500 board hosts that is 1,500
look-ups per request, ~25,000 requests a crawl: CPU that grows with the square of the crawl. Here hosts with queued
requests take turns: a pop takes the first host in line with nothing in the downloader (a busy one goes to the
back of the line), or, when every host is busy, the first in line — the same choice in practice (one request at a
time per board host), at the cost of the busy hosts in front of the line.
"""

from __future__ import annotations

from collections import deque

from scrapy.pqueues import DownloaderAwarePriorityQueue


class HostTurnsPriorityQueue(DownloaderAwarePriorityQueue):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._line: deque[str] = deque(self.pqueues)  # hosts with queued requests, in turn order
        self._queued = sum(len(q) for q in self.pqueues.values())

    def push(self, request) -> None:
        slot = self._downloader_interface.get_slot_key(request)
        if slot not in self.pqueues:
            self._line.append(slot)
        super().push(request)
        self._queued += 1

    def pop(self):
        line, queues = self._line, self.pqueues
        chosen = None
        for _ in range(len(line)):
            slot = line[0]
            if slot not in queues:  # emptied meanwhile
                line.popleft()
                continue
            if self._downloader_interface._active_downloads(slot) == 0:
                chosen = slot
                break
            line.rotate(-1)
        if chosen is None:
            if not line:
                return None
            chosen = line[0]
        queue = queues[chosen]
        request = queue.pop()
        if len(queue) == 0:
            del queues[chosen]
            queue.close()
            line.popleft()
        else:
            line.rotate(-1)  # its next request waits for the others' turns
        if request is not None:
            self._queued -= 1
        return request

    def close(self):
        self._line.clear()
        self._queued = 0
        return super().close()

    def __len__(self) -> int:
        return self._queued
