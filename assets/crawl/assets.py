"""Crawl assets, one per source of the registry (mendel.core.sources), all made by one subsettable multi-asset: the
selected sources' spiders run in ONE process through Dagster Pipes (one Scrapy reactor, crawling side by side), and
each source's counts come back as the materialization of its own asset. The nightly job crawls every source in one
step; a per-source job or backfill selects one asset, and that step crawls only its source."""

import sys
from datetime import date
from typing import Iterator, Optional, Sequence

from dagster import (
    AssetCheckResult,
    AssetChecksDefinition,
    AssetCheckSeverity,
    AssetExecutionContext,
    AssetKey,
    AssetsDefinition,
    AssetSpec,
    Config,
    DailyPartitionsDefinition,
    Failure,
    MaterializeResult,
    MetadataValue,
    MonthlyPartitionsDefinition,
    PipesClientCompletedInvocation,
    PipesSubprocessClient,
    RetryPolicy,
    TimeWindowPartitionsDefinition,
    asset_check,
    multi_asset,
)
from dagster._core.errors import DagsterPipesExecutionError

from mendel.checks.quality.thresholds import load_thresholds
from mendel.core.config import PROJECT_ROOT
from mendel.core.sources import SOURCES, Backfill, Source
from mendel.crawl import run_health
from mendel.crawl.outage import database_reachable
from orchestration.policies import NETWORK_RETRY
from orchestration.resources import MendelResource


def backfill_partitions(backfill: Optional[Backfill]) -> Optional[TimeWindowPartitionsDefinition]:
    """The date partitions of a source's backfill; end_offset=1: the current, still open window can be backfilled."""
    if backfill is None:
        return None
    if backfill.unit == "year":
        return TimeWindowPartitionsDefinition(
            cron_schedule="0 0 1 1 *", start=backfill.start[:4], fmt="%Y", end_offset=1
        )
    if backfill.unit == "day":
        return DailyPartitionsDefinition(start_date=backfill.start, end_offset=1)
    return MonthlyPartitionsDefinition(start_date=backfill.start, end_offset=1)


class CrawlWindow(Config):
    """Run config of a crawl: a date window [window_start, window_end) set by a backfill; empty = the usual range."""

    window_start: str = ""
    window_end: str = ""


# The crawl sources (every registry entry but the boards, which have an asset of their own: assets/boards/assets.py) and
# their asset specs and backfill partitions, by source: jobs, backfills and freshness checks are made from these
# (assets/crawl/per_source.py), so a new source is one entry of the registry (mendel.core.sources).
CRAWL_SOURCES = [source for source in SOURCES.values() if not source.board_partitions]


def crawl_spec(source: Source) -> AssetSpec:
    # skippable: a step that crawls several sources reports those that finished even when another failed.
    return AssetSpec(
        source.asset,
        group_name="crawl",
        kinds={"scrapy", "postgres"},
        owners=["team:ingest"],
        description=source.description,
        metadata={"mendel/source": source.name},
        skippable=True,
    )


CRAWL_SPECS: dict[str, AssetSpec] = {source.name: crawl_spec(source) for source in CRAWL_SOURCES}
BACKFILL_PARTITIONS = {
    source.name: backfill_partitions(source.backfill) for source in CRAWL_SOURCES if source.backfill is not None
}


CRAWL_FAILURES_CHECK = "crawl_failures"


def crawl_failures_result(conn, run_id: str, source: str) -> AssetCheckResult:
    """The crawl_failures check of one run: numbers to plot over runs, the commonest reasons as a table."""
    settings = load_thresholds()["crawl"]
    summary = run_health.failure_summary(conn, run_id, source, top=settings["top_reasons"])
    discovered, listing_failed = run_health.run_listing_counts(conn, run_id, source)
    why = run_health.crawl_failed(summary, discovered, listing_failed, settings["max_failure_share"])
    reasons = "\n".join(["| reason | URLs |", "|---|---:|"] + [f"| {r} | {n} |" for r, n in summary["top_reasons"]])
    return AssetCheckResult(
        check_name=CRAWL_FAILURES_CHECK,
        passed=why is None,
        severity=AssetCheckSeverity.WARN,
        description=why or "crawl failures within the limit",
        metadata={
            "tried": summary["tried"],
            "failed": summary["failed"],
            "failure_share": summary["failure_share"],
            "max_failure_share": settings["max_failure_share"],
            "discovered": discovered,
            "listing_failed": listing_failed,
            "top_reasons": MetadataValue.md(reasons),
        },
    )


def crawl_failures_check(source: Source) -> AssetChecksDefinition:
    """Runs after the source's crawl in the same run (a check of its own, so jobs may select checks alone)."""

    @asset_check(
        asset=source.asset,
        name=CRAWL_FAILURES_CHECK,
        blocking=False,
        description="Share of the run's URLs that failed or were quarantined, with the commonest reasons; "
        "fails above crawl.max_failure_share (quality_thresholds.yaml) or when no listing could "
        "be read and nothing was found.",
    )
    def _check(context, mendel: MendelResource) -> AssetCheckResult:
        if not mendel.settings().source_enabled(source.name):
            return AssetCheckResult(check_name=CRAWL_FAILURES_CHECK, passed=True, metadata={"crawled": False})
        with mendel.connect(processing=False) as conn:  # a crawl check takes no processing lock
            return crawl_failures_result(conn, context.run.run_id, source.name)

    return _check


# The Pipes message by which ``python -m crawlers.run`` names the sources whose crawl failed
# (crawlers.run.FAILED_MESSAGE; not imported from there: this module loads in every Dagster process, Scrapy only in
# the crawl's).
FAILED_MESSAGE = "failed"


