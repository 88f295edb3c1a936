"""What one run of the board crawl crawled: the boards file it hands the crawl process, and — in a run without
partitions (the nightly) — each board whose listing was read reported as a materialisation of its own partition of
``board_documents``, so the UI shows what the night did instead of every board "Missing". A board the night could
not read keeps its last materialisation (or stays missing), with the reason in the crawl failure check
(assets/boards/checks.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from dagster import AssetExecutionContext, AssetMaterialization, MetadataValue

from mendel.core.config import Settings
from mendel.crawl import board_health
from orchestration.resources import MendelResource


def run_boards_file(settings: Settings, run_id: str) -> Path:
    """The boards one run crawls, as the board asset writes them for the crawl process (and the check reads them)."""
    return settings.home / "boards" / f"{run_id}.json"


def materialize_read_boards(context: AssetExecutionContext, mendel: MendelResource, boards: Sequence) -> dict:
    """One materialisation per board of ``boards`` this run read (``Board``: key, kind, url); returns counts."""
    with mendel.connect(processing=False) as conn:  # a crawl's bookkeeping: no processing lock
        unread = board_health.unread_boards(conn, context.run.run_id, [b.url for b in boards])
        documents = board_health.active_documents(conn, [b.url for b in boards])
    read = [b for b in boards if b.url not in unread]
    for board in read:
        context.log_event(
            AssetMaterialization(
                asset_key=context.asset_key,
                partition=board.key,
                metadata={
                    "kind": "javascript" if getattr(board, "javascript", False) else board.kind,
                    "listing": MetadataValue.url(board.url),
                    # active documents the board's listing owns (a notice a feed also lists is the feed's)
                    "documents_owned": documents.get(board.url, 0),
                },
            )
        )
    if unread:
        keys = [b.key for b in boards if b.url in unread]
        context.log.warning(
            f"{len(keys)} board(s) not read in this run keep their last materialisation: {keys[:10]}"
            " (reasons: the crawl_failures check)"
        )
    return {"partitions_materialized": len(read), "partitions_not_read": len(boards) - len(read)}
