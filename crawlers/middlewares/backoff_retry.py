"""Scrapy's retries (5xx, 408, 429, timeouts, resets, truncated bodies), each after a wait that doubles
(``MENDEL_RETRY_BACKOFF``), or the server's ``Retry-After``, both capped (downloader middleware)."""

from __future__ import annotations

import email.utils
import time

from scrapy import Request
from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.utils.asyncio import sleep


def retry_after_seconds(value: bytes | str | None, now: float | None = None) -> float | None:
    """A ``Retry-After`` header (delta seconds or an HTTP date) in seconds from now; None when absent or bad."""
    if not value:
        return None
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    text = text.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def backoff_delay(retry_number: int, base: float, cap: float, retry_after: float | None = None) -> float:
    """Seconds to wait before retry ``retry_number`` (1, 2, ...): base, 2·base, 4·base ... or the server's
    Retry-After when it asks for longer; never more than ``cap``."""
    delay = base * 2 ** max(0, retry_number - 1)
    if retry_after is not None:
        delay = max(delay, retry_after)
    return max(0.0, min(delay, cap))


class BackoffRetryMiddleware(RetryMiddleware):
    """Scrapy's RetryMiddleware, waiting before each retry instead of re-queueing at once."""

    def __init__(self, settings):
        super().__init__(settings)
        self.backoff = settings.getfloat("MENDEL_RETRY_BACKOFF", 1.0)
        self.backoff_max = settings.getfloat("MENDEL_RETRY_BACKOFF_MAX", 60.0)

    async def _wait(self, retry: Request, retry_after: float | None = None) -> Request:
        delay = backoff_delay(retry.meta.get("retry_times", 1), self.backoff, self.backoff_max, retry_after)
        if delay > 0:
            await sleep(delay)
        return retry

    async def process_response(self, request, response, spider=None):
        result = super().process_response(request, response)
        if isinstance(result, Request):
            return await self._wait(result, retry_after_seconds(response.headers.get(b"Retry-After")))
        return result

    async def process_exception(self, request, exception, spider=None):
        result = super().process_exception(request, exception)
        if isinstance(result, Request):
            return await self._wait(result)
        return result