def pipes_crawl(
    pipes_subprocess_client: PipesSubprocessClient, context, names: Sequence[str], env: dict
) -> PipesClientCompletedInvocation:
    """The sources' spiders in one process through Pipes; a database outage fails the step without retries (a retry
    against a dead server only repeats the failure; the crawl's spool waits for the next run)."""
    try:
        return pipes_subprocess_client.run(
            command=[sys.executable, "-m", "crawlers.run", *names],
            context=context,
            env=env,
            cwd=str(PROJECT_ROOT),
        )
    except DagsterPipesExecutionError:
        if not database_reachable(env["MENDEL_DATABASE_URL"]):
            raise Failure(
                f"{', '.join(names)}: PostgreSQL is unreachable (database outage); the crawl stopped and "
                "is not retried",
                allow_retries=False,
            ) from None
        raise


def failed_crawls(invocation: PipesClientCompletedInvocation) -> dict[str, str]:
    """Why each source whose crawl failed failed, as the crawl process reported it."""
    failed: dict[str, str] = {}
    for message in invocation.get_custom_messages():
        if isinstance(message, dict):
            failed.update(message.get(FAILED_MESSAGE) or {})
    return failed


def crawl_failure(failed: dict[str, str], crawled: int) -> Failure:
    return Failure(
        f"{len(failed)} of {crawled} crawls failed: {', '.join(failed)}",
        metadata={source: MetadataValue.text(why) for source, why in failed.items()},
    )


def run_crawl(pipes_subprocess_client: PipesSubprocessClient, context, name: str, env: dict) -> MaterializeResult:
    """One source's crawl in its own process (the board crawl's: assets/boards/assets.py)."""
    invocation = pipes_crawl(pipes_subprocess_client, context, [name], env)
    failed = failed_crawls(invocation)
    if failed:
        raise crawl_failure(failed, 1)
    return invocation.get_materialize_result()


def window_env(source: Source, config: CrawlWindow) -> dict[str, str]:
    """The crawl settings of a backfill's date window for one source; none without a window."""
    if not (config.window_start or config.window_end):
        return {}
    if source.window is None:
        raise Failure(f"{source.name} cannot be crawled by date window", allow_retries=False)
    return source.window.backfill_env(date.fromisoformat(config.window_start), date.fromisoformat(config.window_end))


def crawled_in_this_run(context: AssetExecutionContext, keys: Sequence[AssetKey]) -> set[AssetKey]:
    """The assets an earlier attempt of this step already materialized (a retry crawls only the others)."""
    try:
        first_attempt = context.retry_number == 0
    except AttributeError:  # invoked directly (build_asset_context): no step, no earlier attempt
        first_attempt = True
    if first_attempt:
        return set()
    latest = {key: context.instance.fetch_materializations(key, limit=1).records for key in keys}
    return {key for key, records in latest.items() if records and records[0].run_id == context.run_id}


def build_source_crawls(
    sources: Sequence[Source], retry_policy: RetryPolicy = NETWORK_RETRY, name: str = "source_crawls"
) -> AssetsDefinition:
    """One asset per source, crawled by one step: the selected sources' spiders in one Pipes process, side by side.
    A source that failed costs the step (retried: the retry crawls only the sources not yet materialized in the
    run), never the other sources' materializations."""
    by_key = {AssetKey(source.asset): source for source in sources}

    @multi_asset(
        name=name,
        specs=[crawl_spec(source) for source in sources],
        can_subset=True,
        retry_policy=retry_policy,
        description="Crawls the selected sources in one Scrapy process (python -m crawlers.run <sources>).",
    )
    def _crawls(
        context: AssetExecutionContext,
        config: CrawlWindow,
        mendel: MendelResource,
        pipes_subprocess_client: PipesSubprocessClient,
    ) -> Iterator[MaterializeResult]:
        settings = mendel.settings()
        selected = [source for key, source in by_key.items() if key in context.selected_asset_keys]
        done = crawled_in_this_run(context, [AssetKey(source.asset) for source in selected])
        crawl, env = [], mendel.subprocess_env(context.run_id)
        for source in selected:
            if not settings.source_enabled(source.name):
                context.log.info(f"{source.name} is not in MENDEL_SOURCES; nothing crawled")
                yield MaterializeResult(asset_key=source.asset, metadata={"enabled": False, "discovered": 0})
            elif AssetKey(source.asset) in done:
                context.log.info(f"{source.name} was crawled by an earlier attempt of this step")
            else:
                window = window_env(source, config)
                if window:
                    context.log.info(
                        f"{source.name}: crawling the window {config.window_start}..{config.window_end} ({window})"
                    )
                env.update(window)
                crawl.append(source)
        if not crawl:
            return
        invocation = pipes_crawl(pipes_subprocess_client, context, [source.name for source in crawl], env)
        # Only what the process reported: a source that failed gets no (empty) materialization of its own.
        for result in invocation.get_results(implicit_materializations=False):
            if isinstance(result, MaterializeResult) and (config.window_start or config.window_end):
                result = result._replace(
                    metadata={
                        **(result.metadata or {}),
                        "window_start": config.window_start,
                        "window_end": config.window_end,
                    }
                )
            yield result
        failed = failed_crawls(invocation)
        if failed:
            raise crawl_failure(failed, len(crawl))

    return _crawls


source_crawls = build_source_crawls(CRAWL_SOURCES)
CRAWL_CHECKS = [crawl_failures_check(source) for source in CRAWL_SOURCES]
DOCUMENT_SOURCES = [CRAWL_SPECS[source.name] for source in CRAWL_SOURCES if source.feeds == "documents"]
ruian_documents = CRAWL_SPECS["ruian"]  # feeds the register records (assets/processing/extraction.py)
