"""Municipal notice boards as Dagster dynamic partitions: one partition per board of the register
(:mod:`mendel.boards`: OFN boards from NKOD, HTML boards from the maintained list), added by the
``new_boards_from_registry`` sensor (orchestration/board_sensor.py).

A run crawls its boards in one Scrapy process through Pipes (``python -m crawlers.run boards``): one board, a range
of new boards (up to 100 per run), or — in a run without a partition, such as the nightly job — every board
registered so far. Only JavaScript boards start Chromium.
"""

import sys

from dagster import (
    AssetExecutionContext,
    BackfillPolicy,
    DynamicPartitionsDefinition,
    MaterializeResult,
    PipesSubprocessClient,
    asset,
)

from mendel import boards as register
from mendel.config import PROJECT_ROOT
from orchestration.policies import NETWORK_RETRY, crawl_pool
from orchestration.resources import MendelResource

BOARD_SOURCE = "boards"  # the crawl source (MENDEL_SOURCES, crawl_log, the concurrency pool)
MAX_BOARDS_PER_RUN = 100
board_partitions = DynamicPartitionsDefinition(name="municipal_boards")


def boards_of_run(context: AssetExecutionContext) -> list[str]:
    """The partition keys this run crawls: its own, or every registered board in a run without partitions."""
    if context.has_partition_key or context.has_partition_key_range:
        return list(context.partition_keys)
    return list(context.instance.get_dynamic_partitions(board_partitions.name))


@asset(
    name="board_documents",
    partitions_def=board_partitions,
    backfill_policy=BackfillPolicy.multi_run(MAX_BOARDS_PER_RUN),
    group_name="crawl",
    kinds={"scrapy", "playwright", "postgres"},
    owners=["team:ingest"],
    retry_policy=NETWORK_RETRY,
    pool=crawl_pool(BOARD_SOURCE),
    description="Municipal notice boards, one partition per board of the register (NKOD's OFN boards and the "
                "maintained HTML list): notices and their attachments, JavaScript boards rendered by Chromium.",
)
def board_documents(context: AssetExecutionContext, mendel: MendelResource,
                    pipes_subprocess_client: PipesSubprocessClient) -> MaterializeResult:
    settings = mendel.settings()
    if not settings.source_enabled(BOARD_SOURCE):
        context.log.info(f"{BOARD_SOURCE} is not in MENDEL_SOURCES; nothing crawled")
        return MaterializeResult(metadata={"enabled": False, "boards": 0})
    boards, unknown = register.boards_for_keys(boards_of_run(context), settings)
    if unknown:
        context.log.warning(f"{len(unknown)} board(s) no longer in the HTML list, not crawled: {unknown[:10]}")
    summary = {"boards": len(boards), "javascript_boards": sum(b.javascript for b in boards),
               "unknown_boards": len(unknown)}
    if not boards:
        return MaterializeResult(metadata={**summary, "discovered": 0})
    boards_file = register.write_boards_file(boards, settings.home / "boards" / f"{context.run_id}.json")
    env = mendel.subprocess_env(context.run_id)
    env["MENDEL_BOARDS_FILE"] = str(boards_file)
    result = pipes_subprocess_client.run(
        command=[sys.executable, "-m", "crawlers.run", BOARD_SOURCE],
        context=context,
        env=env,
        cwd=str(PROJECT_ROOT),
    ).get_materialize_result()
    return result._replace(metadata={**(result.metadata or {}), **summary})
