"""Crawl assets, one per source: each spider runs in its own process through Dagster Pipes and reports its counts."""

import sys
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Callable, Optional, Union

from dagster import (
    AssetExecutionContext,
    AssetsDefinition,
    Config,
    Failure,
    MaterializeResult,
    MonthlyPartitionsDefinition,
    PipesSubprocessClient,
    RetryPolicy,
    TimeWindowPartitionsDefinition,
    asset,
)

from mendel.config import PROJECT_ROOT
from orchestration.policies import NETWORK_RETRY, crawl_pool
from orchestration.resources import MendelResource


@dataclass(frozen=True)
class CrawlSource:
    """One crawl source. A plain description string in CRAWL_SOURCES means the defaults below."""

    description: str
    # How often the source is crawled; its freshness check fails once the last crawl is older than this + 2 h.
    cadence: timedelta = timedelta(days=1)
    # Backfills by date: the windows a backfill can ask for (one run each) and the crawler settings for a window
    # [start, end). None: the source has no date dimension to crawl by (re-crawl it whole with crawl_<source>).
    backfill_partitions: Optional[TimeWindowPartitionsDefinition] = None
    window_env: Optional[Callable[[date, date], dict]] = None


def _esbirka_years(start: date, end: date) -> dict:
    # The chronological register lists a year at a time.
    return {"MENDEL_ESBIRKA_YEARS": ",".join(str(y) for y in range(start.year, (end - timedelta(days=1)).year + 1))}


def _nsoud_published(start: date, end: date) -> dict:
    # MENDEL_NSOUD_TO is inclusive.
    return {"MENDEL_NSOUD_FROM": start.isoformat(), "MENDEL_NSOUD_TO": (end - timedelta(days=1)).isoformat()}


def _decided(prefix: str) -> Callable[[date, date], dict]:
    # MENDEL_NALUS_TO / MENDEL_NSSOUD_TO are inclusive decision dates.
    return lambda start, end: {f"{prefix}_FROM": start.isoformat(), f"{prefix}_TO": (end - timedelta(days=1)).isoformat()}


CRAWL_SOURCES = {
    "esbirka": CrawlSource(
        "Acts of the Sbírka zákonů from e-Sbírka's REST API: verified PDFs into the raw store, versions in PostgreSQL.",
        # end_offset=1: the current, still open year can be backfilled too.
        backfill_partitions=TimeWindowPartitionsDefinition(cron_schedule="0 0 1 1 *", start="1918", fmt="%Y",
                                                           end_offset=1),
        window_env=_esbirka_years,
    ),
    "nsoud": CrawlSource(
        "Nejvyšší soud decisions (search results → decision pages), keyed by ECLI.",
        backfill_partitions=MonthlyPartitionsDefinition(start_date="1993-01-01", end_offset=1),
        window_env=_nsoud_published,
    ),
    "municipal": "Municipal notice boards: OFN feeds (notices and their attachments) and HTML boards.",
    "ruian": "ČÚZK RÚIAN exchange-format files (municipality snapshots and daily changes).",
    "nalus": CrawlSource(
        "Ústavní soud decisions from NALUS (ASP.NET search form → result pages → GetText pages), keyed by ECLI.",
        backfill_partitions=MonthlyPartitionsDefinition(start_date="1993-01-01", end_offset=1),
        window_env=_decided("MENDEL_NALUS"),
    ),
    "nssoud": CrawlSource(
        "Nejvyšší správní soud decisions (search form → result rows → UTF-16-LE texts).",
        backfill_partitions=MonthlyPartitionsDefinition(start_date="2003-01-01", end_offset=1),
        window_env=_decided("MENDEL_NSSOUD"),
    ),
    "cnb": "ČNB regulatory listings (vyhlášky, úřední sdělení, dohledová sdělení a benchmarky, pravomocná rozhodnutí) "
           "→ their PDF and HTML documents.",
}


class CrawlWindow(Config):
    """Run config of a crawl: a date window [window_start, window_end) set by a backfill; empty = the usual range."""

    window_start: str = ""
    window_end: str = ""


# Every crawl asset the factory built, by source, with its spec: jobs, backfills and freshness checks are made
# from these (orchestration/sources.py), so a new source is one CRAWL_SOURCES entry.
CRAWL_ASSETS: dict[str, AssetsDefinition] = {}
CRAWL_SPECS: dict[str, CrawlSource] = {}


def crawl_asset(source: str, spec: Union[str, CrawlSource], retry_policy: RetryPolicy = NETWORK_RETRY) -> AssetsDefinition:
    spec = CrawlSource(spec) if isinstance(spec, str) else spec

    @asset(
        name=f"{source}_documents",
        group_name="crawl",
        kinds={"scrapy", "postgres"},
        owners=["team:ingest"],
        retry_policy=retry_policy,
        pool=crawl_pool(source),
        description=spec.description,
    )
    def _crawl(context: AssetExecutionContext, config: CrawlWindow, mendel: MendelResource,
               pipes_subprocess_client: PipesSubprocessClient):
        if not mendel.settings().source_enabled(source):
            context.log.info(f"{source} is not in MENDEL_SOURCES; nothing crawled")
            return MaterializeResult(metadata={"enabled": False, "discovered": 0})
        env = mendel.subprocess_env(context.run_id)
        window = {}
        if config.window_start or config.window_end:
            if spec.window_env is None:
                raise Failure(f"{source} cannot be crawled by date window", allow_retries=False)
            start, end = date.fromisoformat(config.window_start), date.fromisoformat(config.window_end)
            window = spec.window_env(start, end)
            env.update(window)
            context.log.info(f"{source}: crawling the window {start}..{end} ({window})")
        result = pipes_subprocess_client.run(
            command=[sys.executable, "-m", "crawlers.run", source],
            context=context,
            env=env,
            cwd=str(PROJECT_ROOT),
        ).get_materialize_result()
        if window:
            result = result._replace(metadata={**(result.metadata or {}), "window_start": config.window_start,
                                               "window_end": config.window_end})
        return result

    CRAWL_ASSETS[source] = _crawl
    CRAWL_SPECS[source] = spec
    return _crawl


(esbirka_documents, nsoud_documents, municipal_documents, ruian_documents, nalus_documents, nssoud_documents,
 cnb_documents) = (crawl_asset(source, description) for source, description in CRAWL_SOURCES.items())
DOCUMENT_SOURCES = [esbirka_documents, nsoud_documents, municipal_documents, nalus_documents, nssoud_documents,
                    cnb_documents]
