"""Crawl assets, one per source of the registry (mendel.sources): each spider runs in its own process through
Dagster Pipes and reports its counts."""

import sys
from datetime import date
from typing import Optional

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetExecutionContext,
    AssetChecksDefinition,
    AssetsDefinition,
    Config,
    Failure,
    MaterializeResult,
    MetadataValue,
    MonthlyPartitionsDefinition,
    PipesSubprocessClient,
    RetryPolicy,
    TimeWindowPartitionsDefinition,
    asset,
    asset_check,
)
from dagster._core.errors import DagsterPipesExecutionError

from mendel import crawlstate
from mendel.config import PROJECT_ROOT
from mendel.outage import database_reachable
from mendel.quality import load_thresholds
from mendel.sources import SOURCES, Backfill, Source
from orchestration.policies import NETWORK_RETRY
from orchestration.resources import MendelResource


def backfill_partitions(backfill: Optional[Backfill]) -> Optional[TimeWindowPartitionsDefinition]:
    """The date partitions of a source's backfill; end_offset=1: the current, still open window can be backfilled."""
    if backfill is None:
        return None
    if backfill.unit == "year":
        return TimeWindowPartitionsDefinition(cron_schedule="0 0 1 1 *", start=backfill.start[:4], fmt="%Y",
                                              end_offset=1)
    return MonthlyPartitionsDefinition(start_date=backfill.start, end_offset=1)


class CrawlWindow(Config):
    """Run config of a crawl: a date window [window_start, window_end) set by a backfill; empty = the usual range."""

    window_start: str = ""
    window_end: str = ""


# Every crawl asset the factory built and its backfill partitions, by source: jobs, backfills and freshness checks
# are made from these (orchestration/sources.py), so a new source is one entry of the registry (mendel.sources).
CRAWL_ASSETS: dict[str, AssetsDefinition] = {}
BACKFILL_PARTITIONS = {source.name: backfill_partitions(source.backfill) for source in SOURCES.values()
                       if source.backfill is not None}


CRAWL_FAILURES_CHECK = "crawl_failures"


def crawl_failures_result(conn, run_id: str, source: str) -> AssetCheckResult:
    """The crawl_failures check of one run: numbers to plot over runs, the commonest reasons as a table."""
    settings = load_thresholds()["crawl"]
    summary = crawlstate.failure_summary(conn, run_id, source, top=settings["top_reasons"])
    discovered, listing_failed = crawlstate.run_listing_counts(conn, run_id, source)
    why = crawlstate.crawl_failed(summary, discovered, listing_failed, settings["max_failure_share"])
    reasons = "\n".join(["| reason | URLs |", "|---|---:|"] + [f"| {r} | {n} |" for r, n in summary["top_reasons"]])
    return AssetCheckResult(
        check_name=CRAWL_FAILURES_CHECK, passed=why is None, severity=AssetCheckSeverity.WARN,
        description=why or "crawl failures within the limit",
        metadata={"tried": summary["tried"], "failed": summary["failed"], "failure_share": summary["failure_share"],
                  "max_failure_share": settings["max_failure_share"], "discovered": discovered,
                  "listing_failed": listing_failed, "top_reasons": MetadataValue.md(reasons)})


def crawl_failures_check(source: Source) -> AssetChecksDefinition:
    """Runs after the source's crawl in the same run (a check of its own, so jobs may select checks alone)."""

    @asset_check(asset=source.asset, name=CRAWL_FAILURES_CHECK, blocking=False,
                 description="Share of the run's URLs that failed or were quarantined, with the commonest reasons; "
                             "fails above crawl.max_failure_share (quality_thresholds.yaml) or when no listing could "
                             "be read and nothing was found.")
    def _check(context, mendel: MendelResource) -> AssetCheckResult:
        if not mendel.settings().source_enabled(source.name):
            return AssetCheckResult(check_name=CRAWL_FAILURES_CHECK, passed=True, metadata={"crawled": False})
        with mendel.connect(processing=False) as conn:  # a crawl check takes no processing lock
            return crawl_failures_result(conn, context.run.run_id, source.name)

    return _check


def run_crawl(pipes_subprocess_client: PipesSubprocessClient, context, name: str, env: dict) -> MaterializeResult:
    """One spider in its own process through Pipes; a database outage fails the step without retries (a retry
    against a dead server only repeats the failure; the crawl's spool waits for the next run)."""
    try:
        return pipes_subprocess_client.run(
            command=[sys.executable, "-m", "crawlers.run", name],
            context=context,
            env=env,
            cwd=str(PROJECT_ROOT),
        ).get_materialize_result()
    except DagsterPipesExecutionError:
        if not database_reachable(env["MENDEL_DATABASE_URL"]):
            raise Failure(f"{name}: PostgreSQL is unreachable (database outage); the crawl stopped and is "
                          "not retried", allow_retries=False) from None
        raise


def crawl_asset(source: Source, retry_policy: RetryPolicy = NETWORK_RETRY) -> AssetsDefinition:
    name = source.name

    @asset(
        name=source.asset,
        group_name="crawl",
        kinds={"scrapy", "postgres"},
        owners=["team:ingest"],
        retry_policy=retry_policy,
        pool=source.pool,
        description=source.description,
    )
    def _crawl(context: AssetExecutionContext, config: CrawlWindow, mendel: MendelResource,
               pipes_subprocess_client: PipesSubprocessClient):
        if not mendel.settings().source_enabled(name):
            context.log.info(f"{name} is not in MENDEL_SOURCES; nothing crawled")
            return MaterializeResult(metadata={"enabled": False, "discovered": 0})
        env = mendel.subprocess_env(context.run_id)
        window = {}
        if config.window_start or config.window_end:
            if source.window is None:
                raise Failure(f"{name} cannot be crawled by date window", allow_retries=False)
            start, end = date.fromisoformat(config.window_start), date.fromisoformat(config.window_end)
            window = source.window.backfill_env(start, end)
            env.update(window)
            context.log.info(f"{name}: crawling the window {start}..{end} ({window})")
        result = run_crawl(pipes_subprocess_client, context, name, env)
        if window:
            result = result._replace(metadata={**(result.metadata or {}), "window_start": config.window_start,
                                               "window_end": config.window_end})
        return result

    CRAWL_ASSETS[name] = _crawl
    return _crawl


# Board sources have an asset of their own (assets/boards.py: one dynamic partition per board).
crawl_assets = [crawl_asset(source) for source in SOURCES.values() if not source.board_partitions]
CRAWL_CHECKS = [crawl_failures_check(source) for source in SOURCES.values() if not source.board_partitions]
DOCUMENT_SOURCES = [CRAWL_ASSETS[source.name] for source in SOURCES.values()
                    if not source.board_partitions and source.feeds == "documents"]
ruian_documents = CRAWL_ASSETS["ruian"]  # feeds the register records (assets/extract.py)
