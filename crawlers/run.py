"""Run spiders in one process, one Twisted reactor (it can't restart), all at once, and report each source's counts
through Dagster Pipes.

    python -m crawlers.run esbirka                # one source of the registry (mendel.core.sources)
    python -m crawlers.run esbirka nsoud nalus    # several, crawling side by side

Reads MENDEL_* settings from the environment. When started by a Pipes client, each source's counts become the
materialization of its own asset (``Source.asset``); a source whose crawl failed is reported as failed (an error
line and a ``failed`` message) while the others' counts still come back. Run by hand, it prints the counts: one
source's as a dict, several sources' as a dict by source.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field

import psycopg
from dagster_pipes import DAGSTER_PIPES_CONTEXT_ENV_VAR, open_dagster_pipes
from scrapy.crawler import CrawlerProcess
from scrapy.settings import Settings as ScrapySettings
from scrapy.utils.misc import load_object
from scrapy.utils.reactor import install_reactor
from twisted.internet.defer import DeferredList, inlineCallbacks
from twisted.internet.task import deferLater

from crawlers import settings as crawler_settings
from crawlers.database_outage import crawl_outage
from mendel.core.config import Settings, get_settings
from mendel.core.sources import SOURCES
from mendel.crawl import crawlstate
from mendel.crawl.outage import OUTAGE_EXIT_CODE, DatabaseOutage, database_reachable, is_outage, replay_spools


class Spiders(Mapping):
    """The spider class of each source of the registry, imported when first asked for: a crawl process loads only
    its own sources' spiders (the board spider brings Playwright: ~0.3 s of every other crawl's start-up)."""

    def __init__(self, sources: Mapping):
        self._sources = sources
        self._loaded: dict[str, type] = {}

    def __getitem__(self, name: str) -> type:
        if name not in self._loaded:
            self._loaded[name] = load_object(self._sources[name].spider)
        return self._loaded[name]

    def __iter__(self):
        return iter(self._sources)

    def __len__(self) -> int:
        return len(self._sources)


SPIDERS = Spiders(SOURCES)
FAILED_MESSAGE = "failed"  # the Pipes custom message naming the sources whose crawl failed: {"failed": {name: why}}
LOCK_POLL_S = 5.0  # how often a crawl waiting for its source's lock asks again
logger = logging.getLogger("mendel.crawl")


def spider_arguments(name: str) -> dict:
    """What the spider of a source is started with in this environment (its registry entry and the settings)."""
    return SPIDERS[name].arguments(get_settings())


@dataclass
class Crawls:
    """What one process's crawls came to: counts by source, and why each failed source failed."""

    counts: dict[str, dict] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    outages: list[str] = field(default_factory=list)  # one line per source a database outage stopped


def scrapy_settings(settings: Settings, run_id: str, database_url: str) -> ScrapySettings:
    """The settings every crawler of the process shares (each spider adds its own custom_settings)."""
    spool_dir = settings.home / "crawl_spool"
    scrapy = ScrapySettings()
    scrapy.setmodule(crawler_settings, priority="project")
    scrapy.set("MENDEL_DATABASE_URL", database_url)
    scrapy.set("MENDEL_RAW_STORE", str(settings.raw_store))
    scrapy.set("MENDEL_RUN_ID", run_id)
    scrapy.set("MENDEL_CRAWL_SPOOL", str(spool_dir))
    scrapy.set("MENDEL_HOST_GUARD", settings.profile == "production")
    if settings.profile != "production":  # every site is the local mirror (crawlers.demo, loaded only here)
        from crawlers import demo

        scrapy.setdict(demo.settings(settings.rebase_origin()), priority="project")
    return scrapy


