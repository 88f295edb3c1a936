"""One request a ``delay`` per host, whoever sends it: Scrapy's downloader or Chromium rendering a board.

Scrapy's download slot spaces the *starts* of its requests (``DOWNLOAD_DELAY``), per slot. That is not quite what
a site sees: a request whose connection was slow to open arrives late and the next one, started on time, follows it
sooner than the delay; a rendered board page sits in a slot of its own (the browser's), and Chromium's own requests
for the page's script and data pass no Scrapy slot at all. :class:`HostPacer` closes those gaps at the point where
a request really leaves — the download handler, and the route every Chromium request passes — by host name:

- a request to a host starts no sooner than ``delay`` after the previous request to it started, and
- no sooner than ``delay`` after the previous one answered (when this process knows it: Scrapy's own requests),

so two requests to a host never arrive closer than ``delay``, however the downloads overlap. A shared hosting
provider (:mod:`mendel.crawl.boards.hosting`: customers on subdomains of its own) is one host to the pacer once the
crawl names it (:meth:`HostPacer.share`): its customers' hosts take turns.
"""

from __future__ import annotations

import asyncio
from time import monotonic
from urllib.parse import urlsplit

from mendel.crawl.boards.hosting import politeness_host


def url_host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


class HostPacer:
    def __init__(self, delay: float):
        self.delay = max(0.0, float(delay))
        self._next_start: dict[str, float] = {}  # host (or provider) → earliest start of its next request
        self.providers: frozenset[str] = frozenset()  # shared hosting providers, each paced as one host

    def share(self, providers) -> None:
        """Pace every host under one of ``providers`` (registrable domains) as that one host."""
        self.providers = frozenset(self.providers | set(providers))

    def key(self, host: str) -> str:
        return politeness_host(host, self.providers) if self.providers else host

    def ready_at(self, host: str) -> float:
        """The earliest moment (``time.monotonic``) a request to ``host`` may start; 0 for a host not asked yet."""
        return self._next_start.get(self.key(host), 0.0)

    async def wait_turn(self, host: str) -> float:
        """Wait until ``host`` may be asked again and book that moment; returns the seconds waited."""
        if self.delay <= 0 or not host:
            return 0.0
        host = self.key(host)
        now = monotonic()
        start = max(now, self._next_start.get(host, 0.0))
        # Booked before sleeping: callers that arrive meanwhile queue up behind, each a delay later.
        self._next_start[host] = start + self.delay
        if start > now:
            await asyncio.sleep(start - now)
        return start - now

    def answered(self, host: str) -> None:
        """The request to ``host`` has its answer (or failed): the next one waits a full delay from now."""
        if self.delay <= 0 or not host:
            return
        host = self.key(host)
        self._next_start[host] = max(self._next_start.get(host, 0.0), monotonic() + self.delay)


def crawler_pacer(crawler, delay: float) -> HostPacer:
    """The crawl's one pacer, shared by its download handlers (one per URL scheme)."""
    pacer = getattr(crawler, "_mendel_host_pacer", None)
    if pacer is None:
        pacer = HostPacer(delay)
        crawler._mendel_host_pacer = pacer
    return pacer


# Request meta the download handlers read: a request not paced per host (UNPACED: the download slot UNPACED_SLOT, no
# delay; a profile that stands one origin in for many hosts sends such requests), or paced as another host than its
# URL's (PACE_HOST: the host that published the URL).
UNPACED = "mendel_unpaced"
PACE_HOST = "mendel_pace_host"
UNPACED_SLOT = "unpaced"
