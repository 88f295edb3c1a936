"""Crawl assets, one per source of the registry (mendel.core.sources), each crawled by a step of its own
(``<source>_crawl``): a slow or failing source shows as its own box in the run's timeline, retries alone and takes
its own Dagster pool. A step runs its source's spider through Dagster Pipes (``python -m crawlers.run <source>``);
the factory (:func:`build_source_crawls`) still makes one step of several sources crawling side by side in one
process where that is wanted.

A crawl says what it crawls (:class:`CrawlWindow`, :func:`crawl_scope`): a ``crawl_<source>`` job cannot be launched
on empty config, a backfill's partition gives ``WINDOW`` with its dates, the nightly's runs carry the tag that gives
every crawl its usual range; a crawl step in any other run with nothing said fails before crawling anything."""

import importlib
import sys
from datetime import date
from enum import Enum
from pathlib import Path
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
from pydantic import Field

from mendel.checks.quality.thresholds import load_thresholds
from mendel.core.config import PROJECT_ROOT, SAMPLE_CORPUS
from mendel.core.sources import SOURCES, Backfill, Source
from mendel.crawl import run_health
from mendel.crawl.outage import database_reachable
from orchestration.policies import CRAWL_SCOPE_TAG, NETWORK_RETRY, crawl_pool
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


class CrawlScope(Enum):
    USUAL = "usual"  # the source's usual range: its MENDEL_* settings, else the profile's defaults
    WINDOW = "window"  # the date window [window_start, window_end), a backfill's


class CrawlWindow(Config):
    """Run config of a crawl: ``scope`` USUAL (the usual range) or WINDOW (the date window [window_start,
    window_end), a backfill partition's). Unset only in a run tagged with its scope (the nightly's)."""

    scope: Optional[CrawlScope] = Field(
        default=None, description="USUAL: the source's usual range; WINDOW: window_start..window_end"
    )
    window_start: str = Field(default="", description="WINDOW: the first day (YYYY-MM-DD)")
    window_end: str = Field(default="", description="WINDOW: the day after the last (YYYY-MM-DD)")


def crawl_scope(context, scope: Optional[Enum], scopes: type[Enum] = CrawlScope) -> Enum:
    """What a crawl step crawls: the scope its config says, else the one its run's tag says (the nightly's runs carry
    ``mendel/crawl_scope: usual``); neither fails the step before anything is crawled."""
    if scope is not None:
        return scope
    tagged = context.run.tags.get(CRAWL_SCOPE_TAG, "")
    if tagged.upper() in scopes.__members__:
        return scopes[tagged.upper()]
    raise Failure(
        "nothing says what to crawl: set the config's scope ("
        + " or ".join(scopes.__members__)
        + f") — a run launched with empty config crawls nothing (only runs tagged {CRAWL_SCOPE_TAG}, the nightly's,"
        " crawl their usual range without it)",
        allow_retries=False,
    )


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


def demo_holds_documents(source: Source, corpus_root: Path = SAMPLE_CORPUS) -> bool:
    """Whether the demo's mirror can answer any document of ``source``: a mirror site that lists a source's real
    documents without having their bytes (ČNB's) says so by ``holds_documents``; the others serve theirs."""
    for site in source.mirror_sites:
        module, _, name = site.rpartition(".")
        holds = getattr(getattr(importlib.import_module(module), name), "holds_documents", None)
        if holds is not None and not holds(corpus_root):
            return False
    return True


def reasons_table(reasons: Sequence[tuple[str, int]]) -> MetadataValue:
    return MetadataValue.md("\n".join(["| reason | URLs |", "|---|---:|"] + [f"| {r} | {n} |" for r, n in reasons]))


def demo_not_found(summary: dict, listing_failed: int) -> str | None:
    """Why a demo run of a source whose mirror holds none of its documents passes, or None: its listings were read
    and every document it named answered 404 — in this run, or on an earlier one and held back since."""
    not_found = summary["failed_by_status"].get(404, 0)
    held_back = dict(summary["held_back_reasons"]).get("HTTP 404", 0)
    if listing_failed or not (not_found or held_back):
        return None
    if not_found != summary["failed"] or held_back != summary["held_back"]:
        return None  # anything but a 404 (a 5xx, a timeout, a refused file) is a failure here too
    earlier = (
        f"; {held_back} of them held back after that answer on an earlier run, not requested again" if held_back else ""
    )
    return (
        f"no documents in the demo: its listings were read, and the {not_found + held_back} documents they name are "
        f"not in the sample corpus (the mirror answers 404{earlier})"
    )