def crawl_counts(conn: psycopg.Connection, crawler, run_id: str, duration_s: float) -> dict:
    """Counts by outcome of one finished crawl, plus what Scrapy saw."""
    spider = crawler.spider
    stats = crawler.stats.get_stats()
    counts = crawlstate.outcome_counts(conn, run_id, spider.source)
    # Put off to the next run (the board crawl's budget per host): logged, not discovered in this run.
    counts["deferred"] = crawlstate.deferred_count(conn, run_id, spider.source)
    counts["discovered"] = spider.discovered
    counts["requests"] = int(stats.get("downloader/request_count", 0))
    counts["bytes"] = int(stats.get("downloader/response_bytes", 0))
    counts["duration_s"] = round(duration_s, 3)
    counts["finish_reason"] = str(stats.get("finish_reason"))
    counts["listing_failed"] = int(stats.get("mendel/listing_failed", 0))
    counts["responses"] = int(stats.get("downloader/response_count", 0))
    counts["withdrawn"] = int(stats.get("mendel/withdrawn", 0))
    counts["reactivated"] = int(stats.get("mendel/reactivated", 0))
    counts["held_back"] = int(stats.get("mendel/held_back", 0))  # gone URLs in their backoff: logged, not requested
    for key, value in stats.items():  # the board crawl: boards by kind, attachments left unfetched
        if key.startswith("mendel/boards/") or key == "mendel/attachments_over_limit":
            counts[key.split("/", 1)[1].replace("/", "_")] = int(value)
    if "playwright/page_count" in stats:  # pages Chromium rendered
        counts["playwright_pages"] = int(stats["playwright/page_count"])
    for key in ("listing_from", "listing_covered_to"):  # an incremental search's start, and its coverage moved on
        if f"mendel/{key}" in stats:
            counts[key] = str(stats[f"mendel/{key}"])
    # a day-by-day source's publication days; NALUS's file numbers searched, and those held and not due
    for key in ("days_closed", "days_read_open", "days_skipped_closed", "dockets_searched", "dockets_not_due"):
        if f"mendel/{key}" in stats:
            counts[key] = int(stats[f"mendel/{key}"])
    for outcome in ("stored", "unchanged", "failed"):  # e-Sbírka act versions assembled from fragments
        if stats.get(f"mendel/fragments/{outcome}"):
            counts[f"act_versions_{outcome}"] = int(stats[f"mendel/fragments/{outcome}"])
    return counts


def take_crawl_lock(database_url: str, source: str) -> psycopg.Connection | None:
    """The source's crawl lock (named by its pool, mendel.core.sources; per database schema), held by the returned
    connection until it closes, or None while another crawl of the source holds it: whichever runs ask (the nightly,
    a re-crawl, a backfill window), one site is never crawled twice at once, and the other sources go on."""
    conn = psycopg.connect(database_url, autocommit=True)
    if conn.execute(
        "SELECT pg_try_advisory_lock(hashtextextended(current_schema() || ':' || %s, 0))", (SOURCES[source].pool,)
    ).fetchone()[0]:
        return conn
    conn.close()
    return None


@inlineCallbacks
def crawl_when_free(process: CrawlerProcess, crawler, name: str, database_url: str, durations: dict):
    """Crawl one source once its crawl lock is free (polled every LOCK_POLL_S seconds, the reactor going on)."""
    from twisted.internet import reactor

    lock = take_crawl_lock(database_url, name)
    if lock is None:
        logger.warning("%s: another crawl of this source is running; this one waits for it", name)
    while lock is None:
        yield deferLater(reactor, LOCK_POLL_S, lambda: None)
        lock = take_crawl_lock(database_url, name)
    try:
        started = time.monotonic()
        yield process.crawl(crawler, **spider_arguments(name))
        durations[name] = time.monotonic() - started
    finally:
        lock.close()


