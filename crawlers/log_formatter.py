"""Scrapy's log formatter without its DEBUG line per response ("Crawled") and per item ("Scraped from") when the
crawl logs above DEBUG: Scrapy builds their log records before the handler drops them, a cost on the reactor thread
for every response and item at the board crawl's scale, for nothing shown."""

from __future__ import annotations

import logging

from scrapy.logformatter import LogFormatter


class QuietLogFormatter(LogFormatter):
    @staticmethod
    def _shown(spider) -> bool:
        level = spider.settings.get("LOG_LEVEL") if spider is not None else None
        level = logging.getLevelName(level) if isinstance(level, str) else level
        return not isinstance(level, int) or level <= logging.DEBUG

    def crawled(self, request, response, spider):
        return super().crawled(request, response, spider) if self._shown(spider) else None

    def scraped(self, item, response, spider):
        return super().scraped(item, response, spider) if self._shown(spider) else None
