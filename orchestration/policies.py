"""Retry and concurrency policy shared by the assets that talk to other hosts."""

from dagster import Backoff, Jitter, RetryPolicy

from mendel.core.sources import SOURCES

# A failed crawl or export step is retried after ~30 s, ~90 s and ~210 s (exponential), each wait moved by up to
# ±30 s (jitter) so retries of several sources and runs don't hit a recovering host at the same moment.
NETWORK_RETRY_DELAY_S = 30
NETWORK_RETRY_ATTEMPTS = 3


def network_retry_policy(
    delay: float = NETWORK_RETRY_DELAY_S, max_retries: int = NETWORK_RETRY_ATTEMPTS
) -> RetryPolicy:
    return RetryPolicy(max_retries=max_retries, delay=delay, backoff=Backoff.EXPONENTIAL, jitter=Jitter.PLUS_MINUS)


NETWORK_RETRY = network_retry_policy()


def crawl_pool(source: str) -> str:
    """The concurrency pool of one source's crawl: with a limit of 1 (production profile) a slow site never has two
    crawls at once, whichever runs (nightly, backfill, re-crawl) they belong to, and never holds up the others.
    Named by the source registry."""
    return SOURCES[source].pool


# Run tag shared by every run that processes crawled documents (extract → NER → indexes → bundle): the production
# profile lets one such run go at a time, since they write the same build directory and bundle.
PROCESSING_TAG = "mendel/pipeline"
PROCESSING_TAG_VALUE = "process"
# Run tag naming the one source a crawl-only run works on (one queued run per source at a time).
SOURCE_TAG = "mendel/source"
# Run tag of a job whose crawl steps crawl their usual range without run config (the nightly: every source's usual
# range, every registered board). A crawl in any other run must say what it crawls in its config.
CRAWL_SCOPE_TAG = "mendel/crawl_scope"
