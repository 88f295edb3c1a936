"""Municipal notice boards: the register (``board_registry``) and the crawl (``board_documents``), one Dagster dynamic
partition per board. ``board_registry`` reads the register, links each board to its place or public body, records
it and makes the partitions match (boards gone have their documents withdrawn, never deleted); ``board_documents``
crawls one board, a range of new boards, or every registered board (the nightly) in one Scrapy process via Pipes.
"""

from collections import Counter
from enum import Enum
from typing import Optional

import psycopg
from dagster import (
    AssetExecutionContext,
    BackfillPolicy,
    Config,
    DynamicPartitionsDefinition,
    Failure,
    MaterializeResult,
    PipesSubprocessClient,
    asset,
)
from pydantic import Field

from assets.boards import register_read
from assets.boards.attachments import attachment_health
from assets.boards.crawled import materialize_read_boards, run_boards_file
from assets.boards.discovery import board_discovery
from assets.crawl.assets import crawl_scope, run_crawl
from mendel.crawl import board_health
from mendel.crawl.boards import candidates, placing, register
from mendel.crawl.boards.board import BOARD_SOURCE
from mendel.crawl.boards.cms_rules import cms_summary
from orchestration.policies import NETWORK_RETRY, crawl_pool
from orchestration.resources import MendelResource

MAX_BOARDS_PER_RUN = 100
# A register read that would remove more than this share of the known boards (and more than a few) is refused: a
# catalogue answering half empty must not withdraw half the country's notices.
MAX_REMOVED_SHARE = 0.5
board_partitions = DynamicPartitionsDefinition(name="municipal_boards")


def boards_by_kind(boards) -> dict[str, int]:
    """Boards per kind (``javascript``: the HTML boards Chromium renders), for run metadata."""
    kinds = Counter("javascript" if b.javascript else b.kind for b in boards)
    return {f"kind_{kind}": count for kind, count in sorted(kinds.items())}


@asset(
    name="board_registry",
    deps=[board_discovery],
    group_name="crawl",
    kinds={"sparql", "postgres"},
    owners=["team:ingest"],
    retry_policy=NETWORK_RETRY,
    pool=crawl_pool(BOARD_SOURCE),
    description="The register of notice boards (NKOD's boards, the maintained list, the boards found on the "
    "national list's websites), each linked to its "
    "municipality or region; the board partitions follow it, boards gone from it have their documents "
    "withdrawn.",
)
def board_registry(context: AssetExecutionContext, mendel: MendelResource) -> MaterializeResult:
    settings = mendel.settings()
    if not settings.source_enabled(BOARD_SOURCE):
        context.log.info(f"{BOARD_SOURCE} is not in MENDEL_SOURCES; the register is not read")
        return MaterializeResult(metadata={"enabled": False, "boards": 0})
    from mendel.registers.public_bodies import place_summary

    with psycopg.connect(mendel.db_url(), autocommit=True) as conn:  # the boards the finder found and confirmed
        found = candidates.confirmed_boards(conn)
    # A register that cannot be read fails the step (RegistryError): nothing is added or removed from half a read.
    read = register_read.read_register(settings, found=found)
    known = set(context.instance.get_dynamic_partitions(board_partitions.name))
    keys = [b.key for b in read]
    gone = sorted(known - set(keys))
    if len(gone) > 5 and len(gone) > MAX_REMOVED_SHARE * len(known):
        raise Failure(
            f"the register names {len(keys)} boards and would remove {len(gone)} of the {len(known)} "
            f"known ones; refused (more than {MAX_REMOVED_SHARE:.0%})",
            allow_retries=False,
        )
    # No processing lock: the register is the crawl's business, like the crawls in their subprocesses.
    with psycopg.connect(mendel.db_url(), autocommit=True) as conn:
        # Placed once, here: the notices stored by the crawls so far name a public body's board.
        boards, placed = placing.place_boards(conn, read)
        change = register.register_boards(conn, boards)
    new_partitions = [k for k in keys if k not in known]
    if new_partitions:
        context.instance.add_dynamic_partitions(board_partitions.name, new_partitions)
    for key in gone:
        context.instance.delete_dynamic_partition(board_partitions.name, key)
    if change.removed:
        context.log.info(
            f"{len(change.removed)} board(s) left the register: {change.removed[:10]}; "
            f"{len(change.withdrawn)} document(s) withdrawn"
        )
    return MaterializeResult(
        metadata={
            "boards": len(boards),
            **boards_by_kind(boards),
            "placed": placed,
            "unplaced": len(boards) - placed,
            # by municipality (kód obce), by public body (notices' file numbers), by region only (a name or page
            # address); the unplaced by reason (mendel.registers.public_bodies)
            **place_summary(boards),
            # HTML boards by the CMS their site runs, and those whose CMS has no rule set (counted, never dropped).
            **cms_summary(boards),
            # Boards found on the national list's websites and confirmed by a first read.
            "found_boards": sum(1 for b in boards if b.key in {f.key for f in found}),
            "added": len(change.added),
            "removed": len(change.removed),
            "withdrawn": len(change.withdrawn),
            "partitions_added": len(new_partitions),
            "partitions_removed": len(gone),
        }
    )


