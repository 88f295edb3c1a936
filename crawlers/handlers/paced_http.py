"""Scrapy's HTTP download handler, each request in its host's turn (:class:`crawlers.host_pacing.HostPacer`)."""

from __future__ import annotations

from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler

from crawlers.host_pacing import PACE_HOST, UNPACED, crawler_pacer, url_host


class PacedHTTPDownloadHandler(HTTP11DownloadHandler):
    def __init__(self, crawler):
        super().__init__(crawler)
        self.pacer = crawler_pacer(crawler, crawler.settings.getfloat("DOWNLOAD_DELAY"))

    async def download_request(self, request):
        if request.meta.get(UNPACED):
            return await super().download_request(request)
        host = request.meta.get(PACE_HOST) or url_host(request.url)
        await self.pacer.wait_turn(host)
        try:
            return await super().download_request(request)
        finally:
            self.pacer.answered(host)