def crawl_failures_result(conn, run_id: str, source: str, demo_without_documents: bool = False) -> AssetCheckResult:
    """The crawl_failures check of one run: numbers to plot over runs, the commonest reasons as a table.
    URLs held back (gone on their last tries, not requested in this run) are counted and listed with their last
    answer, not as failures of this run (mendel.crawl.run_health). ``demo_without_documents``: the demo's mirror
    holds none of the source's documents, so a run whose listings were read and whose every failure or held-back URL
    is a 404 passes as "no documents in the demo" (anything else still fails)."""
    settings = load_thresholds()["crawl"]
    summary = run_health.failure_summary(conn, run_id, source, top=settings["top_reasons"])
    discovered, listing_failed = run_health.run_listing_counts(conn, run_id, source)
    why = run_health.crawl_failed(summary, discovered, listing_failed, settings["max_failure_share"])
    metadata = {
        "tried": summary["tried"],
        "failed": summary["failed"],
        "failure_share": summary["failure_share"],
        "max_failure_share": settings["max_failure_share"],
        "held_back": summary["held_back"],
        "discovered": discovered,
        "listing_failed": listing_failed,
        "top_reasons": reasons_table(summary["top_reasons"]),
    }
    if summary["held_back"]:
        metadata["held_back_reasons"] = reasons_table(summary["held_back_reasons"])
    description = why or "crawl failures within the limit"
    if why is None and summary["held_back"]:
        description += f"; {run_health.held_back_note(summary)}"
    if demo_without_documents:
        metadata["demo_documents"] = False
        not_in_corpus = demo_not_found(summary, listing_failed)
        if not_in_corpus:
            why, description = None, not_in_corpus
    return AssetCheckResult(
        check_name=CRAWL_FAILURES_CHECK,
        passed=why is None,
        severity=AssetCheckSeverity.WARN,
        description=description,
        metadata=metadata,
    )


def crawl_failures_check(source: Source) -> AssetChecksDefinition:
    """Runs after the source's crawl in the same run (a check of its own, so jobs may select checks alone)."""

    @asset_check(
        asset=source.asset,
        name=CRAWL_FAILURES_CHECK,
        blocking=False,
        description="Share of the URLs the run tried that failed or were quarantined, with the commonest reasons, "
        "and the URLs held back (gone on their last tries, not requested) with their last answer; fails above "
        "crawl.max_failure_share (quality_thresholds.yaml), when no listing could be read and nothing was found, "
        "or when every URL found was held back.",
    )
    def _check(context, mendel: MendelResource) -> AssetCheckResult:
        settings = mendel.settings()
        if not settings.source_enabled(source.name):
            return AssetCheckResult(check_name=CRAWL_FAILURES_CHECK, passed=True, metadata={"crawled": False})
        without_documents = settings.profile != "production" and not demo_holds_documents(source)
        with mendel.connect(processing=False) as conn:  # a crawl check takes no processing lock
            return crawl_failures_result(conn, context.run.run_id, source.name, without_documents)

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


def window_env(source: Source, config: CrawlWindow, scope: CrawlScope) -> dict[str, str]:
    """The crawl settings of a backfill's date window for one source; none for the usual range."""
    if scope == CrawlScope.USUAL:
        if config.window_start or config.window_end:
            raise Failure("scope USUAL takes no window_start/window_end (scope WINDOW does)", allow_retries=False)
        return {}
    if not (config.window_start and config.window_end):
        raise Failure("scope WINDOW needs window_start and window_end (YYYY-MM-DD)", allow_retries=False)
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


def crawl_step_name(source: Source) -> str:
    return f"{source.name}_crawl"


def build_source_crawls(
    sources: Sequence[Source],
    retry_policy: RetryPolicy = NETWORK_RETRY,
    name: str = "source_crawls",
    pool: Optional[str] = None,
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
        pool=pool,
        description="Crawls "
        + (f"{sources[0].name}" if len(sources) == 1 else "the selected sources in one Scrapy process")
        + f" (python -m crawlers.run {' '.join(source.name for source in sources)}).",
    )
    def _crawls(
        context: AssetExecutionContext,
        config: CrawlWindow,
        mendel: MendelResource,
        pipes_subprocess_client: PipesSubprocessClient,
    ) -> Iterator[MaterializeResult]:
        settings = mendel.settings()
        scope = crawl_scope(context, config.scope)
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
                window = window_env(source, config, scope)
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
            if isinstance(result, MaterializeResult) and scope == CrawlScope.WINDOW:
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


# One step per source (<source>_crawl), each in its source's pool.
SOURCE_CRAWLS = {
    source.name: build_source_crawls([source], name=crawl_step_name(source), pool=crawl_pool(source.name))
    for source in CRAWL_SOURCES
}
CRAWL_CHECKS = [crawl_failures_check(source) for source in CRAWL_SOURCES]
DOCUMENT_SOURCES = [CRAWL_SPECS[source.name] for source in CRAWL_SOURCES if source.feeds == "documents"]
ruian_documents = CRAWL_SPECS["ruian"]  # feeds the register records (assets/processing/extraction.py)
