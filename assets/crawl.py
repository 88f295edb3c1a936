"""Crawl assets: each spider runs in its own process through Dagster Pipes and reports its counts."""


import sys

from dagster import AssetExecutionContext, Backoff, PipesSubprocessClient, RetryPolicy, asset

from mendel.config import PROJECT_ROOT
from orchestration.resources import MendelResource


@asset(
    group_name="crawl",
    kinds={"scrapy", "postgres"},
    owners=["team:ingest"],
    retry_policy=RetryPolicy(max_retries=2, delay=30, backoff=Backoff.EXPONENTIAL),
    description="Acts of the Sbírka zákonů from e-Sbírka's REST API: verified PDFs into the raw store, versions in PostgreSQL.",
)
def esbirka_documents(context: AssetExecutionContext, mendel: MendelResource,
                      pipes_subprocess_client: PipesSubprocessClient):
    return pipes_subprocess_client.run(
        command=[sys.executable, "-m", "crawlers.run", "esbirka"],
        context=context,
        env=mendel.subprocess_env(context.run_id),
        cwd=str(PROJECT_ROOT),
    ).get_materialize_result()