def run_spiders(names: list[str], run_id: str, database_url: str) -> Crawls:
    """Crawl the sources to completion side by side in one reactor. A source whose crawl raised is in ``failed``,
    one a database outage stopped in ``outages`` (and ``failed``); the others' counts are kept either way."""
    settings = get_settings()
    if not database_reachable(database_url):
        raise DatabaseOutage(f"{', '.join(names)}: PostgreSQL is unreachable; nothing crawled")
    # What a crawl stopped by an outage could not write (mendel.crawl.outage) goes in before anything else.
    replayed = replay_spools(database_url, settings.home / "crawl_spool")
    process = CrawlerProcess(scrapy_settings(settings, run_id, database_url))
    # The reactor the crawlers ask for, installed now: a crawl waiting for its lock needs it before any crawl starts.
    install_reactor(process.settings["TWISTED_REACTOR"], process.settings["ASYNCIO_EVENT_LOOP"])
    from twisted.internet import reactor

    crawls = Crawls()
    crawlers = {name: process.create_crawler(SPIDERS[name]) for name in names}
    durations: dict[str, float] = {}

    def failed(failure, name: str) -> None:  # a crawl that raised (its spider failed to start, …): the others go on
        why = f"{failure.type.__name__}: {failure.getErrorMessage()}"
        logger.error("%s: the crawl failed", name, exc_info=(failure.type, failure.value, failure.getTracebackObject()))
        if is_outage(failure.value):
            why = f"{name}: database outage ({why})"
            crawls.outages.append(why)
        crawls.failed[name] = why

    finished = []
    for name, crawler in crawlers.items():
        crawl = crawl_when_free(process, crawler, name, database_url, durations)
        finished.append(crawl.addErrback(failed, name))
    done = DeferredList(finished)
    if not done.called:  # (every crawl may have failed to start already)
        done.addBoth(lambda _: reactor.running and reactor.stop())
        process.start(stop_after_crawl=False)
    for name in names:
        if name not in durations and name not in crawls.failed:  # stopped (SIGINT) before its crawl ended
            crawls.failed[name] = "the crawl was stopped before it finished"
    for name, crawler in crawlers.items():
        outage = crawl_outage(crawler)
        if name in durations and outage.reason:
            spool = outage.spool
            crawls.failed[name] = (
                f"{name}: database outage ({outage.reason}); the crawl stopped after "
                f"{crawler.spider.discovered} URLs, {spool.entries if spool else 0} writes kept in "
                f"{spool.path if spool else 'no spool'} for the next crawl"
            )
            crawls.outages.append(crawls.failed[name])
    if crawls.outages:  # the database is gone: no counts to read, the spools wait for the next crawl
        return crawls
    with psycopg.connect(database_url) as conn:
        for name, crawler in crawlers.items():
            if name in durations and name not in crawls.failed:
                crawls.counts[name] = crawl_counts(conn, crawler, run_id, durations[name])
    for spool, entries in replayed.items():  # spools are named <source>--<run id>.jsonl (mendel.crawl.outage)
        source = spool.split("--", 1)[0]
        target = source if source in crawls.counts else next(iter(crawls.counts), None)
        if target is not None:
            counts = crawls.counts[target]
            counts["spool_entries_replayed"] = counts.get("spool_entries_replayed", 0) + entries
    return crawls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "sources",
        nargs="+",
        choices=sorted(SPIDERS),
        metavar="source",
        help=f"the sources to crawl, side by side: {', '.join(sorted(SPIDERS))}",
    )
    names = list(dict.fromkeys(parser.parse_args().sources))
    database_url = os.environ["MENDEL_DATABASE_URL"]
    run_id = os.environ.get("MENDEL_RUN_ID") or str(uuid.uuid4())
    if DAGSTER_PIPES_CONTEXT_ENV_VAR not in os.environ:  # run by hand, not by Dagster
        crawls = crawl_or_outage(names, run_id, database_url)
        if len(names) == 1 and crawls.counts:
            print(crawls.counts[names[0]])
        elif crawls.counts:
            print(crawls.counts)
        exit_for(crawls, pipes=False)
        return
    with open_dagster_pipes() as pipes:
        crawls = crawl_or_outage(names, run_id, database_url)
        for name, counts in crawls.counts.items():
            pipes.log.info(f"{name}: {counts}")
            pipes.report_asset_materialization(asset_key=SOURCES[name].asset, metadata=counts)
        for name, why in crawls.failed.items():  # one clear line each, not a traceback
            pipes.log.error(f"mendel crawl: {why}" if why in crawls.outages else f"mendel crawl: {name} failed: {why}")
        if crawls.failed:
            pipes.report_custom_message({FAILED_MESSAGE: crawls.failed})
    exit_for(crawls, pipes=True)


def crawl_or_outage(names: list[str], run_id: str, database_url: str) -> Crawls:
    try:
        return run_spiders(names, run_id, database_url)
    except DatabaseOutage as exc:  # unreachable before anything was crawled
        return Crawls(failed=dict.fromkeys(names, str(exc)), outages=[str(exc)])


def exit_for(crawls: Crawls, pipes: bool) -> None:
    """A database outage exits with OUTAGE_EXIT_CODE, one line on stderr (the crawl asset fails without retrying).
    Another failed crawl exits 1 when run by hand; under Pipes it exits 0, its ``failed`` message saying which
    sources failed, so the others' materializations still reach Dagster."""
    for line in dict.fromkeys(crawls.outages):
        print(f"mendel crawl: {line}", file=sys.stderr)
    if crawls.outages:
        sys.exit(OUTAGE_EXIT_CODE)
    if crawls.failed and not pipes:
        for name, why in crawls.failed.items():
            print(f"mendel crawl: {name} failed: {why}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
