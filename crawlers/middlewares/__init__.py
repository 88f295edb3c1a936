"""The crawl's downloader and spider middlewares, one class a module, declared in ``crawlers/settings.py``."""

from crawlers.middlewares.backoff_retry import BackoffRetryMiddleware, backoff_delay, retry_after_seconds
from crawlers.middlewares.host_guard import HostGuardMiddleware, OffLimits, configured_hosts, host_allowed

__all__ = [
    "BackoffRetryMiddleware",
    "HostGuardMiddleware",
    "OffLimits",
    "backoff_delay",
    "configured_hosts",
    "host_allowed",
    "retry_after_seconds",
]