class BoardScope(Enum):
    PARTITIONS = "partitions"  # the run's board partitions: one board or a range (the sensor's runs, backfills)
    USUAL = "usual"  # the board crawl's usual range: every registered board (the nightly's)


class BoardCrawl(Config):
    """Run config of the board crawl: which boards. A run of chosen partitions crawls those; a run without partitions
    crawls every registered board only when its config or its run's tag (the nightly's) says USUAL — launched with
    empty config and no partition, it crawls nothing and says so."""

    boards: Optional[BoardScope] = Field(
        default=None, description="PARTITIONS: the run's partitions; USUAL: every registered board"
    )


def boards_of_run(context: AssetExecutionContext, config: BoardCrawl) -> list[str]:
    """The partition keys this run crawls: its own, or every registered board when the run crawls the usual range."""
    if context.has_partition_key or context.has_partition_key_range:
        if config.boards == BoardScope.USUAL:
            raise Failure(
                "boards: USUAL crawls every registered board, in a run without partitions", allow_retries=False
            )
        return list(context.partition_keys)
    if crawl_scope(context, config.boards, BoardScope) == BoardScope.USUAL:
        return list(context.instance.get_dynamic_partitions(board_partitions.name))
    raise Failure("boards: PARTITIONS, and the run has no partition: choose board partitions", allow_retries=False)


@asset(
    name="board_documents",
    deps=[board_registry],
    partitions_def=board_partitions,
    backfill_policy=BackfillPolicy.multi_run(MAX_BOARDS_PER_RUN),
    group_name="crawl",
    kinds={"scrapy", "playwright", "postgres"},
    owners=["team:ingest"],
    retry_policy=NETWORK_RETRY,
    pool=crawl_pool(BOARD_SOURCE),
    description="Municipal notice boards, one partition per board of the register (NKOD's feeds and exports, the "
    "maintained list's HTML boards and site APIs): notices and their attachments, JavaScript boards "
    "rendered by Chromium.",
)
def board_documents(
    context: AssetExecutionContext,
    config: BoardCrawl,
    mendel: MendelResource,
    pipes_subprocess_client: PipesSubprocessClient,
) -> MaterializeResult:
    settings = mendel.settings()
    if not settings.source_enabled(BOARD_SOURCE):
        context.log.info(f"{BOARD_SOURCE} is not in MENDEL_SOURCES; nothing crawled")
        return MaterializeResult(metadata={"enabled": False, "boards": 0})
    with psycopg.connect(mendel.db_url(), autocommit=True) as conn:
        boards, unknown = register.boards_for_keys(boards_of_run(context, config), settings, conn)
        change_mark = board_health.change_mark(conn)  # what the crawl adds or changes is marked at least this
    without_rules = [b for b in boards if b.kind == "html" and not b.rules]
    if without_rules:
        context.log.warning(
            f"{len(without_rules)} HTML board(s) have no extraction rules and are not read: "
            + "; ".join(f"{b.key}: {b.no_rules}" for b in without_rules[:10])
        )
    if unknown:
        context.log.warning(f"{len(unknown)} board(s) no longer in the maintained list, not crawled: {unknown[:10]}")
    summary = {
        "boards": len(boards),
        **boards_by_kind(boards),
        **cms_summary(boards),
        "unknown_boards": len(unknown),
    }
    if not boards:
        return MaterializeResult(metadata={**summary, "discovered": 0})
    boards_file = register.write_boards_file(boards, run_boards_file(settings, context.run_id))
    env = mendel.subprocess_env(context.run_id)
    env["MENDEL_BOARDS_FILE"] = str(boards_file)
    result = run_crawl(pipes_subprocess_client, context, BOARD_SOURCE, env)
    if not (context.has_partition_key or context.has_partition_key_range):  # the nightly: every registered board
        summary.update(materialize_read_boards(context, mendel, boards, change_mark))
    # What became of the notices' attachments, by reason (404s, deferrals): nothing unfetched goes unsaid.
    with psycopg.connect(mendel.db_url(), autocommit=True) as conn:
        attachments = attachment_health(conn, settings, context.run_id)
    summary.update({f"attachments_{key}": value for key, value in attachments.items()})
    return result._replace(metadata={**(result.metadata or {}), **summary})
