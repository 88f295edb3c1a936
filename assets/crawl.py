"""Crawl assets, one per source: each spider runs in its own process through Dagster Pipes and reports its counts."""

import sys

from dagster import AssetExecutionContext, AssetsDefinition, MaterializeResult, Backoff, PipesSubprocessClient, RetryPolicy, asset

from mendel.config import PROJECT_ROOT
from orchestration.resources import MendelResource

CRAWL_SOURCES = {
    "esbirka": "Acts of the Sbírka zákonů from e-Sbírka's REST API: verified PDFs into the raw store, versions in PostgreSQL.",
    "nsoud": "Nejvyšší soud decisions (search results → decision pages), keyed by ECLI.",
    "municipal": "Municipal notice boards: OFN feeds (notices and their attachments) and HTML boards.",
    "ruian": "ČÚZK RÚIAN exchange-format files (municipality snapshots and daily changes).",
}


def crawl_asset(source: str, description: str) -> AssetsDefinition:
    @asset(
        name=f"{source}_documents",
        group_name="crawl",
        kinds={"scrapy", "postgres"},
        owners=["team:ingest"],
        retry_policy=RetryPolicy(max_retries=2, delay=30, backoff=Backoff.EXPONENTIAL),
        description=description,
    )
    def _crawl(context: AssetExecutionContext, mendel: MendelResource, pipes_subprocess_client: PipesSubprocessClient):
        if not mendel.settings().source_enabled(source):
            context.log.info(f"{source} is not in MENDEL_SOURCES; nothing crawled")
            return MaterializeResult(metadata={"enabled": False, "discovered": 0})
        return pipes_subprocess_client.run(
            command=[sys.executable, "-m", "crawlers.run", source],
            context=context,
            env=mendel.subprocess_env(context.run_id),
            cwd=str(PROJECT_ROOT),
        ).get_materialize_result()

    return _crawl


esbirka_documents, nsoud_documents, municipal_documents, ruian_documents = (
    crawl_asset(source, description) for source, description in CRAWL_SOURCES.items()
)
DOCUMENT_SOURCES = [esbirka_documents, nsoud_documents, municipal_documents]
